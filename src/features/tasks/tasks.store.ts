/** Tasks, task messages and deliverable links. Every statement is prepared once. */
import { and, asc, desc, eq, getTableColumns, inArray, isNull, lt, ne, sql } from "drizzle-orm";
import { type Db, prepared, runUnanswered } from "../../db/client";
import { changedColumnsUpdater, insertRow } from "../../db/prepared";
import {
  fileNodes,
  labels,
  spaceMembers,
  spaces,
  taskDeliverables,
  taskLabels,
  taskMessages,
  tasks,
} from "../../db/schema";

export type TaskRow = typeof tasks.$inferSelect;
export type TaskMessageRow = typeof taskMessages.$inferSelect;

/** A task with the ids of its labels, in id order (the order the labels were made). */
export type TaskRecord = TaskRow & { labelIds: readonly string[] };

/** A task with its dense 0-based position in its column. */
export type TaskView = TaskRecord & { position: number };

/** A task of "my tasks", with its space's name and organization. */
export type MyTaskView = TaskView & { spaceName: string; orgId: string };

/** A row of "my tasks" as read, before its position and labels are set. */
export type MyTaskRow = TaskRow & { position: number; spaceName: string; orgId: string };

/** A deliverable link with the file it points at. */
export interface DeliverableView {
  taskId: string;
  fileNodeId: string;
  addedBy: string | null;
  createdAt: number;
  fileName: string;
  mimeType: string | null;
  sizeBytes: number | null;
}

const p = sql.placeholder;

/** One message more on a task (`comment_count`). */
export const COUNT_COMMENT_SQL = "UPDATE tasks SET comment_count = comment_count + 1 WHERE id = $id";

/** Data access for tasks. */
export class TasksStore {
  constructor(private readonly db: Db) {}

  private readonly inColumn = prepared(() =>
    this.db
      .select()
      .from(tasks)
      .where(eq(tasks.columnId, p("columnId")))
      .orderBy(asc(tasks.rank), asc(tasks.id))
      .prepare(),
  );

  /** The tasks of a column in order. */
  column(columnId: string): TaskRow[] {
    return this.inColumn().all({ columnId });
  }

  private readonly byId = prepared(() =>
    this.db
      .select()
      .from(tasks)
      .where(and(eq(tasks.id, p("id")), eq(tasks.spaceId, p("spaceId"))))
      .prepare(),
  );

  task(spaceId: string, id: string): TaskRow | undefined {
    return this.byId().all({ spaceId, id })[0];
  }

  private readonly window = prepared(() =>
    this.db
      .select({ id: tasks.id, rank: tasks.rank })
      .from(tasks)
      .where(and(eq(tasks.columnId, p("columnId")), ne(tasks.id, p("exceptId"))))
      .orderBy(asc(tasks.rank), asc(tasks.id))
      .limit(p("limit"))
      .offset(p("offset"))
      .prepare(),
  );

  /** Ids and ranks of the column in order from `offset` (`limit` -1: all), leaving out `exceptId`. */
  ranksAt(columnId: string, exceptId: string, offset: number, limit: number): { id: string; rank: number }[] {
    return this.window().all({ columnId, exceptId, offset, limit });
  }

  private readonly setRank = prepared(() =>
    this.db
      .update(tasks)
      .set({ rank: p("rank") as unknown as number })
      .where(eq(tasks.id, p("id")))
      .prepare(),
  );

  /**
   * Spreads a column's ranks out again, keeping its order and leaving the rank of index `gapAt` free for the
   * task being moved there (rare: only after many moves into the same gap).
   */
  respace(columnId: string, step: number, exceptId: string, gapAt: number): void {
    const rows = this.ranksAt(columnId, exceptId, 0, -1);
    rows.forEach((row, i) => {
      this.setRank().run({ id: row.id, rank: (i < gapAt ? i + 1 : i + 2) * step });
    });
  }

  private readonly insertTaskRow = prepared(() => insertRow(this.db, tasks));
  private readonly saveTaskRow = changedColumnsUpdater<TaskRow>(() => this.db, tasks, tasks.id);
  private readonly deleteTaskRow = prepared(() =>
    this.db
      .delete(tasks)
      .where(eq(tasks.id, p("id")))
      .prepare(),
  );

