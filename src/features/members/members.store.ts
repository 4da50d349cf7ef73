/** Queries of users, organization memberships and roles; every statement on a request path is prepared once. */
import { and, asc, count, eq, gte, inArray, isNull, notInArray, sql } from "drizzle-orm";
import type { AccessMemo } from "../../core/access-memo";
import { type Db, prepared } from "../../db/client";
import { memberRoles, orgMembers, roles, serviceAccounts, users } from "../../db/schema";
import { nameKey } from "../../lib/text";

/** Row types, as drizzle reads them. */
export type UserRow = typeof users.$inferSelect;
export type RoleRow = typeof roles.$inferSelect;

/** A member as listed: the user, whether it is staff, and its role ids. */
export interface MemberRow {
  userId: string;
  email: string;
  displayName: string;
  serviceAccountId: string | null;
  joinedAt: number;
  roleIds: string[];
}

const USER_MEMO_MS = 30_000;
const USER_MEMO_SIZE = 10_000;

/** Parses a JSON array column written by this module. */
function jsonArray(text: string | null): string[] {
  return text ? (JSON.parse(text) as string[]) : [];
}

/** An account as `tandem users list` shows it. */
export interface ListedUser {
  id: string;
  email: string;
  displayName: string;
  /** A member of the organization (not removed, not waiting for approval or denied). */
  member: boolean;
  roleNames: string[];
}

/**
 * Users, memberships and roles. Staff accounts are read beside them (a member's `service_account_id`), never
 * written here.
 */
export class MembersStore {
  constructor(
    private readonly db: Db,
    /** Shared with the spaces store: every membership and role write below drops what it may change. */
    private readonly access: AccessMemo,
  ) {}

  /** Goes up with every change of anyone's membership, roles, space memberships or account. */
  get accessGeneration(): number {
    return this.access.generation;
  }

  /**
   * One row when the user is a member, holding their roles' permission arrays joined with commas. A scalar
   * subquery rather than LEFT JOINs: SQLite runs it in a fifth of the time, and this runs on every request.
   * (Written out in full: drizzle would render the outer columns unqualified inside the subquery.)
   */
  private readonly permissionRows = prepared(() =>
    this.db
      .select({
        permissions: sql<string | null>`(SELECT group_concat(r.permissions, ',') FROM member_roles mr
          JOIN roles r ON r.id = mr.role_id WHERE mr.org_id = org_members.org_id AND mr.user_id = org_members.user_id)`,
      })
      .from(orgMembers)
      .where(and(eq(orgMembers.orgId, sql.placeholder("orgId")), eq(orgMembers.userId, sql.placeholder("userId"))))
      .prepare(),
  );
  private readonly userById = prepared(() =>
    this.db
      .select()
      .from(users)
      .where(eq(users.id, sql.placeholder("id")))
      .prepare(),
  );
  private readonly userByEmail = prepared(() =>
    this.db
      .select()
      .from(users)
      .where(eq(users.email, sql.placeholder("email")))
      .prepare(),
  );
  private readonly meRow = prepared(() =>
    this.db
      .select({
        user: users,
        serviceAccountId: sql<string | null>`(SELECT sa.id FROM service_accounts sa WHERE sa.user_id = users.id)`,
      })
      .from(users)
      .where(eq(users.id, sql.placeholder("id")))
      .prepare(),
  );

  /**
   * Users as `/me` shows them, remembered briefly: every page of the web UI asks, and nothing it shows changes
   * outside this process (the CLI only adds users and sets passwords). Every write here forgets the user.
   */
  private readonly recentUsers = new Map<
    string,
    { row: { user: UserRow; serviceAccountId: string | null }; at: number }
  >();

  /** Drops what is remembered: another node wrote (PostgreSQL mode), and it is read again when next needed. */
  forgetRemembered(): void {
    this.recentUsers.clear();
  }

  private readonly updateUserStatement = prepared(() =>
    this.db
      .update(users)
      .set({
        displayName: sql.placeholder("displayName") as unknown as string,
        passwordHash: sql.placeholder("passwordHash") as unknown as string,
        updatedAt: sql.placeholder("updatedAt") as unknown as number,
      })
      .where(eq(users.id, sql.placeholder("id")))
      .prepare(),
  );

  // Users

  user(id: string): UserRow | undefined {
    return this.userById().all({ id })[0];
  }

  userWithStaff(id: string): { user: UserRow; serviceAccountId: string | null } | undefined {
    const now = Date.now();
    const hit = this.recentUsers.get(id);
    if (hit && now - hit.at < USER_MEMO_MS) return hit.row;
    const row = this.meRow().all({ id })[0];
    if (!row) return undefined;
    if (this.recentUsers.size >= USER_MEMO_SIZE)
      this.recentUsers.delete(this.recentUsers.keys().next().value as string);
    this.recentUsers.set(id, { row, at: now });
    return row;
  }

