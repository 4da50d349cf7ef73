/** Tasks, task messages and deliverable links. */
import { and, asc, desc, eq, isNull, lt, ne, sql } from "drizzle-orm";
import { type Db, prepared } from "../../db/client";
import { fileNodes, spaceMembers, spaces, taskDeliverables, taskMessages, tasks } from "../../db/schema";

export type TaskRow = typeof tasks.$inferSelect;
export type TaskMessageRow = typeof taskMessages.$inferSelect;

/** A task with its dense 0-based position in its column. */
export type TaskView = TaskRow & { position: number };

/** A task of "my tasks", with its space's name and organization. */
export type MyTaskView = TaskView & { spaceName: string; orgId: string };

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

/**
 * The dense position of a task: how many tasks of its column come before it in (rank, id) order. Written
 * out in full because drizzle renders the outer columns unqualified, which would bind them to `t2`.
 */
const positionOf = sql<number>`(SELECT count(*) FROM tasks AS t2 WHERE t2.column_id = tasks.column_id
  AND (t2.rank < tasks.rank OR (t2.rank = tasks.rank AND t2.id < tasks.id)))`;

/** Data access for tasks. */
export class TasksStore {
  constructor(private readonly db: Db) {}

  private readonly inColumn = prepared(() =>
    this.db
      .select()
      .from(tasks)
      .where(eq(tasks.columnId, sql.placeholder("columnId")))
      .orderBy(asc(tasks.rank), asc(tasks.id))
      .prepare(),
  );

  /** The tasks of a column in order. */
  column(columnId: string): TaskRow[] {
    return this.inColumn().all({ columnId });
  }

  private readonly byId = prepared(() =>
    this.db
      .select({ task: tasks, position: positionOf })
      .from(tasks)
      .where(and(eq(tasks.id, sql.placeholder("id")), eq(tasks.spaceId, sql.placeholder("spaceId"))))
      .prepare(),
  );

  task(spaceId: string, id: string): TaskView | undefined {
    const row = this.byId().all({ spaceId, id })[0];
    return row && { ...row.task, position: row.position };
  }

  private readonly maxRank = prepared(() =>
    this.db
      .select({ rank: sql<number | null>`max(${tasks.rank})` })
      .from(tasks)
      .where(eq(tasks.columnId, sql.placeholder("columnId")))
      .prepare(),
  );

  /** The highest rank of a column, or null when it is empty. */
  lastRank(columnId: string): number | null {
    return this.maxRank().all({ columnId })[0]?.rank ?? null;
  }

  private readonly window = prepared(() =>
    this.db
      .select({ id: tasks.id, rank: tasks.rank })
      .from(tasks)
      .where(and(eq(tasks.columnId, sql.placeholder("columnId")), ne(tasks.id, sql.placeholder("exceptId"))))
      .orderBy(asc(tasks.rank), asc(tasks.id))
      .limit(sql.placeholder("limit"))
      .offset(sql.placeholder("offset"))
      .prepare(),
  );

  /** Ranks of the tasks at `offset` (and the one after), leaving out `exceptId`. */
  ranksAt(columnId: string, exceptId: string, offset: number, limit: number): { id: string; rank: number }[] {
    return this.window().all({ columnId, exceptId, offset, limit });
  }

  countInColumn(columnId: string): number {
    return (
      this.db.select({ n: sql<number>`count(*)` }).from(tasks).where(eq(tasks.columnId, columnId)).all()[0]?.n ?? 0
    );
  }

  /** Spreads a column's ranks out again, keeping its order. */
  respace(columnId: string, step: number, exceptId: string): void {
    const ids = this.db
      .select({ id: tasks.id })
      .from(tasks)
      .where(and(eq(tasks.columnId, columnId), ne(tasks.id, exceptId)))
      .orderBy(asc(tasks.rank), asc(tasks.id))
      .all();
    ids.forEach((row, i) => {
      this.db
        .update(tasks)
        .set({ rank: (i + 1) * step })
        .where(eq(tasks.id, row.id))
        .run();
    });
  }