  /** Inserts the task with its labels. */
  insert(row: TaskRecord): void {
    this.insertTaskRow().run(row);
    this.linkLabels(row.id, row.labelIds);
  }

  /** Writes the fields of `after` that differ from `before`, its labels when they are another array. */
  save(before: TaskRecord, after: TaskRecord): void {
    this.saveTaskRow(before, after);
    if (after.labelIds !== before.labelIds) {
      this.unlinkLabels().run({ taskId: after.id });
      this.linkLabels(after.id, after.labelIds);
    }
  }

  private readonly linkLabel = prepared(() => insertRow(this.db, taskLabels));
  private readonly unlinkLabels = prepared(() =>
    this.db
      .delete(taskLabels)
      .where(eq(taskLabels.taskId, p("taskId")))
      .prepare(),
  );

  private linkLabels(taskId: string, labelIds: readonly string[]): void {
    for (const labelId of labelIds) this.linkLabel().run({ taskId, labelId });
  }

  /** The tasks carrying a label. */
  withLabel(labelId: string): TaskRow[] {
    return this.db
      .select()
      .from(tasks)
      .where(
        inArray(
          tasks.id,
          this.db.select({ id: taskLabels.taskId }).from(taskLabels).where(eq(taskLabels.labelId, labelId)),
        ),
      )
      .all();
  }

  private readonly linksOfSpace = prepared(() =>
    this.db
      .select({ taskId: taskLabels.taskId, labelId: taskLabels.labelId })
      .from(labels)
      .innerJoin(taskLabels, eq(taskLabels.labelId, labels.id))
      .where(eq(labels.spaceId, p("spaceId")))
      .prepare(),
  );

  /** Which task carries which label, in the space (what `TaskLabelSets` loads). */
  labelLinks(spaceId: string): { taskId: string; labelId: string }[] {
    return this.linksOfSpace().all({ spaceId });
  }

  private readonly countComment = prepared(() => this.db.$client.prepare(COUNT_COMMENT_SQL));

  /** One message more on the task (`comment_count`, kept as messages are written). */
  addComment(taskId: string): void {
    runUnanswered(this.countComment(), { id: taskId });
  }

  delete(id: string): void {
    this.deleteTaskRow().run({ id });
  }

  /** Every task assigned to the user, in any space. */
  assignedAnywhere(userId: string): TaskRow[] {
    return this.db.select().from(tasks).where(eq(tasks.assigneeUserId, userId)).all();
  }

  private readonly mine = prepared(() =>
    this.db
      // Flat (no nested `task` object): this answers up to 200 rows on every refresh of "my tasks".
      .select({ ...getTableColumns(tasks), spaceName: spaces.name, orgId: spaces.orgId, position: sql<number>`0` })
      .from(tasks)
      .innerJoin(spaces, eq(spaces.id, tasks.spaceId))
      .where(
        and(
          eq(tasks.assigneeUserId, p("userId")),
          eq(spaces.orgId, p("orgId")),
          sql`(${spaces.isPrivate} = 0 OR ${p("seesAll")} = 1 OR EXISTS (
            SELECT 1 FROM ${spaceMembers} WHERE ${spaceMembers.spaceId} = ${spaces.id}
            AND ${spaceMembers.userId} = ${p("userId")}))`,
        ),
      )
      .orderBy(desc(tasks.updatedAt), desc(tasks.id))
      .limit(200)
      .prepare(),
  );

  /**
   * Tasks assigned to the user in spaces they can see, most recently updated first, at most 200. `position`
   * and `labelIds` are left for the caller to set from the column orders and the label sets.
   */
  assignedTo(orgId: string, userId: string, seesAll: boolean): MyTaskRow[] {
    return this.mine().all({ orgId, userId, seesAll: seesAll ? 1 : 0 });
  }

  // Messages

  private readonly messagePage = prepared(() =>
    this.db
      .select()
      .from(taskMessages)
      .where(and(eq(taskMessages.taskId, p("taskId")), lt(taskMessages.createdAt, p("before"))))
      .orderBy(desc(taskMessages.createdAt), desc(taskMessages.id))
      .limit(p("limit"))
      .prepare(),
  );