  /** Drops a user from the `/me` memo (after any change to the user or its staff account). */
  forgetUser(id: string): void {
    this.recentUsers.delete(id);
    this.access.forgetUser(id);
  }

  userByEmailAddress(email: string): UserRow | undefined {
    return this.userByEmail().all({ email })[0];
  }

  insertUser(row: UserRow): void {
    this.db.insert(users).values(row).run();
  }

  /** Deletes a user (a staff member's): what it authored loses its author, what it owned goes with it. */
  deleteUser(id: string): void {
    this.db.delete(users).where(eq(users.id, id)).run();
  }

  updateUser(id: string, patch: Partial<Pick<UserRow, "displayName" | "passwordHash">>, now: number): void {
    const current = this.user(id);
    if (!current) return;
    this.updateUserStatement().run({
      id,
      displayName: patch.displayName ?? current.displayName,
      passwordHash: patch.passwordHash ?? current.passwordHash,
      updatedAt: now,
    });
    this.forgetUser(id);
  }

  /** Every user with the names of their roles in the org, for `tandem users list`. */
  usersWithRoleNames(orgId: string): ListedUser[] {
    const rows = this.db
      .select({
        id: users.id,
        email: users.email,
        displayName: users.displayName,
        member: orgMembers.userId,
        roleName: roles.name,
      })
      .from(users)
      .leftJoin(orgMembers, and(eq(orgMembers.userId, users.id), eq(orgMembers.orgId, orgId)))
      .leftJoin(memberRoles, and(eq(memberRoles.orgId, orgMembers.orgId), eq(memberRoles.userId, users.id)))
      .leftJoin(roles, eq(roles.id, memberRoles.roleId))
      .leftJoin(serviceAccounts, eq(serviceAccounts.userId, users.id))
      .where(isNull(serviceAccounts.id))
      .orderBy(asc(users.createdAt), asc(roles.name))
      .all();
    const byId = new Map<string, ListedUser>();
    for (const row of rows) {
      let user = byId.get(row.id);
      if (!user) {
        user = {
          id: row.id,
          email: row.email,
          displayName: row.displayName,
          member: row.member !== null,
          roleNames: [],
        };
        byId.set(row.id, user);
      }
      if (row.roleName) user.roleNames.push(row.roleName);
    }
    return [...byId.values()];
  }

  // Membership and permissions

  /** null when the user is not a member; else the union of their roles' permissions. */
  memberPermissions(orgId: string, userId: string): ReadonlySet<string> | null {
    return (
      this.access.get(`perm:${orgId}:${userId}`, userId, () => {
        const row = this.permissionRows().all({ orgId, userId })[0];
        if (!row) return null;
        // `["a","b"],["c"]` (or null without roles): one JSON array of the roles' arrays.
        return new Set(row.permissions ? (JSON.parse(`[${row.permissions}]`) as string[][]).flat() : []);
      }) ?? null
    );
  }

  private readonly membership = prepared(() =>
    this.db
      .select({ userId: orgMembers.userId })
      .from(orgMembers)
      .where(and(eq(orgMembers.orgId, sql.placeholder("orgId")), eq(orgMembers.userId, sql.placeholder("userId"))))
      .prepare(),
  );

  isMember(orgId: string, userId: string): boolean {
    return this.membership().all({ orgId, userId }).length > 0;
  }

  addMember(orgId: string, userId: string, roleIds: readonly string[], now: number): void {
    this.access.forgetUser(userId);
    this.db.insert(orgMembers).values({ orgId, userId, joinedAt: now }).run();
    this.setMemberRoles(orgId, userId, roleIds);
  }

  /** Ends a membership (the spaces feature drops the user's space memberships in the same unit). */
  removeMember(orgId: string, userId: string): void {
    this.access.forgetUser(userId);
    this.db
      .delete(orgMembers)
      .where(and(eq(orgMembers.orgId, orgId), eq(orgMembers.userId, userId)))
      .run();
  }

  memberRoleIds(orgId: string, userId: string): string[] {
    return this.db
      .select({ roleId: memberRoles.roleId })
      .from(memberRoles)
      .where(and(eq(memberRoles.orgId, orgId), eq(memberRoles.userId, userId)))
      .all()
      .map((r) => r.roleId);
  }

  setMemberRoles(orgId: string, userId: string, roleIds: readonly string[]): void {
    this.access.forgetUser(userId);
    this.db
      .delete(memberRoles)
      .where(and(eq(memberRoles.orgId, orgId), eq(memberRoles.userId, userId)))
      .run();
    if (roleIds.length > 0) {
      this.db
        .insert(memberRoles)
        .values(roleIds.map((roleId) => ({ orgId, userId, roleId })))
        .run();
    }
  }

  /** People (not service accounts) holding `roleId`: staff given the Owner role do not keep an organization run. */
  countPeopleWithRole(roleId: string): number {
    const staff = this.db.select({ userId: serviceAccounts.userId }).from(serviceAccounts);
    return (
      this.db
        .select({ n: count() })
        .from(memberRoles)
        .where(and(eq(memberRoles.roleId, roleId), notInArray(memberRoles.userId, staff)))
        .all()[0]?.n ?? 0
    );
  }

