/** Queries of organizations, users, memberships, roles, invites and signup requests. */
import type { Database } from "bun:sqlite";
import { and, asc, count, desc, eq, inArray, isNull, notInArray, sql } from "drizzle-orm";
import { type Db, prepared } from "../../db/client";
import {
  invites,
  memberRoles,
  organizations,
  orgMembers,
  roles,
  serviceAccounts,
  signupRequests,
  spaceMembers,
  spaces,
  users,
} from "../../db/schema";
import { nameKey } from "../../lib/text";
import type { AccessMemo } from "./access.memo";

/** Row types, as drizzle reads them. */
export type OrgRow = typeof organizations.$inferSelect;
export type UserRow = typeof users.$inferSelect;
export type RoleRow = typeof roles.$inferSelect;
export type InviteRow = typeof invites.$inferSelect;
export type SignupRequestRow = typeof signupRequests.$inferSelect;

/** A member as listed: the user, whether it is staff, and its role ids. */
export interface MemberRow {
  userId: string;
  email: string;
  displayName: string;
  serviceAccountId: string | null;
  joinedAt: number;
  roleIds: string[];
}

/** A signup request with the requesting user's name and email. */
export type SignupRequestView = SignupRequestRow & { email: string; displayName: string };

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

/** Data access for the people feature; every statement on a request path is prepared once. */
export class PeopleStore {
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
  private readonly orgById = prepared(() =>
    this.db
      .select()
      .from(organizations)
      .where(eq(organizations.id, sql.placeholder("id")))
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

  // Organizations

  /** The organization of this install, if set up. */
  private readonly firstOrg = prepared(() =>
    this.db.select().from(organizations).orderBy(asc(organizations.createdAt)).limit(1).prepare(),
  );

  /** The organization of this install, if set up. */
  onlyOrg(): OrgRow | undefined {
    return this.firstOrg().all()[0];
  }

  org(id: string): OrgRow | undefined {
    return this.orgById().all({ id })[0];
  }

  insertOrg(row: OrgRow): void {
    this.db.insert(organizations).values(row).run();
  }

  updateOrg(id: string, patch: Partial<Pick<OrgRow, "name" | "openSignupsEnabled">>, now: number): void {
    this.db
      .update(organizations)
      .set({ ...patch, updatedAt: now })
      .where(eq(organizations.id, id))
      .run();
  }

  private readonly orgsOf = prepared(() =>
    this.db
      .select({ org: organizations })
      .from(orgMembers)
      .innerJoin(organizations, eq(organizations.id, orgMembers.orgId))
      .where(eq(orgMembers.userId, sql.placeholder("userId")))
      .orderBy(asc(organizations.createdAt))
      .prepare(),
  );

  orgsOfUser(userId: string): OrgRow[] {
    return this.orgsOf()
      .all({ userId })
      .map((r) => r.org);
  }

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

  /** Ends a membership, with the user's memberships of the organization's spaces. */
  removeMember(orgId: string, userId: string): void {
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

  private readonly membersOf = prepared(() =>
    this.db
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
      .leftJoin(serviceAccounts, eq(serviceAccounts.userId, orgMembers.userId))
      .where(eq(orgMembers.orgId, sql.placeholder("orgId")))
      .orderBy(asc(orgMembers.joinedAt), asc(orgMembers.userId))
      .prepare(),
  );

  members(orgId: string): MemberRow[] {
    return this.membersOf()
      .all({ orgId })
      .map((r) => ({ ...r, roleIds: jsonArray(r.roleIds).sort() }));
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

  /** Deletes a role; invites not yet accepted no longer hand it out. */
  deleteRole(id: string): void {
    this.access.clear();
    this.db.delete(roles).where(eq(roles.id, id)).run();
    this.db
      .update(invites)
      .set({ roleIds: sql`(SELECT json_group_array(value) FROM json_each(${invites.roleIds}) WHERE value <> ${id})` })
      .where(
        and(isNull(invites.acceptedAt), sql`EXISTS (SELECT 1 FROM json_each(${invites.roleIds}) WHERE value = ${id})`),
      )
      .run();
  }

  // Invites

  invites(orgId: string): InviteRow[] {
    return this.db
      .select()
      .from(invites)
      .where(eq(invites.orgId, orgId))
      .orderBy(desc(invites.createdAt), desc(invites.id))
      .all();
  }

  invite(orgId: string, id: string): InviteRow | undefined {
    return this.db
      .select()
      .from(invites)
      .where(and(eq(invites.orgId, orgId), eq(invites.id, id)))
      .all()[0];
  }

  inviteByTokenHash(tokenHash: string): InviteRow | undefined {
    return this.db.select().from(invites).where(eq(invites.tokenHash, tokenHash)).all()[0];
  }

  insertInvite(row: InviteRow): void {
    this.db.insert(invites).values(row).run();
  }

  /** Marks an invite used; false when another request used it first. */
  consumeInvite(id: string, userId: string, now: number): boolean {
    return (
      this.db
        .update(invites)
        .set({ acceptedAt: now, acceptedBy: userId })
        .where(and(eq(invites.id, id), isNull(invites.acceptedAt)))
        .returning({ id: invites.id })
        .all().length === 1
    );
  }

  deleteInvite(id: string): void {
    this.db.delete(invites).where(eq(invites.id, id)).run();
  }

  // Signup requests

  signupRequests(orgId: string, status?: string): SignupRequestView[] {
    return this.db
      .select({ request: signupRequests, email: users.email, displayName: users.displayName })
      .from(signupRequests)
      .innerJoin(users, eq(users.id, signupRequests.userId))
      .where(
        status
          ? and(eq(signupRequests.orgId, orgId), eq(signupRequests.status, status))
          : eq(signupRequests.orgId, orgId),
      )
      .orderBy(desc(signupRequests.createdAt), desc(signupRequests.id))
      .all()
      .map((r) => ({ ...r.request, email: r.email, displayName: r.displayName }));
  }

  signupRequest(orgId: string, id: string): SignupRequestView | undefined {
    const row = this.db
      .select({ request: signupRequests, email: users.email, displayName: users.displayName })
      .from(signupRequests)
      .innerJoin(users, eq(users.id, signupRequests.userId))
      .where(and(eq(signupRequests.orgId, orgId), eq(signupRequests.id, id)))
      .all()[0];
    return row && { ...row.request, email: row.email, displayName: row.displayName };
  }

  /** The most recent signup request of a user in any org (one org per install). */
  latestSignupRequestOf(userId: string): SignupRequestRow | undefined {
    return this.db
      .select()
      .from(signupRequests)
      .where(eq(signupRequests.userId, userId))
      .orderBy(desc(signupRequests.createdAt), desc(signupRequests.id))
      .limit(1)
      .all()[0];
  }

  hasPendingSignup(orgId: string, userId: string): boolean {
    return (
      this.db
        .select({ id: signupRequests.id })
        .from(signupRequests)
        .where(
          and(eq(signupRequests.orgId, orgId), eq(signupRequests.userId, userId), eq(signupRequests.status, "pending")),
        )
        .all().length > 0
    );
  }

  insertSignupRequest(row: SignupRequestRow): void {
    this.db.insert(signupRequests).values(row).run();
  }

  /** Resolves a pending request; false when it was no longer pending. */
  resolveSignupRequest(id: string, status: "approved" | "denied", by: string | null, now: number): boolean {
    return (
      this.db
        .update(signupRequests)
        .set({ status, resolvedAt: now, resolvedBy: by })
        .where(and(eq(signupRequests.id, id), eq(signupRequests.status, "pending")))
        .returning({ id: signupRequests.id })
        .all().length === 1
    );
  }

  /** Approves whatever pending request the user has (they joined by invite instead). */
  approvePendingSignupsOf(orgId: string, userId: string, now: number): void {
    this.db
      .update(signupRequests)
      .set({ status: "approved", resolvedAt: now })
      .where(
        and(eq(signupRequests.orgId, orgId), eq(signupRequests.userId, userId), eq(signupRequests.status, "pending")),
      )
      .run();
  }
}

/**
 * Whether the install has its organization, at startup: a plain query, since building drizzle's first query
 * while its code is still cold costs a couple of milliseconds of every start.
 */
export function hasOrganization(sqlite: Database): boolean {
  return sqlite.query("SELECT 1 FROM organizations LIMIT 1").get() !== null;
}