  insert(row: TaskRow): void {
    this.db.insert(tasks).values(row).run();
  }

  update(id: string, patch: Partial<TaskRow>): void {
    this.db.update(tasks).set(patch).where(eq(tasks.id, id)).run();
  }

  delete(id: string): void {
    this.db.delete(tasks).where(eq(tasks.id, id)).run();
  }

  private readonly mine = prepared(() =>
    this.db
      .select({ task: tasks, position: positionOf, spaceName: spaces.name, orgId: spaces.orgId })
      .from(tasks)
      .innerJoin(spaces, eq(spaces.id, tasks.spaceId))
      .where(
        and(
          eq(tasks.assigneeUserId, sql.placeholder("userId")),
          eq(spaces.orgId, sql.placeholder("orgId")),
          sql`(${spaces.isPrivate} = 0 OR ${sql.placeholder("seesAll")} = 1 OR EXISTS (
            SELECT 1 FROM ${spaceMembers} WHERE ${spaceMembers.spaceId} = ${spaces.id}
            AND ${spaceMembers.userId} = ${sql.placeholder("userId")}))`,
        ),
      )
      .orderBy(desc(tasks.updatedAt), desc(tasks.id))
      .limit(200)
      .prepare(),
  );

  /** Tasks assigned to the user in spaces they can see, most recently updated first, at most 200. */
  assignedTo(orgId: string, userId: string, seesAll: boolean): MyTaskView[] {
    return this.mine()
      .all({ orgId, userId, seesAll: seesAll ? 1 : 0 })
      .map((r) => ({ ...r.task, position: r.position, spaceName: r.spaceName, orgId: r.orgId }));
  }

  // Messages

  private readonly messagePage = prepared(() =>
    this.db
      .select()
      .from(taskMessages)
      .where(
        and(eq(taskMessages.taskId, sql.placeholder("taskId")), lt(taskMessages.createdAt, sql.placeholder("before"))),
      )
      .orderBy(desc(taskMessages.createdAt), desc(taskMessages.id))
      .limit(sql.placeholder("limit"))
      .prepare(),
  );

  /** The newest `limit` messages created before `before`, oldest first. */
  messages(taskId: string, before: number, limit: number): TaskMessageRow[] {
    return this.messagePage().all({ taskId, before, limit }).reverse();
  }

  latestMessageAt(taskId: string): number | undefined {
    return this.db
      .select({ createdAt: taskMessages.createdAt })
      .from(taskMessages)
      .where(eq(taskMessages.taskId, taskId))
      .orderBy(desc(taskMessages.createdAt))
      .limit(1)
      .all()[0]?.createdAt;
  }

  insertMessage(row: TaskMessageRow): void {
    this.db.insert(taskMessages).values(row).run();
  }

  // Deliverables

  deliverables(taskId: string): DeliverableView[] {
    return this.db
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
      .where(and(eq(taskDeliverables.taskId, taskId), isNull(fileNodes.deletedAt)))
      .orderBy(asc(taskDeliverables.createdAt), asc(taskDeliverables.fileNodeId))
      .all();
  }

  linkDeliverable(taskId: string, fileNodeId: string, addedBy: string, now: number): void {
    this.db
      .insert(taskDeliverables)
      .values({ taskId, fileNodeId, addedBy, createdAt: now })
      .onConflictDoNothing()
      .run();
  }

  unlinkDeliverable(taskId: string, fileNodeId: string): boolean {
    return (
      this.db
        .delete(taskDeliverables)
        .where(and(eq(taskDeliverables.taskId, taskId), eq(taskDeliverables.fileNodeId, fileNodeId)))
        .returning({ id: taskDeliverables.fileNodeId })
        .all().length > 0
    );
  }
}