  /** A member as listed: the account, the staff member behind it if any, and the roles held (a JSON array). */
  private selectMembers() {
    return this.db
      .select({
        userId: orgMembers.userId,
        email: users.email,
        displayName: users.displayName,
        serviceAccountId: serviceAccounts.id,
        joinedAt: orgMembers.joinedAt,
        roleIds: sql<string | null>`(SELECT json_group_array(${memberRoles.roleId}) FROM ${memberRoles}
          WHERE ${memberRoles.orgId} = ${orgMembers.orgId} AND ${memberRoles.userId} = ${orgMembers.userId})`,
      })
      .from(orgMembers)
      .innerJoin(users, eq(users.id, orgMembers.userId))
      .leftJoin(serviceAccounts, eq(serviceAccounts.userId, orgMembers.userId));
  }

  private readonly membersOf = prepared(() =>
    this.selectMembers()
      .where(eq(orgMembers.orgId, sql.placeholder("orgId")))
      .orderBy(asc(orgMembers.joinedAt), asc(orgMembers.userId))
      .prepare(),
  );

  members(orgId: string): MemberRow[] {
    return this.membersOf()
      .all({ orgId })
      .map((r) => ({ ...r, roleIds: jsonArray(r.roleIds).sort() }));
  }

  private readonly memberOf = prepared(() =>
    this.selectMembers()
      .where(and(eq(orgMembers.orgId, sql.placeholder("orgId")), eq(orgMembers.userId, sql.placeholder("userId"))))
      .prepare(),
  );

  /** One member as listed, or undefined when the user is not a member. */
  member(orgId: string, userId: string): MemberRow | undefined {
    const row = this.memberOf().all({ orgId, userId })[0];
    return row && { ...row, roleIds: jsonArray(row.roleIds).sort() };
  }

  /** Memberships of every organization that began at or after `since` (epoch ms). */
  joinedSince(since: number): { orgId: string; userId: string; joinedAt: number }[] {
    return this.db
      .select({ orgId: orgMembers.orgId, userId: orgMembers.userId, joinedAt: orgMembers.joinedAt })
      .from(orgMembers)
      .where(gte(orgMembers.joinedAt, since))
      .all();
  }

  /** The organizations the user is a member of. */
  orgsOf(userId: string): string[] {
    return this.db
      .select({ orgId: orgMembers.orgId })
      .from(orgMembers)
      .where(eq(orgMembers.userId, userId))
      .all()
      .map((r) => r.orgId);
  }

  /** The members holding a role. */
  holdersOf(roleId: string): { orgId: string; userId: string }[] {
    return this.db
      .select({ orgId: memberRoles.orgId, userId: memberRoles.userId })
      .from(memberRoles)
      .where(eq(memberRoles.roleId, roleId))
      .all();
  }

  // Roles

  roles(orgId: string): RoleRow[] {
    return this.db
      .select()
      .from(roles)
      .where(eq(roles.orgId, orgId))
      .orderBy(sql`${roles.systemKey} IS NULL`, asc(roles.createdAt), asc(roles.id))
      .all();
  }

  role(orgId: string, roleId: string): RoleRow | undefined {
    return this.db
      .select()
      .from(roles)
      .where(and(eq(roles.orgId, orgId), eq(roles.id, roleId)))
      .all()[0];
  }

  rolesByIds(orgId: string, ids: readonly string[]): RoleRow[] {
    if (ids.length === 0) return [];
    return this.db
      .select()
      .from(roles)
      .where(and(eq(roles.orgId, orgId), inArray(roles.id, [...ids])))
      .all();
  }

  systemRole(orgId: string, key: string): RoleRow | undefined {
    return this.db
      .select()
      .from(roles)
      .where(and(eq(roles.orgId, orgId), eq(roles.systemKey, key)))
      .all()[0];
  }

  roleByName(orgId: string, name: string): RoleRow | undefined {
    return this.db
      .select()
      .from(roles)
      .where(and(eq(roles.orgId, orgId), eq(roles.nameKey, nameKey(name))))
      .all()[0];
  }

  insertRole(row: RoleRow): void {
    this.db.insert(roles).values(row).run();
  }

  updateRole(id: string, patch: Partial<Pick<RoleRow, "name" | "permissions">>, now: number): void {
    this.access.clear();
    const key = patch.name === undefined ? {} : { nameKey: nameKey(patch.name) };
    this.db
      .update(roles)
      .set({ ...patch, ...key, updatedAt: now })
      .where(eq(roles.id, id))
      .run();
  }

  /** Deletes a role (the invites feature stops handing it out in the same unit). */
  deleteRole(id: string): void {
    this.access.clear();
    this.db.delete(roles).where(eq(roles.id, id)).run();
  }
}
