/**
 * Who may do what, in one place: a principal becomes an organization's actor (a member holding a permission) or
 * a space's actor (a member who sees the space and holds the permission). The REST permission macro, the two
 * sockets and the jobs acting as staff all ask here, so a rule changes once for all of them.
 */
import { isUuid } from "../lib/ids";
import type { OrgActor, Principal, SpaceAccess, SpaceActor } from "./actor";
import { forbidden, missingPermission, notFound } from "./errors";
import type { Need } from "./permissions";

/** Turns a credential (an `Authorization` header or a bare token) into a principal; throws 401 when it cannot. */
export interface Authenticator {
  /**
   * At once for a token verified before; a promise when the JWT library must verify it (WebCrypto waits). For a
   * sound token whose sign-in session ended, `ended` is called with its principal before the 401, and may throw
   * a refusal of its own instead (what the route would tell that principal: see the permission macro).
   */
  authenticate(
    authorization: string | null | undefined,
    ended?: (principal: Principal) => void,
  ): Principal | Promise<Principal>;
  /** The same check again without waiting, for the credential `authenticate` resolved to `principal`. */
  reauthenticate(
    authorization: string | null | undefined,
    principal: Principal,
    ended?: (principal: Principal) => void,
  ): Principal;
  /**
   * Goes up whenever anyone's access may have changed in this process (a membership, a role, a space membership
   * or an account changed, a session ended). While it stands still, a check made a moment ago still holds.
   */
  accessEpoch(): number;
}

/** What access is decided from; the members and spaces features answer. */
export interface AccessSource {
  /** The member's permissions in the organization; null when the user is not a member. */
  memberPermissions(orgId: string, userId: string): ReadonlySet<string> | null;
  /** Whether the user's account waits for an owner's approval to join the organization. */
  hasPendingSignup(orgId: string, userId: string): boolean;
  /** The space (any space of the organization, visible or not) with the user's role in it. */
  spaceWithRole(orgId: string, spaceId: string, userId: string): SpaceAccess | undefined;
}

/** Where every socket learns whose access changed: a user's, or (null) anyone's. */
export interface AccessChanges {
  onChange(listener: (userId: string | null) => void): () => void;
}

/** Public spaces are seen by every member; private ones by their members and `org.manage` holders. */
export function canSeeSpace(actor: OrgActor, space: Pick<SpaceAccess, "isPrivate" | "memberRole">): boolean {
  return !space.isPrivate || space.memberRole !== null || actor.permissions.has("org.manage");
}

/** The permission a route needs, once the organization (and space) are known to be visible. */
export function assertPermission(actor: OrgActor, need: Need): void {
  if (need !== "member" && !actor.permissions.has(need)) throw missingPermission(need);
}

/** Decides access from its source. */
export class Access {
  constructor(private readonly source: AccessSource) {}

  /**
   * The actor of an organization route: a member of `orgId`, holding the permission unless `need` is `member`.
   * An organization the caller is not in answers exactly like one that does not exist.
   */
  orgActor(principal: Principal, orgId: string | undefined, need: Need): OrgActor {
    if (!orgId || !isUuid(orgId)) throw notFound("organization not found");
    const permissions = this.source.memberPermissions(orgId, principal.userId);
    if (permissions === null) {
      if (this.source.hasPendingSignup(orgId, principal.userId)) throw forbidden("signup pending approval");
      throw notFound("organization not found");
    }
    assertPermission({ ...principal, orgId, permissions }, need);
    return { ...principal, orgId, permissions };
  }

  /**
   * The actor of a route below a space: a member of the organization, then the space must be visible (404
   * `space not found` otherwise, before any 403, so a private space never shows through), then `need`.
   */
  spaceActor(principal: Principal, orgId: string | undefined, spaceId: string, need: Need): SpaceActor {
    const actor = this.orgActor(principal, orgId, "member");
    const space = this.space(actor, spaceId);
    assertPermission(actor, need);
    return { ...actor, space };
  }

  /** The space as the actor may see it, or 404 `space not found`, exactly as for a space that does not exist. */
  space(actor: OrgActor, spaceId: string): SpaceAccess {
    const space = isUuid(spaceId) ? this.source.spaceWithRole(actor.orgId, spaceId, actor.userId) : undefined;
    if (!space || !canSeeSpace(actor, space)) throw notFound("space not found");
    const { id, orgId, name, isPrivate, memberRole } = space;
    return { id, orgId, name, isPrivate, memberRole };
  }

  /** Whether the actor sees the space: `space` without the 404, for the live-event fan-out. */
  sees(actor: OrgActor, spaceId: string): boolean {
    const space = isUuid(spaceId) ? this.source.spaceWithRole(actor.orgId, spaceId, actor.userId) : undefined;
    return space !== undefined && canSeeSpace(actor, space);
  }
}
