/** Tasks on a space's board: create, move, update, delete; their messages and deliverables; my tasks. */

import type { OrgActor, Principal, SpaceActor } from "../../core/actor";
import { conflict, invalid, notFound } from "../../core/errors";
import { type EventBus, spaceEvent, type Unit } from "../../core/events";
import { type PageQuery, pageOf } from "../../core/paging";
import type { IncomingFile } from "../../core/upload";
import type { UnitOfWork } from "../../db/unit";
import { isUuid, newId, nextStamp } from "../../lib/ids";
import type { FilesService, NodeRow } from "../files/files.service";
import type { LabelsService } from "../labels/labels.service";
import type { MembersService } from "../members/members.service";
import type { SpacesService } from "../spaces/spaces.service";
import { TaskLabelSets } from "./tasks.labels";
import { ColumnOrders } from "./tasks.order";
import { presentTask, presentTaskMessage } from "./tasks.present";
import type { CreateTaskIn, PatchTaskIn, TasksQuery } from "./tasks.schemas";
import type {
  DeliverableView,
  MyTaskView,
  TaskMessageRow,
  TaskRecord,
  TaskRow,
  TasksStore,
  TaskView,
} from "./tasks.store";

/** Gap between neighbouring ranks: room for 16 moves between the same two tasks before a respace. */
const RANK_STEP = 65_536;
const taskNotFound = () => notFound("task not found");

/** What a column's WIP limit is checked on. */
interface ColumnLimit {
  id: string;
  wipLimit: number | null;
}

/** Two sorted lists of ids are the same. */
const sameIds = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((id, i) => id === b[i]);

/**
 * Where a move puts a task, decided inside its transaction and applied to the column orders after it commits
 * (so the orders never get ahead of the database): the task's position is known before that.
 */
interface Placement {
  from: string;
  to: string;
  rank: number;
  /** The task's 0-based position in its new column. */
  position: number;
  /** Ranks of the target column were rewritten to make room. */
  respaced: boolean;
}

