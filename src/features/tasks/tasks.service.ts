/** Tasks on a space's board: create, move, update, delete; their messages and deliverables; my tasks. */
import { type Db, writeTx } from "../../db/client";
import type { OrgActor } from "../../http/actor";
import { conflict, invalid, notFound } from "../../http/errors";
import { isUuid, newId, nextStamp } from "../../lib/ids";
import type { FilesService } from "../files/files.service";
import type { PeopleStore } from "../people/people.store";
import type { SpaceActor } from "../spaces/spaces.policy";
import type { SpacesStore } from "../spaces/spaces.store";
import { presentTask } from "./tasks.present";
import type { CreateTaskIn, PageQuery, PatchTaskIn } from "./tasks.schemas";
import type { DeliverableView, MyTaskView, TaskMessageRow, TaskRow, TasksStore, TaskView } from "./tasks.store";

/** Gap between neighbouring ranks: room for 16 moves between the same two tasks before a respace. */
const RANK_STEP = 65_536;
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

const taskNotFound = () => notFound("task not found");

/** `limit` clamped to 200, default 50; `before` as an exclusive bound in epoch ms (default: none). */
export function pageOf(query: PageQuery): { limit: number; before: number } {
  return {
    limit: Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT),
    before: query.before ? exclusiveMillis(query.before) : Number.MAX_SAFE_INTEGER,
  };
}

/**
 * Stored times have millisecond precision; a `before` finer than that (`.580999Z`) still includes the
 * messages of its millisecond (`.580Z` is strictly before it), so the bound rounds up.
 */
function exclusiveMillis(timestamp: string): number {
  const ms = Date.parse(timestamp);
  const fraction = timestamp.match(/\.(\d+)/)?.[1] ?? "";
  return /[1-9]/.test(fraction.slice(3)) ? ms + 1 : ms;
}

/** Task operations, each on a space the macro has already checked. */
export class TasksService {
  constructor(
    private readonly db: Db,
    private readonly store: TasksStore,
    private readonly spaces: SpacesStore,
    private readonly people: PeopleStore,
    private readonly files: FilesService,
  ) {}

  /** Every task of the space, by column then position. */
  list(actor: SpaceActor): TaskView[] {
    const board = this.spaces.board(actor.space.id);
    if (!board) return [];
    return this.spaces
      .columns(board.id)
      .flatMap((column) => this.store.column(column.id).map((task, position) => ({ ...task, position })));
  }

  /** Appends a task at the bottom of its column. */
  create(actor: SpaceActor, input: CreateTaskIn): TaskView {
    const now = Date.now();
    return writeTx(this.db, () => {
      const column = this.spaces.column(actor.space.id, input.column_id);
      if (!column) throw invalid("invalid column");
      this.checkAssignee(actor, input.assignee_user_id);
      if (input.deliverable_required) this.files.ensureDeliverables(actor);
      const last = this.store.lastRank(column.id);
      const row: TaskRow = {
        id: newId(),
        spaceId: actor.space.id,
        boardId: column.boardId,
        columnId: column.id,
        title: input.title,
        description: input.description ?? "",
        assigneeUserId: input.assignee_user_id ?? null,
        dueAt: input.due_at ? Date.parse(input.due_at) : null,
        deliverableRequired: input.deliverable_required ?? false,
        deliverableInstructions: input.deliverable_instructions ?? "",
        rank: last === null ? RANK_STEP : last + RANK_STEP,
        version: 1,
        createdBy: actor.userId,
        createdAt: now,
        updatedAt: now,
      };
      this.store.insert(row);
      return this.require(actor, row.id);
    });
  }

