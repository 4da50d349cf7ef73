/** Spaces, space members, boards and columns. */
import { and, asc, between, eq, sql } from "drizzle-orm";
import type { AccessMemo } from "../../core/access-memo";
import { type Db, prepared } from "../../db/client";
import { changedColumnsUpdater, insertRow } from "../../db/prepared";
import { boardColumns, boards, spaceGitLinks, spaceMembers, spaces, tasks, users } from "../../db/schema";

export type SpaceRow = typeof spaces.$inferSelect;
export type BoardRow = typeof boards.$inferSelect;
export type ColumnRow = typeof boardColumns.$inferSelect;
export type SpaceMemberRow = typeof spaceMembers.$inferSelect;
export type GitLinkRow = typeof spaceGitLinks.$inferSelect;

/** A space with the caller's role in it (null when not a member). */
export type SpaceWithRole = SpaceRow & { memberRole: string | null };

/** Data access for spaces. */
export class SpacesStore {
  constructor(
    private readonly db: Db,
    /** Shared with the people store: every space-member write below drops what it may change. */
    private readonly access: AccessMemo,
  ) {}

  /** The caller's role as a scalar subquery: a LEFT JOIN costs SQLite several times more, on every request. */
  private readonly withRole = prepared(() =>
    this.db
      .select({
        space: spaces,
        memberRole: sql<string | null>`(SELECT sm.role FROM space_members sm
          WHERE sm.space_id = spaces.id AND sm.user_id = ${sql.placeholder("userId")})`,
      })
      .from(spaces)
      .where(and(eq(spaces.id, sql.placeholder("spaceId")), eq(spaces.orgId, sql.placeholder("orgId"))))
      .prepare(),
  );

  /** The space of the org with the user's role in it. */
  spaceWithRole(orgId: string, spaceId: string, userId: string): SpaceWithRole | undefined {
    return (
      this.access.get(`space:${orgId}:${spaceId}:${userId}`, userId, () => {
        const row = this.withRole().all({ orgId, spaceId, userId })[0];
        return row && { ...row.space, memberRole: row.memberRole };
      }) ?? undefined
    );
  }

  private readonly visible = prepared(() =>
    this.db
      .select()
      .from(spaces)
      .where(
        and(
          eq(spaces.orgId, sql.placeholder("orgId")),
          sql`(${sql.placeholder("seesAll")} = 1 OR ${spaces.isPrivate} = 0 OR EXISTS (SELECT 1 FROM ${spaceMembers}
            WHERE ${spaceMembers.spaceId} = ${spaces.id} AND ${spaceMembers.userId} = ${sql.placeholder("userId")}))`,
        ),
      )
      .orderBy(asc(spaces.createdAt), asc(spaces.id))
      .prepare(),
  );

  /** Spaces of the org the user can see: every public one, and private ones they belong to (or all). */
  visibleSpaces(orgId: string, userId: string, seesAll: boolean): SpaceRow[] {
    return this.visible().all({ orgId, userId, seesAll: seesAll ? 1 : 0 });
  }

  private readonly insertSpaceRow = prepared(() => insertRow(this.db, spaces));

  insertSpace(row: SpaceRow): void {
    this.insertSpaceRow().run(row);
  }

  // Members

  private readonly membersOf = prepared(() =>
    this.db
      .select()
      .from(spaceMembers)
      .where(eq(spaceMembers.spaceId, sql.placeholder("spaceId")))
      .orderBy(asc(spaceMembers.addedAt), asc(spaceMembers.userId))
      .prepare(),
  );

  members(spaceId: string): SpaceMemberRow[] {
    return this.membersOf().all({ spaceId });
  }

  private readonly membershipsOf = prepared(() =>
    this.db
      .select({ spaceId: spaceMembers.spaceId, role: spaceMembers.role })
      .from(spaceMembers)
      .where(eq(spaceMembers.userId, sql.placeholder("userId")))
      .prepare(),
  );

  /** The spaces a user is a member of, with their role in each. */
  memberships(userId: string): { spaceId: string; role: string }[] {
    return this.membershipsOf().all({ userId });
  }

  member(spaceId: string, userId: string): SpaceMemberRow | undefined {
    return this.db
      .select()
      .from(spaceMembers)
      .where(and(eq(spaceMembers.spaceId, spaceId), eq(spaceMembers.userId, userId)))
      .all()[0];
  }

  insertMember(row: SpaceMemberRow): void {
    this.access.forgetUser(row.userId);
    this.db.insert(spaceMembers).values(row).run();
  }