/** Task operations, each on a space the macro has already checked. Every change emits its event. */
export class TasksService {
  private readonly orders: ColumnOrders;
  private readonly labelSets: TaskLabelSets;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: TasksStore,
    private readonly spaces: SpacesService,
    private readonly people: MembersService,
    private readonly files: FilesService,
    private readonly labels: LabelsService,
  ) {
    this.orders = new ColumnOrders((columnId) => store.ranksAt(columnId, "", 0, -1));
    this.labelSets = new TaskLabelSets((spaceId) => store.labelLinks(spaceId));
  }

  /** A deleted label leaves its tasks in the same unit, each as an update (as a PATCH of `label_ids` would). */
  /** Drops the column orders and label sets kept in memory: another node wrote (PostgreSQL mode). */
  forgetRemembered(): void {
    this.orders.clear();
    this.labelSets.clear();
  }

  listen(events: EventBus): void {
    events.onWrite("label.deleted", (event, unit) => {
      const labelId = event.payload.id;
      for (const row of this.store.withLabel(labelId)) {
        const task = this.record(row);
        const next = this.updated(task, { labelIds: task.labelIds.filter((id) => id !== labelId) });
        this.announce(unit, event.organization_id, task, next, event.actor);
      }
    });
  }

  /**
   * Every task of the space, by column then position (positions in the whole column, also when filtered);
   * with `label_id` and/or `priority`, only the tasks that match.
   */
  list(actor: SpaceActor, filter: TasksQuery = {}): TaskView[] {
    const labelId = filter.label_id ? this.labels.resolve(actor, [filter.label_id])[0] : undefined;
    const { priority } = filter;
    const tasks = this.spaces
      .columns(actor.space)
      .flatMap((column) =>
        this.store
          .column(column.id)
          .map((task, position) => ({ ...task, position, labelIds: this.labelSets.labelsOf(task.spaceId, task.id) })),
      );
    if (labelId === undefined && priority === undefined) return tasks;
    return tasks.filter(
      (task) =>
        (labelId === undefined || task.labelIds.includes(labelId)) &&
        (priority === undefined || task.priority === priority),
    );
  }

  /** One task with its position in its column. */
  get(actor: SpaceActor, id: string): TaskView {
    return this.view(this.require(actor, id));
  }

  /** Appends a task at the bottom of its column. */
  create(actor: SpaceActor, input: CreateTaskIn): TaskView {
    return this.uow.write((unit) => {
      const column = this.spaces.column(actor, input.column_id);
      if (!column) throw invalid("invalid column");
      this.checkAssignee(actor, input.assignee_user_id);
      const labelIds = this.labels.resolve(actor, input.label_ids ?? []);
      this.assertRoom(actor, column, "");
      if (input.deliverable_required) this.files.ensureDeliverables(actor);
      const last = this.orders.last(column.id);
      const now = this.stampFor(input.assignee_user_id ?? null, Date.now());
      const task: TaskRecord = {
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
        rank: last === undefined ? RANK_STEP : last + RANK_STEP,
        priority: input.priority ?? "none",
        commentCount: 0,
        labelIds,
        version: 1,
        createdBy: actor.userId,
        createdAt: now,
        updatedAt: now,
      };
      this.store.insert(task);
      unit.afterCommit(() => {
        this.orders.place(task.columnId, task.id, task.rank);
        this.labelSets.set(task.spaceId, task.id, task.labelIds);
      });
      // Last of its column.
      const view = { ...task, position: this.orders.size(column.id, task.id) };
      unit.emit(spaceEvent(actor, "task.created", presentTask(view)));
      if (task.assigneeUserId !== null) unit.emit(spaceEvent(actor, "task.assigned", presentTask(view)));
      return view;
    });
  }

  /**
   * Changes only the fields present. A move (`column_id` and/or `position`) gives the task a rank between
   * its new neighbours; `position` past the end means last. `version` +1 on every update.
   */
  patch(actor: SpaceActor, id: string, input: PatchTaskIn): TaskView {
    return this.uow.write((unit) => {
      const task = this.require(actor, id);
      if (input.version !== undefined && input.version !== task.version) {
        throw conflict("version conflict", { task: presentTask(this.view(task)) });
      }
      const next: TaskRecord = {
        ...task,
        version: task.version + 1,
        updatedAt: Math.max(Date.now(), task.updatedAt + 1),
      };
      if (input.title !== undefined) next.title = input.title;
      if (input.description !== undefined) next.description = input.description;
      if (input.deliverable_instructions !== undefined) next.deliverableInstructions = input.deliverable_instructions;
      if (input.deliverable_required !== undefined) {
        next.deliverableRequired = input.deliverable_required;
        if (input.deliverable_required) this.files.ensureDeliverables(actor);
      }
      if (input.assignee_user_id !== undefined) {
        this.checkAssignee(actor, input.assignee_user_id);
        next.assigneeUserId = input.assignee_user_id;
      }
      if (input.clear_due_at) next.dueAt = null;
      else if (input.due_at !== undefined) next.dueAt = input.due_at === null ? null : Date.parse(input.due_at);
      if (input.priority !== undefined) next.priority = input.priority;
      if (input.label_ids !== undefined) {
        const labelIds = this.labels.resolve(actor, input.label_ids);
        if (!sameIds(labelIds, task.labelIds)) next.labelIds = labelIds;
      }

      let placement: Placement | undefined;
      if (input.column_id !== undefined || input.position !== undefined) {
        const columnId = input.column_id ?? task.columnId;
        if (columnId !== task.columnId) {
          const column = this.spaces.column(actor, columnId);
          if (!column) throw invalid("invalid column");
          this.assertRoom(actor, column, task.id);
        }
        const current = this.orders.position(task.columnId, task.id);
        if (columnId !== task.columnId || (input.position !== undefined && input.position !== current)) {
          placement = this.place(task, columnId, input.position);
          next.columnId = columnId;
          next.rank = placement.rank;
        }
      }
      next.updatedAt = this.stampFor(next.assigneeUserId, next.updatedAt);
      this.save(unit, task, next);
      const view = placement ? { ...next, position: placement.position } : this.view(next);
      if (placement) unit.afterCommit(() => this.applyPlacement(next.id, placement));
      unit.emit(spaceEvent(actor, "task.updated", presentTask(view)));
      if (next.assigneeUserId !== null && next.assigneeUserId !== task.assigneeUserId) {
        unit.emit(spaceEvent(actor, "task.assigned", presentTask(view)));
      }
      return view;
    });
  }

  /** A committed move, in the column orders. */
  private applyPlacement(taskId: string, placement: Placement): void {
    this.orders.remove(placement.from, taskId);
    if (placement.respaced) this.orders.forget(placement.to);
    else this.orders.place(placement.to, taskId, placement.rank);
  }

  /**
   * `updated_at` for a write to a task assigned to `assignee`: "my tasks" lists most recently updated first,
   * so two writes in the same millisecond get distinct stamps, in the order they were made.
   */
  private stampFor(assignee: string | null, at: number): number {
    return assignee === null ? at : nextStamp(this.store.latestUpdateOfAssignee(assignee), at);
  }

  delete(actor: SpaceActor, id: string): void {
    this.uow.write((unit) => {
      const task = this.require(actor, id);
      this.store.delete(task.id);
      unit.afterCommit(() => {
        this.orders.remove(task.columnId, task.id);
        this.labelSets.set(task.spaceId, task.id, []);
      });
      unit.emit({ ...spaceEvent(actor, "task.deleted", { id: task.id }), label: task.title });
    });
  }

  /**
   * Unassigns every task of someone about to be deleted (a staff member), in the caller's unit: each is an
   * update like a PATCH (`version` + 1, a new `updated_at`), so an edit made from an older copy is a conflict.
   */
  unassignAll(orgId: string, userId: string): void {
    this.uow.write((unit) => {
      for (const row of this.store.assignedAnywhere(userId)) {
        const task = this.record(row);
        this.announce(unit, orgId, task, this.updated(task, { assigneeUserId: null }));
      }
    });
  }

  /** `task` with `change` that follows another write: an update like a PATCH (`version` + 1, a new `updated_at`). */
  private updated(task: TaskRecord, change: Partial<TaskRecord>): TaskRecord {
    const next = { ...task, ...change, version: task.version + 1 };
    next.updatedAt = this.stampFor(next.assigneeUserId, Math.max(Date.now(), task.updatedAt + 1));
    return next;
  }

  /** Saves an update that follows another write (a label deleted, staff deleted) and announces it. */
  private announce(unit: Unit, orgId: string, task: TaskRecord, next: TaskRecord, actor?: Principal): void {
    this.save(unit, task, next);
    const payload = presentTask(this.view(next));
    unit.emit({ type: "task.updated", organization_id: orgId, space_id: task.spaceId, payload, actor });
  }

  /** Writes what changed of the task; its labels reach the label sets once the write commits. */
  private save(unit: Unit, task: TaskRecord, next: TaskRecord): void {
    this.store.save(task, next);
    if (next.labelIds !== task.labelIds)
      unit.afterCommit(() => this.labelSets.set(next.spaceId, next.id, next.labelIds));
  }

  /** The row with its labels (set on the row itself: "my tasks" lists 200 at a time). */
  private record<T extends TaskRow>(row: T): T & { labelIds: readonly string[] } {
    const record = row as T & { labelIds: readonly string[] };
    record.labelIds = this.labelSets.labelsOf(row.spaceId, row.id);
    return record;
  }

  /**
   * Staff (service accounts) may not put a task into a column holding its WIP limit of tasks or more; people
   * may, and the UI warns them. `taskId` is the task moving (not counted), "" for a new one.
   */
  private assertRoom(actor: SpaceActor, column: ColumnLimit, taskId: string): void {
    if (actor.serviceAccountId === null || column.wipLimit === null) return;
    if (this.orders.size(column.id, taskId) >= column.wipLimit) throw conflict("column is at its limit");
  }

  /** Tasks assigned to the caller across the spaces they can see. */
  mine(actor: OrgActor): MyTaskView[] {
    const tasks = this.store.assignedTo(actor.orgId, actor.userId, actor.permissions.has("org.manage"));
    for (const task of tasks) {
      task.position = this.orders.position(task.columnId, task.id);
      this.record(task);
    }
    return tasks as MyTaskView[];
  }

  // Messages

  messages(actor: SpaceActor, taskId: string, query: PageQuery): TaskMessageRow[] {
    const task = this.require(actor, taskId);
    const { limit, before } = pageOf(query);
    return this.store.messages(task.id, before, limit);
  }

  /** Posts a message on the task; in the unit of the write it belongs to when there is one (a staff reply). */
  postMessage(actor: SpaceActor, taskId: string, content: string): TaskMessageRow {
    return this.uow.write((unit) => {
      const task = this.require(actor, taskId);
      const message: TaskMessageRow = {
        id: newId(),
        taskId: task.id,
        authorUserId: actor.userId,
        content,
        createdAt: nextStamp(this.store.latestMessageAt(task.id)),
      };
      this.store.insertMessage(message);
      this.store.addComment(task.id);
      unit.emit(spaceEvent(actor, "task.message.created", presentTaskMessage(message)));
      return message;
    });
  }

  // Deliverables

  deliverables(actor: SpaceActor, taskId: string): DeliverableView[] {
    return this.store.deliverables(this.require(actor, taskId).id);
  }

  link(actor: SpaceActor, taskId: string, fileNodeId: string): void {
    this.uow.write(() => {
      const task = this.require(actor, taskId);
      const file = this.files.deliverableFile(actor, fileNodeId);
      // Listed oldest link first: two links in the same millisecond still list in the order they were made.
      this.store.linkDeliverable(task.id, file.id, actor.userId, nextStamp(this.store.latestDeliverableAt(task.id)));
    });
  }

  /**
   * Uploads a file into the space's `Deliverables` root folder (created when missing) and links it to the task,
   * in one transaction: 409 when a file of that name is already there, or a root file is named `Deliverables`.
   */
  async uploadDeliverable(
    actor: SpaceActor,
    taskId: string,
    incoming: IncomingFile,
  ): Promise<{ node: NodeRow; deliverable: DeliverableView }> {
    this.require(actor, taskId);
    const received = await this.files.receive(incoming);
    try {
      return this.uow.write(() => {
        // The body took its time: the uploader may have lost access meanwhile, or the task may be gone.
        actor.recheck?.();
        const task = this.require(actor, taskId);
        const node = this.files.place(actor, received, this.files.deliverablesFolder(actor).id);
        this.link(actor, task.id, node.id);
        const deliverable = this.store.deliverables(task.id).find((d) => d.fileNodeId === node.id);
        if (!deliverable) throw new Error(`deliverable ${node.id} of task ${task.id} not stored`);
        return { node, deliverable };
      });
    } catch (error) {
      received.blob.discard();
      throw error;
    }
  }

  unlink(actor: SpaceActor, taskId: string, fileNodeId: string): void {
    this.uow.write(() => {
      const task = this.require(actor, taskId);
      if (!isUuid(fileNodeId) || !this.store.unlinkDeliverable(task.id, fileNodeId)) {
        throw notFound("deliverable not found");
      }
    });
  }

  // Helpers

  /** The task with its position in its column. */
  private view(task: TaskRecord): TaskView {
    return { ...task, position: this.orders.position(task.columnId, task.id) };
  }

  private require(actor: SpaceActor, id: string): TaskRecord {
    const task = isUuid(id) ? this.store.task(actor.space.id, id) : undefined;
    if (!task) throw taskNotFound();
    return this.record(task);
  }

  /**
   * An assignee is a member of the organization who can see the task: in a private space, one of its members
   * or an `org.manage` holder. Anyone else would own a task they can never open (nor could staff answer it).
   */
  private checkAssignee(actor: SpaceActor, userId: string | null | undefined): void {
    if (!userId) return;
    if (!this.people.isMember(actor.orgId, userId)) throw invalid("invalid assignee");
    if (!actor.space.isPrivate || this.spaces.hasMember(actor, userId)) return;
    if (!this.people.permissions(actor.orgId, userId)?.has("org.manage")) throw invalid("invalid assignee");
  }

  /** The rank that puts the task at `position` of the column (the end when omitted or past it). */
  private place(task: TaskRecord, columnId: string, position: number | undefined): Placement {
    const others = this.orders.size(columnId, task.id);
    const target = position === undefined ? others : Math.min(position, others);
    const { before, after } = this.orders.around(columnId, task.id, target);
    const placement = { from: task.columnId, to: columnId, position: target, respaced: false };
    if (before === undefined && after === undefined) return { ...placement, rank: RANK_STEP };
    if (before === undefined) return { ...placement, rank: (after as number) - RANK_STEP };
    if (after === undefined) return { ...placement, rank: before + RANK_STEP };
    if (after - before >= 2) return { ...placement, rank: Math.floor((before + after) / 2) };
    // No room between the two neighbours: spread the column out; the task takes the gap left at `target`.
    this.store.respace(columnId, RANK_STEP, task.id, target);
    return { ...placement, rank: (target + 1) * RANK_STEP, respaced: true };
  }
}
