/** Accounts, the organization's members and their roles: the rules, over the store. */
import type { OrgActor, Principal } from "../../core/actor";
import { conflict, invalid, notFound, unauthenticated } from "../../core/errors";
import { type EventBus, type EventOf, orgEvent, type Unit } from "../../core/events";
import { isPermission, PERMISSIONS, SYSTEM_ROLES, type SystemRole } from "../../core/permissions";
import type { UnitOfWork } from "../../db/unit";
import { isUuid, newId } from "../../lib/ids";
import { hashPassword, MIN_PASSWORD_LENGTH } from "../../lib/password";
import { nameKey } from "../../lib/text";
import {
  assertAllRolesFound,
  assertCanGrant,
  assertKeepsAnOwner,
  assertMayRenameSelf,
  checkDisplayName,
  isEmail,
  nameFromEmail,
} from "./members.policy";
import { presentMember, presentRole } from "./members.present";
import type { ListedUser, MemberRow, MembersStore, RoleRow, UserRow } from "./members.store";

export type { ListedUser, MemberRow, RoleRow, UserRow } from "./members.store";

/** A user to add from the CLI. */
export interface AddUserInput {
  email: string;
  password: string;
  name?: string | undefined;
  roleName?: string | undefined;
}

/** The caller's account as `/me` shows it. */
export type Me = { user: UserRow; serviceAccountId: string | null };

function parsePermissions(names: readonly string[]): string[] {
  const unique = [...new Set(names)];
  for (const name of unique) if (!isPermission(name)) throw invalid(`permissions: unknown permission "${name}"`);
  return PERMISSIONS.filter((p) => unique.includes(p));
}

/** The members feature's operations. Those of a route take the actor the permission macro resolved. */
/**
 * How far back the join watch looks: another process stamps a join before it commits, and the watch looks
 * every few seconds.
 */
const JOIN_WATCH_WINDOW_MS = 60_000;