  /** The newest `limit` messages created before `before`, oldest first. */
  messages(taskId: string, before: number, limit: number): TaskMessageRow[] {
    return this.messagePage().all({ taskId, before, limit }).reverse();
  }

  private readonly lastUpdateOfAssignee = prepared(() =>
    this.db
      .select({ updatedAt: tasks.updatedAt })
      .from(tasks)
      .where(eq(tasks.assigneeUserId, p("userId")))
      .orderBy(desc(tasks.updatedAt))
      .limit(1)
      .prepare(),
  );

  /** The latest `updated_at` among the user's assigned tasks, everywhere: "my tasks" is ordered by it. */
  latestUpdateOfAssignee(userId: string): number | undefined {
    return this.lastUpdateOfAssignee().all({ userId })[0]?.updatedAt;
  }

  private readonly lastMessage = prepared(() =>
    this.db
      .select({ createdAt: taskMessages.createdAt })
      .from(taskMessages)
      .where(eq(taskMessages.taskId, p("taskId")))
      .orderBy(desc(taskMessages.createdAt))
      .limit(1)
      .prepare(),
  );

  latestMessageAt(taskId: string): number | undefined {
    return this.lastMessage().all({ taskId })[0]?.createdAt;
  }

  // The task was read in the same transaction, and the id is new.
  private readonly insertMessageRow = prepared(() => insertRow(this.db, taskMessages, { unanswered: true }));

  insertMessage(row: TaskMessageRow): void {
    this.insertMessageRow().run(row);
  }

  // Deliverables

  private readonly deliverablesOf = prepared(() =>
    this.db
      .select({
        taskId: taskDeliverables.taskId,
        fileNodeId: taskDeliverables.fileNodeId,
        addedBy: taskDeliverables.addedBy,
        createdAt: taskDeliverables.createdAt,
        fileName: fileNodes.name,
        mimeType: fileNodes.mimeType,
        sizeBytes: fileNodes.sizeBytes,
      })
      .from(taskDeliverables)
      .innerJoin(fileNodes, eq(fileNodes.id, taskDeliverables.fileNodeId))
      .where(and(eq(taskDeliverables.taskId, p("taskId")), isNull(fileNodes.deletedAt)))
      .orderBy(asc(taskDeliverables.createdAt), asc(taskDeliverables.fileNodeId))
      .prepare(),
  );

  deliverables(taskId: string): DeliverableView[] {
    return this.deliverablesOf().all({ taskId });
  }

  private readonly link = prepared(() =>
    this.db
      .insert(taskDeliverables)
      .values({
        taskId: p("taskId") as unknown as string,
        fileNodeId: p("fileNodeId") as unknown as string,
        addedBy: p("addedBy") as unknown as string,
        createdAt: p("createdAt") as unknown as number,
      })
      .onConflictDoNothing()
      .prepare(),
  );

  private readonly lastLink = prepared(() =>
    this.db
      .select({ createdAt: sql<number | null>`max(${taskDeliverables.createdAt})` })
      .from(taskDeliverables)
      .where(eq(taskDeliverables.taskId, p("taskId")))
      .prepare(),
  );

  latestDeliverableAt(taskId: string): number | undefined {
    return this.lastLink().all({ taskId })[0]?.createdAt ?? undefined;
  }

  linkDeliverable(taskId: string, fileNodeId: string, addedBy: string, now: number): void {
    this.link().run({ taskId, fileNodeId, addedBy, createdAt: now });
  }

  private readonly unlink = prepared(() =>
    this.db
      .delete(taskDeliverables)
      .where(and(eq(taskDeliverables.taskId, p("taskId")), eq(taskDeliverables.fileNodeId, p("fileNodeId"))))
      .returning({ id: taskDeliverables.fileNodeId })
      .prepare(),
  );

  unlinkDeliverable(taskId: string, fileNodeId: string): boolean {
    return this.unlink().all({ taskId, fileNodeId }).length > 0;
  }
}