  deleteMember(spaceId: string, userId: string): void {
    this.access.forgetUser(userId);
    this.db
      .delete(spaceMembers)
      .where(and(eq(spaceMembers.spaceId, spaceId), eq(spaceMembers.userId, userId)))
      .run();
  }
  /** Ends the user's memberships of every space of the organization (they left it). */
  removeFromOrgSpaces(orgId: string, userId: string): void {
    this.access.forgetUser(userId);
    this.db
      .delete(spaceMembers)
      .where(
        and(
          eq(spaceMembers.userId, userId),
          sql`${spaceMembers.spaceId} IN (SELECT ${spaces.id} FROM ${spaces} WHERE ${spaces.orgId} = ${orgId})`,
        ),
      )
      .run();
  }

  countOwners(spaceId: string): number {
    return (
      this.db
        .select({ n: sql<number>`count(*)` })
        .from(spaceMembers)
        .where(and(eq(spaceMembers.spaceId, spaceId), eq(spaceMembers.role, "owner")))
        .all()[0]?.n ?? 0
    );
  }

  userExists(userId: string): boolean {
    return this.db.select({ id: users.id }).from(users).where(eq(users.id, userId)).all().length > 0;
  }

  // Board

  private readonly boardOf = prepared(() =>
    this.db
      .select()
      .from(boards)
      .where(eq(boards.spaceId, sql.placeholder("spaceId")))
      .orderBy(asc(boards.createdAt))
      .limit(1)
      .prepare(),
  );

  board(spaceId: string): BoardRow | undefined {
    return this.boardOf().all({ spaceId })[0];
  }

  private readonly columnsOf = prepared(() =>
    this.db
      .select()
      .from(boardColumns)
      .where(eq(boardColumns.boardId, sql.placeholder("boardId")))
      .orderBy(asc(boardColumns.position))
      .prepare(),
  );

  columns(boardId: string): ColumnRow[] {
    return this.columnsOf().all({ boardId });
  }

  private readonly columnInSpace = prepared(() =>
    this.db
      .select({ column: boardColumns })
      .from(boardColumns)
      .innerJoin(boards, eq(boards.id, boardColumns.boardId))
      .where(and(eq(boardColumns.id, sql.placeholder("columnId")), eq(boards.spaceId, sql.placeholder("spaceId"))))
      .prepare(),
  );

  /** The column when it belongs to a board of the space. */
  column(spaceId: string, columnId: string): ColumnRow | undefined {
    return this.columnInSpace().all({ spaceId, columnId })[0]?.column;
  }

  private readonly insertColumnRow = prepared(() => insertRow(this.db, boardColumns));
  private readonly saveColumnRow = changedColumnsUpdater<ColumnRow>(() => this.db, boardColumns, boardColumns.id);

  insertColumn(row: ColumnRow): void {
    this.insertColumnRow().run(row);
  }

  /** Writes the fields of `after` that differ from `before`. */
  saveColumn(before: ColumnRow, after: ColumnRow): void {
    this.saveColumnRow(before, after);
  }

  deleteColumn(id: string): void {
    this.db.delete(boardColumns).where(eq(boardColumns.id, id)).run();
  }

  /** Moves the board's columns at positions `from` to `to` (inclusive) by `by` places. */
  shiftColumns(boardId: string, from: number, to: number, by: number): void {
    this.db
      .update(boardColumns)
      .set({ position: sql`${boardColumns.position} + ${by}` })
      .where(and(eq(boardColumns.boardId, boardId), between(boardColumns.position, from, to)))
      .run();
  }

  /** Whether a task is in the column (a read of the tasks' table: a column is deleted only when empty). */
  columnHasTasks(columnId: string): boolean {
    return this.db.select({ id: tasks.id }).from(tasks).where(eq(tasks.columnId, columnId)).limit(1).all().length > 0;
  }

  insertBoard(board: BoardRow, columns: readonly ColumnRow[]): void {
    this.db.insert(boards).values(board).run();
    this.db
      .insert(boardColumns)
      .values([...columns])
      .run();
  }

  // Git link

  gitLink(spaceId: string): GitLinkRow | undefined {
    return this.db.select().from(spaceGitLinks).where(eq(spaceGitLinks.spaceId, spaceId)).all()[0];
  }

  putGitLink(row: GitLinkRow): void {
    this.db
      .insert(spaceGitLinks)
      .values(row)
      .onConflictDoUpdate({
        target: spaceGitLinks.spaceId,
        set: { repoUrl: row.repoUrl, ref: row.ref, updatedBy: row.updatedBy, updatedAt: row.updatedAt },
      })
      .run();
  }

  deleteGitLink(spaceId: string): void {
    this.db.delete(spaceGitLinks).where(eq(spaceGitLinks.spaceId, spaceId)).run();
  }
}