  /**
   * Changes only the fields present. A move (`column_id` and/or `position`) gives the task a rank between
   * its new neighbours; `position` past the end means last. `version` +1 on every update.
   */
  patch(actor: SpaceActor, id: string, input: PatchTaskIn): TaskView {
    return writeTx(this.db, () => {
      const task = this.require(actor, id);
      if (input.version !== undefined && input.version !== task.version) {
        throw conflict("version conflict", { task: presentTask(task) });
      }
      const changes: Partial<TaskRow> = {
        version: task.version + 1,
        updatedAt: Math.max(Date.now(), task.updatedAt + 1),
      };
      if (input.title !== undefined) changes.title = input.title;
      if (input.description !== undefined) changes.description = input.description;
      if (input.deliverable_instructions !== undefined)
        changes.deliverableInstructions = input.deliverable_instructions;
      if (input.deliverable_required !== undefined) {
        changes.deliverableRequired = input.deliverable_required;
        if (input.deliverable_required) this.files.ensureDeliverables(actor);
      }
      if (input.assignee_user_id !== undefined) {
        this.checkAssignee(actor, input.assignee_user_id);
        changes.assigneeUserId = input.assignee_user_id;
      }
      if (input.clear_due_at) changes.dueAt = null;
      else if (input.due_at !== undefined) changes.dueAt = input.due_at === null ? null : Date.parse(input.due_at);

      if (input.column_id !== undefined || input.position !== undefined) {
        const columnId = input.column_id ?? task.columnId;
        if (columnId !== task.columnId && !this.spaces.column(actor.space.id, columnId))
          throw invalid("invalid column");
        const moved = columnId !== task.columnId;
        if (moved || (input.position !== undefined && input.position !== task.position)) {
          changes.columnId = columnId;
          changes.rank = this.rankFor(task, columnId, input.position);
        }
      }
      const { position: _position, ...row } = task;
      this.store.save({ ...row, ...changes });
      return this.require(actor, task.id);
    });
  }

  delete(actor: SpaceActor, id: string): void {
    writeTx(this.db, () => this.store.delete(this.require(actor, id).id));
  }

  /** Tasks assigned to the caller across the spaces they can see. */
  mine(actor: OrgActor): MyTaskView[] {
    return this.store.assignedTo(actor.orgId, actor.userId, actor.permissions.has("org.manage"));
  }

  // Messages

  messages(actor: SpaceActor, taskId: string, query: PageQuery): TaskMessageRow[] {
    const task = this.require(actor, taskId);
    const { limit, before } = pageOf(query);
    return this.store.messages(task.id, before, limit);
  }

  postMessage(actor: SpaceActor, taskId: string, content: string): TaskMessageRow {
    return writeTx(this.db, () => {
      const task = this.require(actor, taskId);
      const row: TaskMessageRow = {
        id: newId(),
        taskId: task.id,
        authorUserId: actor.userId,
        content,
        createdAt: nextStamp(this.store.latestMessageAt(task.id)),
      };
      this.store.insertMessage(row);
      return row;
    });
  }

  // Deliverables

  deliverables(actor: SpaceActor, taskId: string): DeliverableView[] {
    return this.store.deliverables(this.require(actor, taskId).id);
  }

  link(actor: SpaceActor, taskId: string, fileNodeId: string): void {
    writeTx(this.db, () => {
      const task = this.require(actor, taskId);
      const file = this.files.deliverableFile(actor, fileNodeId);
      this.store.linkDeliverable(task.id, file.id, actor.userId, Date.now());
    });
  }

  unlink(actor: SpaceActor, taskId: string, fileNodeId: string): void {
    const task = this.require(actor, taskId);
    if (!isUuid(fileNodeId) || !this.store.unlinkDeliverable(task.id, fileNodeId)) {
      throw notFound("deliverable not found");
    }
  }

  // Helpers

  private require(actor: SpaceActor, id: string): TaskView {
    const task = isUuid(id) ? this.store.task(actor.space.id, id) : undefined;
    if (!task) throw taskNotFound();
    return task;
  }

  private checkAssignee(actor: SpaceActor, userId: string | null | undefined): void {
    if (userId && !this.people.isMember(actor.orgId, userId)) throw invalid("invalid assignee");
  }

  /** A rank that puts the task at `position` of the column (the end when omitted or past it). */
  private rankFor(task: TaskRow, columnId: string, position: number | undefined): number {
    const others = this.store.countInColumn(columnId) - (task.columnId === columnId ? 1 : 0);
    const target = position === undefined ? others : Math.min(position, others);
    for (let attempt = 0; attempt < 2; attempt++) {
      const around = this.store.ranksAt(columnId, task.id, Math.max(target - 1, 0), target === 0 ? 1 : 2);
      const before = target === 0 ? undefined : around[0];
      const after = target === 0 ? around[0] : around[1];
      if (!before && !after) return RANK_STEP;
      if (!before) return (after as { rank: number }).rank - RANK_STEP;
      if (!after) return before.rank + RANK_STEP;
      if (after.rank - before.rank >= 2) return Math.floor((before.rank + after.rank) / 2);
      // No room left between the two neighbours: spread the column out and look again.
      this.store.respace(columnId, RANK_STEP, task.id);
    }
    throw new Error(`could not place task ${task.id} in column ${columnId}`);
  }
}
