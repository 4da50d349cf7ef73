/** Organizations, members, roles, invites and signup requests: the rules, over the store. */

import type { OrgActor, Principal } from "../../core/actor";
import { conflict, forbidden, invalid, notFound, unauthenticated } from "../../core/errors";
import { isPermission, PERMISSIONS, SYSTEM_ROLES } from "../../core/permissions";
import type { UnitOfWork } from "../../db/unit";
import { isUuid, newId } from "../../lib/ids";
import { hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from "../../lib/password";
import { charCount, hasControl, isInvisible, nameKey } from "../../lib/text";
import { hashToken, newToken } from "../../lib/tokens";
import type { AuthStore } from "../auth/auth.store";
import {
  assertAllRolesFound,
  assertCanGrant,
  assertHasPassword,
  assertKeepsAnOwner,
  assertMayRenameSelf,
} from "./people.policy";
import type { InviteRow, ListedUser, OrgRow, PeopleStore, RoleRow, UserRow } from "./people.store";

const INVITE_TTL_MS = 7 * 24 * 3600 * 1000;

/** What first-run setup needs. */
export interface SetupInput {
  orgName: string;
  adminEmail: string;
  adminPassword: string;
  adminName?: string | undefined;
}

/** A user to add from the CLI. */
export interface AddUserInput {
  email: string;
  password: string;
  name?: string | undefined;
  roleName?: string | undefined;
}

/** A URL-safe slug of an organization name. */
export function slugify(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48);
  return slug || "org";
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Validates first-run input before anything is written; returns the normalized name and email. */
export function checkSetupInput(input: SetupInput): { orgName: string; email: string } {
  const orgName = input.orgName.trim();
  const email = input.adminEmail.trim().toLowerCase();
  checkDisplayName("org_name", orgName);
  if (!EMAIL.test(email)) throw invalid("admin_email: must be an email address");
  if (input.adminPassword.length < MIN_PASSWORD_LENGTH) {
    throw invalid(`admin_password: must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  if (input.adminName !== undefined) checkDisplayName("admin_name", input.adminName.trim());
  return { orgName, email };
}

/** A name given outside the HTTP schemas (the CLI): the rules of `nameIn()`, 1 to 100 characters, one line. */
function checkDisplayName(field: string, name: string): void {
  const length = charCount(name);
  if (length === 0 || length > 100) throw invalid(`${field}: must be 1 to 100 characters`);
  if (hasControl(name)) throw invalid(`${field}: must not contain control characters`);
  if (isInvisible(name)) throw invalid(`${field}: must contain a visible character`);
}

/** The part of an email before `@`, as a default display name. */
function nameFromEmail(email: string): string {
  return email.split("@")[0] || email;
}

function parsePermissions(names: readonly string[]): string[] {
  const unique = [...new Set(names)];
  for (const name of unique) if (!isPermission(name)) throw invalid(`permissions: unknown permission "${name}"`);
  return PERMISSIONS.filter((p) => unique.includes(p));
}

/** The people feature's operations. Every method takes the actor the permission macro resolved. */
export class PeopleService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: PeopleStore,
    private readonly tokens: AuthStore,
  ) {}

  // Setup and users (also used by the CLI)

  /** True until the organization of this install exists. */
  needsSetup(): boolean {
    return this.store.onlyOrg() === undefined;
  }

  /** Whether anyone may ask for an account (the sign-in page offers it only then). */
  signupsOpen(): boolean {
    return this.store.onlyOrg()?.openSignupsEnabled ?? false;
  }

  /** Creates the organization, its four system roles and its owner, in one transaction. */
  async setup(input: SetupInput): Promise<{ org: OrgRow; user: UserRow }> {
    const { orgName, email } = checkSetupInput(input);
    const passwordHash = await hashPassword(input.adminPassword);
    const now = Date.now();
    return this.uow.write(() => {
      if (this.store.onlyOrg()) throw conflict("organization already exists");
      if (this.store.userByEmailAddress(email)) throw conflict("email already registered");
      const org: OrgRow = {
        id: newId(),
        name: orgName,
        slug: slugify(orgName),
        openSignupsEnabled: false,
        createdAt: now,
        updatedAt: now,
      };
      this.store.insertOrg(org);
      const roleIds = new Map<string, string>();
      for (const role of SYSTEM_ROLES) {
        const id = newId();
        roleIds.set(role.key, id);
        this.store.insertRole({
          id,
          orgId: org.id,
          name: role.name,
          nameKey: nameKey(role.name),
          systemKey: role.key,
          permissions: JSON.stringify(role.permissions),
          createdAt: now,
          updatedAt: now,
        });
      }
      const user: UserRow = {
        id: newId(),
        email,
        displayName: input.adminName?.trim() || nameFromEmail(email),
        passwordHash,
        createdAt: now,
        updatedAt: now,
      };
      this.store.insertUser(user);
      this.store.addMember(org.id, user.id, [roleIds.get("owner") as string], now);
      return { org, user };
    });
  }

  /** The organization of this install, or an error that says setup is needed. */
  requireOrg(): OrgRow {
    const org = this.store.onlyOrg();
    if (!org) throw conflict("no organization yet: run `tandem setup` first");
    return org;
  }

  /**
   * Adds a user with a password as a member with one role (default Member). An account that is no longer a
   * member (removed, or a signup never approved) comes back with the password, and the name when given, that
   * the operator chose; its old sessions end.
   */
  async addUser(input: AddUserInput): Promise<UserRow> {
    const email = input.email.trim().toLowerCase();
    if (!EMAIL.test(email)) throw invalid("email: must be an email address");
    if (input.password.length < MIN_PASSWORD_LENGTH) {
      throw invalid(`password: must be at least ${MIN_PASSWORD_LENGTH} characters`);
    }
    if (input.name?.trim()) checkDisplayName("name", input.name.trim());
    const passwordHash = await hashPassword(input.password);
    const now = Date.now();
    return this.uow.write(() => {
      const org = this.requireOrg();
      const role = input.roleName
        ? this.store.roleByName(org.id, input.roleName)
        : this.store.systemRole(org.id, "member");
      if (!role) throw invalid(`role: no role named "${input.roleName}"`);
      const existing = this.store.userByEmailAddress(email);
      if (existing) return this.readmit(org.id, existing, role.id, passwordHash, input.name?.trim(), now);
      const user: UserRow = {
        id: newId(),
        email,
        displayName: input.name?.trim() || nameFromEmail(email),
        passwordHash,
        createdAt: now,
        updatedAt: now,
      };
      this.store.insertUser(user);
      this.store.addMember(org.id, user.id, [role.id], now);
      return user;
    });
  }

  /** An existing account made a member again (see `addUser`). */
  private readmit(
    orgId: string,
    user: UserRow,
    roleId: string,
    passwordHash: string,
    name: string | undefined,
    now: number,
  ): UserRow {
    // A staff member's account has no password and is managed as staff.
    if (user.passwordHash === null) throw conflict("email already registered");
    if (this.store.isMember(orgId, user.id)) throw conflict("already a member of the organization");
    const displayName = name || user.displayName;
    this.store.updateUser(user.id, { passwordHash, displayName }, now);
    this.tokens.revokeUser(user.id, now);
    this.store.addMember(orgId, user.id, [roleId], now);
    this.store.approvePendingSignupsOf(orgId, user.id, now);
    return { ...user, passwordHash, displayName, updatedAt: now };
  }

  /**
   * Every human user with their role names and where they stand, for `tandem users list`: `member`, `pending`
   * or `denied` (a signup), else `not a member` (removed from the organization).
   */
  listUsers(): (ListedUser & { status: "member" | "pending" | "denied" | "not a member" })[] {
    const org = this.store.onlyOrg();
    if (!org) return [];
    return this.store.usersWithRoleNames(org.id).map((user) => {
      if (user.member) return { ...user, status: "member" as const };
      const signup = this.store.latestSignupRequestOf(user.id)?.status;
      return { ...user, status: signup === "pending" || signup === "denied" ? signup : ("not a member" as const) };
    });
  }

  /** Sets a new password and ends every session of the user. */
  async resetPassword(emailInput: string, password: string): Promise<UserRow> {
    if (password.length < MIN_PASSWORD_LENGTH) {
      throw invalid(`password: must be at least ${MIN_PASSWORD_LENGTH} characters`);
    }
    const email = emailInput.trim().toLowerCase();
    const user = this.store.userByEmailAddress(email);
    if (!user || user.passwordHash === null) throw notFound("user not found");
    const passwordHash = await hashPassword(password);
    const now = Date.now();
    this.uow.write(() => {
      this.store.updateUser(user.id, { passwordHash }, now);
      this.tokens.revokeUser(user.id, now);
    });
    return user;
  }

  // The caller

  me(principal: Principal): { user: UserRow; serviceAccountId: string | null } {
    const row = this.store.userWithStaff(principal.userId);
    // A token still valid for a user who no longer exists: the token is as good as invalid.
    if (!row) throw unauthenticated();
    return row;
  }

  patchMe(principal: Principal, displayName: string): { user: UserRow; serviceAccountId: string | null } {
    assertMayRenameSelf(principal);
    this.store.updateUser(principal.userId, { displayName }, Date.now());
    return this.me(principal);
  }

  /**
   * Changes the caller's own password and ends every other session of theirs at once (refresh tokens revoked,
   * sockets closed); the session asking stays signed in. A wrong current password is 400, not 401: the
   * caller's token is fine, and a 401 would make clients refresh and retry.
   */
  async changePassword(principal: Principal, currentPassword: string, newPassword: string, client = ""): Promise<void> {
    assertHasPassword(principal);
    const user = this.store.user(principal.userId);
    if (!user) throw unauthenticated();
    // The same bounded argon2id path as login, so a burst of guesses queues rather than exhausting memory.
    if (!(await verifyPassword(currentPassword, user.passwordHash, client))) {
      throw invalid("current password is incorrect");
    }
    const passwordHash = await hashPassword(newPassword, client);
    const now = Date.now();
    this.uow.write(() => {
      // Changed meanwhile (another change, a reset): the password just checked is no longer the current one.
      if (this.store.user(user.id)?.passwordHash !== user.passwordHash) {
        throw invalid("current password is incorrect");
      }
      this.store.updateUser(user.id, { passwordHash }, now);
      this.tokens.revokeUser(user.id, now, principal.sessionId);
    });
  }

  organizationsOf(principal: Principal): OrgRow[] {
    return this.store.orgsOfUser(principal.userId);
  }

  // Organization

  organization(actor: OrgActor): OrgRow {
    const org = this.store.org(actor.orgId);
    if (!org) throw notFound("organization not found");
    return org;
  }

  patchOrganization(
    actor: OrgActor,
    patch: { name?: string | undefined; open_signups_enabled?: boolean | undefined },
  ): OrgRow {
    const changes: Partial<Pick<OrgRow, "name" | "openSignupsEnabled">> = {};
    if (patch.name !== undefined) changes.name = patch.name;
    if (patch.open_signups_enabled !== undefined) changes.openSignupsEnabled = patch.open_signups_enabled;
    if (Object.keys(changes).length > 0) this.store.updateOrg(actor.orgId, changes, Date.now());
    return this.organization(actor);
  }

  // Members

  members(actor: OrgActor) {
    return this.store.members(actor.orgId);
  }

  removeMember(actor: OrgActor, userId: string): void {
    if (userId === actor.userId) throw invalid("cannot remove yourself");
    this.uow.write(() => {
      if (!isUuid(userId) || !this.store.isMember(actor.orgId, userId)) throw notFound("member not found");
      if (this.store.userWithStaff(userId)?.serviceAccountId) {
        throw invalid("service accounts are removed with DELETE /service-accounts/{id}");
      }
      const owner = this.ownerRole(actor.orgId);
      const roleIds = this.store.memberRoleIds(actor.orgId, userId);
      const isOwner = roleIds.includes(owner.id);
      // Removing a member takes their roles away: it needs what taking them away by PUT roles needs.
      assertCanGrant(actor.permissions, this.store.rolesByIds(actor.orgId, roleIds));
      assertKeepsAnOwner(this.store.countPeopleWithRole(owner.id), isOwner);
      this.store.removeMember(actor.orgId, userId);
    });
  }

  putMemberRoles(actor: OrgActor, userId: string, roleIds: readonly string[]): string[] {
    const unique = [...new Set(roleIds)];
    return this.uow.write(() => {
      if (!isUuid(userId) || !this.store.isMember(actor.orgId, userId)) throw notFound("member not found");
      const found = this.store.rolesByIds(actor.orgId, unique);
      assertAllRolesFound(unique, found);
      const current = this.store.memberRoleIds(actor.orgId, userId);
      // The roles added and the roles taken away must both be within the caller's own permissions: a caller
      // with `org.members.manage` alone neither hands out nor takes away `org.manage`.
      const added = found.filter((r) => !current.includes(r.id));
      const removed = this.store.rolesByIds(
        actor.orgId,
        current.filter((id) => !unique.includes(id)),
      );
      assertCanGrant(actor.permissions, [...added, ...removed]);
      const owner = this.ownerRole(actor.orgId);
      const losing = current.includes(owner.id) && !unique.includes(owner.id);
      // Only people count as owners: staff holding the Owner role may lose it whatever the count.
      const person = !this.store.userWithStaff(userId)?.serviceAccountId;
      assertKeepsAnOwner(this.store.countPeopleWithRole(owner.id), losing && person);
      this.store.setMemberRoles(actor.orgId, userId, unique);
      return unique.sort();
    });
  }

  // Roles

  roles(actor: OrgActor): RoleRow[] {
    return this.store.roles(actor.orgId);
  }

  createRole(actor: OrgActor, input: { name: string; permissions: string[] }): RoleRow {
    const permissions = parsePermissions(input.permissions);
    const now = Date.now();
    const role: RoleRow = {
      id: newId(),
      orgId: actor.orgId,
      name: input.name,
      nameKey: nameKey(input.name),
      systemKey: null,
      permissions: JSON.stringify(permissions),
      createdAt: now,
      updatedAt: now,
    };
    assertCanGrant(actor.permissions, [role]);
    return this.uow.write(() => {
      if (this.store.roleByName(actor.orgId, input.name)) throw conflict("role name already exists");
      this.store.insertRole(role);
      return role;
    });
  }

  patchRole(
    actor: OrgActor,
    roleId: string,
    input: { name?: string | undefined; permissions?: string[] | undefined },
  ): RoleRow {
    return this.uow.write(() => {
      const role = this.requireRole(actor.orgId, roleId);
      const changes: Partial<Pick<RoleRow, "name" | "permissions">> = {};
      if (input.name !== undefined && input.name !== role.name) {
        if (role.systemKey !== null) throw invalid("system roles cannot be renamed");
        const other = this.store.roleByName(actor.orgId, input.name);
        if (other && other.id !== role.id) throw conflict("role name already exists");
        changes.name = input.name;
      }
      if (input.permissions !== undefined) {
        const permissions = JSON.stringify(parsePermissions(input.permissions));
        if (permissions !== role.permissions) {
          if (role.systemKey === "owner") throw invalid("the Owner role always has every permission");
          assertCanGrant(actor.permissions, [{ permissions }]);
          changes.permissions = permissions;
        }
      }
      if (Object.keys(changes).length === 0) return role;
      // Changing a role changes what its holders may do: only a caller who could grant it may.
      assertCanGrant(actor.permissions, [role]);
      this.store.updateRole(role.id, changes, Date.now());
      return this.requireRole(actor.orgId, roleId);
    });
  }

  deleteRole(actor: OrgActor, roleId: string): void {
    this.uow.write(() => {
      const role = this.requireRole(actor.orgId, roleId);
      if (role.systemKey !== null) throw invalid("system roles cannot be deleted");
      assertCanGrant(actor.permissions, [role]);
      this.store.deleteRole(role.id);
    });
  }

  // Invites

  invites(actor: OrgActor): InviteRow[] {
    return this.store.invites(actor.orgId);
  }

  createInvite(
    actor: OrgActor,
    input: { email?: string | null | undefined; role_ids?: string[] | undefined },
  ): {
    invite: InviteRow;
    token: string;
  } {
    const token = newToken("inv_");
    const now = Date.now();
    return this.uow.write(() => {
      const invited = input.email ? this.store.userByEmailAddress(input.email) : undefined;
      if (invited && this.store.isMember(actor.orgId, invited.id)) {
        throw conflict("already a member of the organization");
      }
      const roleIds = this.grantableRoleIds(actor, input.role_ids);
      const invite: InviteRow = {
        id: newId(),
        orgId: actor.orgId,
        email: input.email ?? null,
        tokenHash: hashToken(token),
        roleIds: JSON.stringify(roleIds),
        createdBy: actor.userId,
        createdAt: now,
        expiresAt: now + INVITE_TTL_MS,
        acceptedAt: null,
        acceptedBy: null,
      };
      this.store.insertInvite(invite);
      return { invite, token };
    });
  }

  deleteInvite(actor: OrgActor, inviteId: string): void {
    const invite = isUuid(inviteId) ? this.store.invite(actor.orgId, inviteId) : undefined;
    if (!invite) throw notFound("invite not found");
    this.store.deleteInvite(invite.id);
  }

  // Signup requests

  signupRequests(actor: OrgActor, status?: string) {
    return this.store.signupRequests(actor.orgId, status);
  }

  approveSignup(actor: OrgActor, requestId: string, roleIdsInput?: string[]): void {
    const now = Date.now();
    this.uow.write(() => {
      const request = this.requirePendingSignup(actor, requestId);
      const roleIds = this.grantableRoleIds(actor, roleIdsInput);
      this.store.resolveSignupRequest(request.id, "approved", actor.userId, now);
      if (!this.store.isMember(actor.orgId, request.userId)) {
        this.store.addMember(actor.orgId, request.userId, roleIds, now);
      }
    });
  }

  denySignup(actor: OrgActor, requestId: string): void {
    const now = Date.now();
    this.uow.write(() => {
      const request = this.requirePendingSignup(actor, requestId);
      this.store.resolveSignupRequest(request.id, "denied", actor.userId, now);
      this.tokens.revokeUser(request.userId, now);
    });
  }

  // Helpers

  private requireRole(orgId: string, roleId: string): RoleRow {
    const role = isUuid(roleId) ? this.store.role(orgId, roleId) : undefined;
    if (!role) throw notFound("role not found");
    return role;
  }

  private ownerRole(orgId: string): RoleRow {
    const owner = this.store.systemRole(orgId, "owner");
    if (!owner) throw new Error(`organization ${orgId} has no Owner role`);
    return owner;
  }

  /** Role ids to grant: the given ones (checked and within the caller's permissions) or the Member role. */
  private grantableRoleIds(actor: OrgActor, ids: readonly string[] | undefined): string[] {
    if (ids === undefined) {
      const member = this.store.systemRole(actor.orgId, "member");
      if (!member) throw new Error(`organization ${actor.orgId} has no Member role`);
      assertCanGrant(actor.permissions, [member]);
      return [member.id];
    }
    const unique = [...new Set(ids)];
    const found = this.store.rolesByIds(actor.orgId, unique);
    assertAllRolesFound(unique, found);
    assertCanGrant(actor.permissions, found);
    return unique.sort();
  }

  private requirePendingSignup(actor: OrgActor, requestId: string) {
    const request = isUuid(requestId) ? this.store.signupRequest(actor.orgId, requestId) : undefined;
    if (!request) throw notFound("signup request not found");
    if (request.status !== "pending") throw conflict("signup request is not pending");
    return request;
  }
}

/** Raised for a pending signup calling an organization route. */
export const signupPending = () => forbidden("signup pending approval");