export class MembersService {
  /** Joins announced or seen, `orgId:userId` → when (see `watchJoins`). */
  private readonly joinsSeen = new Map<string, number>();

  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: MembersStore,
  ) {}

  /** Goes up with every change of anyone's membership, roles, space memberships or account. */
  get accessGeneration(): number {
    return this.store.accessGeneration;
  }

  // Accounts

  user(id: string): UserRow | undefined {
    return this.store.user(id);
  }

  /** The account of an email address (lower case, as stored). */
  userByEmail(email: string): UserRow | undefined {
    return this.store.userByEmailAddress(email);
  }

  /** A new account, in the caller's unit; `passwordHash` null for staff, who sign in with their token. */
  createUser(input: { email: string; displayName: string; passwordHash: string | null }, now = Date.now()): UserRow {
    const user: UserRow = { id: newId(), ...input, createdAt: now, updatedAt: now };
    this.uow.write(() => this.store.insertUser(user));
    return user;
  }

  /** Sets an account's password: its sign-in sessions end, but `keepSessionId`'s (the one that changed it). */
  setPassword(userId: string, passwordHash: string, keepSessionId: string | null = null, now = Date.now()): void {
    this.uow.write((unit) => {
      this.store.updateUser(userId, { passwordHash }, now);
      unit.emit(passwordChanged(userId, keepSessionId));
    });
  }

  /** Renames an account (a staff member's follows its name); its organizations hear `member.updated`. */
  rename(userId: string, displayName: string, now = Date.now()): void {
    this.uow.write((unit) => {
      this.store.updateUser(userId, { displayName }, now);
      for (const orgId of this.store.orgsOf(userId)) this.emitMember(unit, orgId, "member.updated", userId);
    });
  }

  /**
   * Deletes an account (a staff member's), in the caller's unit: what it authored loses its author, and
   * everything remembered about it is dropped before anything is published.
   */
  deleteUser(orgId: string, userId: string, actor: Principal): void {
    this.uow.write((unit) => {
      const member = this.store.member(orgId, userId);
      this.store.deleteUser(userId);
      this.store.forgetUser(userId);
      unit.emit(orgEvent(orgId, "user.deleted", { user_id: userId }, actor));
      if (member) unit.emit(orgEvent(orgId, "member.left", presentMember(member), actor));
    });
  }

  /** Drops what is remembered of a user (after a change to its staff account). */
  forgetUser(userId: string): void {
    this.store.forgetUser(userId);
  }

  // The caller

  me(principal: Principal): Me {
    const row = this.store.userWithStaff(principal.userId);
    // A token still valid for a user who no longer exists: the token is as good as invalid.
    if (!row) throw unauthenticated();
    return row;
  }

  patchMe(principal: Principal, displayName: string): Me {
    assertMayRenameSelf(principal);
    this.rename(principal.userId, displayName);
    return this.me(principal);
  }

  // Membership

  /** The member's permissions in the organization; null when not a member. */
  permissions(orgId: string, userId: string): ReadonlySet<string> | null {
    return this.store.memberPermissions(orgId, userId);
  }

  isMember(orgId: string, userId: string): boolean {
    return this.store.isMember(orgId, userId);
  }

  /** Makes the user a member with `roleIds`, in the caller's unit. */
  addMember(orgId: string, userId: string, roleIds: readonly string[], now = Date.now()): void {
    this.uow.write((unit) => {
      this.store.addMember(orgId, userId, roleIds, now);
      unit.emit(orgEvent(orgId, "member.added", { user_id: userId }));
      this.emitMember(unit, orgId, "member.joined", userId);
    });
  }

  members(actor: OrgActor): MemberRow[] {
    return this.store.members(actor.orgId);
  }

  /**
   * Changing or removing a member (a staff member's settings or token included) needs every permission their
   * roles hold, as taking those roles away would: `org.members.manage` alone does not repoint an Owner.
   */
  assertHoldsRolesOf(actor: OrgActor, userId: string): void {
    assertCanGrant(
      actor.permissions,
      this.store.rolesByIds(actor.orgId, this.store.memberRoleIds(actor.orgId, userId)),
    );
  }

  removeMember(actor: OrgActor, userId: string): void {
    if (userId === actor.userId) throw invalid("cannot remove yourself");
    this.uow.write((unit) => {
      if (!isUuid(userId) || !this.store.isMember(actor.orgId, userId)) throw notFound("member not found");
      if (this.store.userWithStaff(userId)?.serviceAccountId) {
        throw invalid("service accounts are removed with DELETE /service-accounts/{id}");
      }
      const owner = this.ownerRole(actor.orgId);
      const roleIds = this.store.memberRoleIds(actor.orgId, userId);
      const isOwner = roleIds.includes(owner.id);
      // Removing a member takes their roles away: it needs what taking them away by PUT roles needs.
      this.assertHoldsRolesOf(actor, userId);
      assertKeepsAnOwner(this.store.countPeopleWithRole(owner.id), isOwner);
      const member = this.store.member(actor.orgId, userId);
      this.store.removeMember(actor.orgId, userId);
      unit.emit(orgEvent(actor.orgId, "member.removed", { user_id: userId }, actor));
      if (member) unit.emit(orgEvent(actor.orgId, "member.left", presentMember(member), actor));
    });
  }

  putMemberRoles(actor: OrgActor, userId: string, roleIds: readonly string[]): string[] {
    const unique = [...new Set(roleIds)];
    return this.uow.write((unit) => {
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
      this.emitMember(unit, actor.orgId, "member.updated", userId, actor);
      if (added.length + removed.length > 0) {
        const refs = (roles: RoleRow[]) => roles.map((r) => ({ id: r.id, name: r.name }));
        const payload = { user_id: userId, added: refs(added), removed: refs(removed) };
        unit.emit(orgEvent(actor.orgId, "member.roles.changed", payload, actor));
      }
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
    return this.uow.write((unit) => {
      if (this.store.roleByName(actor.orgId, input.name)) throw conflict("role name already exists");
      this.store.insertRole(role);
      unit.emit(orgEvent(actor.orgId, "role.created", presentRole(role), actor));
      return role;
    });
  }

  patchRole(
    actor: OrgActor,
    roleId: string,
    input: { name?: string | undefined; permissions?: string[] | undefined },
  ): RoleRow {
    return this.uow.write((unit) => {
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
      const updated = this.requireRole(actor.orgId, roleId);
      const payload = { role: presentRole(updated), previous: presentRole(role) };
      unit.emit(orgEvent(actor.orgId, "role.updated", payload, actor));
      return updated;
    });
  }

  deleteRole(actor: OrgActor, roleId: string): void {
    this.uow.write((unit) => {
      const role = this.requireRole(actor.orgId, roleId);
      if (role.systemKey !== null) throw invalid("system roles cannot be deleted");
      assertCanGrant(actor.permissions, [role]);
      const holders = this.store.holdersOf(role.id);
      this.store.deleteRole(role.id);
      const { id, name, permissions } = presentRole(role);
      unit.emit(orgEvent(actor.orgId, "role.deleted", { role_id: id, name, permissions }, actor));
      for (const holder of holders) this.emitMember(unit, holder.orgId, "member.updated", holder.userId, actor);
    });
  }

  /** Creates the four system roles of a new organization, in the caller's unit; their ids by key. */
  createSystemRoles(orgId: string, now: number): Map<SystemRole["key"], string> {
    const ids = new Map<SystemRole["key"], string>();
    this.uow.write(() => {
      for (const role of SYSTEM_ROLES) {
        const id = newId();
        ids.set(role.key, id);
        this.store.insertRole({
          id,
          orgId,
          name: role.name,
          nameKey: nameKey(role.name),
          systemKey: role.key,
          permissions: JSON.stringify(role.permissions),
          createdAt: now,
          updatedAt: now,
        });
      }
    });
    return ids;
  }

  /** The roles of `ids` that still exist in the organization, by id and name. */
  roleRefs(orgId: string, ids: readonly string[]): { id: string; name: string }[] {
    return this.store.rolesByIds(orgId, [...ids]).map((r) => ({ id: r.id, name: r.name }));
  }

  /** Of `ids`, those that still name a role of the organization (an invite's roles, some deleted since). */
  existingRoleIds(orgId: string, ids: readonly string[]): string[] {
    return ids.filter((id) => this.store.role(orgId, id));
  }

  /**
   * Role ids the actor grants: the given ones (checked, and within the caller's permissions), else the system
   * role `fallback` (Member for people, AI Staff for staff).
   */
  grantableRoleIds(actor: OrgActor, ids: readonly string[] | undefined, fallback: SystemRole["key"]): string[] {
    if (ids === undefined) {
      const role = this.store.systemRole(actor.orgId, fallback);
      if (!role) throw new Error(`organization ${actor.orgId} has no ${fallback} role`);
      assertCanGrant(actor.permissions, [role]);
      return [role.id];
    }
    const unique = [...new Set(ids)];
    const found = this.store.rolesByIds(actor.orgId, unique);
    assertAllRolesFound(unique, found);
    assertCanGrant(actor.permissions, found);
    return unique.sort();
  }

  // Users from the CLI

  /**
   * Adds a user with a password as a member with one role (default Member). An account that is no longer a
   * member (removed, or a signup never approved) comes back with the password, and the name when given, that
   * the operator chose; its old sessions end.
   */
  async addUser(orgId: string, input: AddUserInput): Promise<UserRow> {
    const email = input.email.trim().toLowerCase();
    if (!isEmail(email)) throw invalid("email: must be an email address");
    if (input.password.length < MIN_PASSWORD_LENGTH) {
      throw invalid(`password: must be at least ${MIN_PASSWORD_LENGTH} characters`);
    }
    if (input.name?.trim()) checkDisplayName("name", input.name.trim());
    const passwordHash = await hashPassword(input.password);
    const now = Date.now();
    return this.uow.write((unit) => {
      const role = input.roleName
        ? this.store.roleByName(orgId, input.roleName)
        : this.store.systemRole(orgId, "member");
      if (!role) throw invalid(`role: no role named "${input.roleName}"`);
      const existing = this.store.userByEmailAddress(email);
      if (existing) return this.readmit(unit, orgId, existing, role.id, passwordHash, input.name?.trim(), now);
      const user = this.createUser(
        { email, displayName: input.name?.trim() || nameFromEmail(email), passwordHash },
        now,
      );
      this.addMember(orgId, user.id, [role.id], now);
      return user;
    });
  }

  /** An existing account made a member again (see `addUser`). */
  private readmit(
    unit: Unit,
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
    unit.emit(passwordChanged(user.id, null));
    this.addMember(orgId, user.id, [roleId], now);
    return { ...user, passwordHash, displayName, updatedAt: now };
  }

  /** Every human user with the names of their roles in the organization, for `tandem users list`. */
  listUsers(orgId: string): ListedUser[] {
    return this.store.usersWithRoleNames(orgId);
  }

  // Joins made by another process

  /**
   * Starts noticing members who join through another process on the same data dir (`tandem users add` while
   * this one serves), which could not tell this process's sockets: the members joined until now are known, and
   * so is every `member.joined` this process sends from now on. `announceJoinsElsewhere` then tells the rest.
   */
  watchJoins(events: EventBus): () => void {
    for (const row of this.store.joinedSince(Date.now() - JOIN_WATCH_WINDOW_MS)) {
      this.joinsSeen.set(`${row.orgId}:${row.userId}`, row.joinedAt);
    }
    return events.subscribe((event) => {
      if (event.type === "member.joined")
        this.joinsSeen.set(`${event.organization_id}:${event.payload.user_id}`, Date.now());
    }, "everywhere");
  }

  /** Sends `member.joined` for the members who joined through another process since the last look. */
  announceJoinsElsewhere(): void {
    const now = Date.now();
    const fresh = this.store.joinedSince(now - JOIN_WATCH_WINDOW_MS).filter((row) => {
      const seen = this.joinsSeen.get(`${row.orgId}:${row.userId}`);
      return seen === undefined || seen < row.joinedAt;
    });
    if (fresh.length > 0) {
      this.uow.write((unit) => {
        for (const row of fresh) this.emitMember(unit, row.orgId, "member.joined", row.userId);
      });
      for (const row of fresh) this.joinsSeen.set(`${row.orgId}:${row.userId}`, Math.max(row.joinedAt, now));
    }
    for (const [key, at] of this.joinsSeen) if (at < now - 2 * JOIN_WATCH_WINDOW_MS) this.joinsSeen.delete(key);
  }

  // Helpers

  /** Tells the organization's directory (contract §10) about a member as they are now, in the unit. */
  private emitMember(
    unit: Unit,
    orgId: string,
    type: "member.joined" | "member.updated",
    userId: string,
    actor?: Principal,
  ): void {
    const member = this.store.member(orgId, userId);
    if (member) unit.emit(orgEvent(orgId, type, presentMember(member), actor));
  }

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
}

/** `user.password.changed`: organization-wide, as accounts are. */
const passwordChanged = (userId: string, keepSessionId: string | null): EventOf<"user.password.changed"> => ({
  type: "user.password.changed",
  organization_id: "",
  space_id: "",
  payload: { user_id: userId, keep_session_id: keepSessionId },
});
