/** Who sees a space and who manages its members. */
import type { OrgActor } from "../../http/actor";
import { forbidden, missingPermission, notFound } from "../../http/errors";
import type { Need } from "../../http/permissions";
import type { SpaceWithRole } from "./spaces.store";

/** A space the caller can see, with the caller's role in it. */
export type SpaceAccess = Pick<SpaceWithRole, "id" | "orgId" | "name" | "isPrivate" | "memberRole">;

/** The actor of a route below a space. */
export interface SpaceActor extends OrgActor {
  readonly space: SpaceAccess;
}

/** Public spaces are seen by every member; private ones by their members and `org.manage` holders. */
export function canSeeSpace(actor: OrgActor, space: Pick<SpaceWithRole, "isPrivate" | "memberRole">): boolean {
  return !space.isPrivate || space.memberRole !== null || actor.permissions.has("org.manage");
}

/** 404 exactly as for a space that does not exist, so a private space's existence never leaks. */
export function assertSeesSpace(actor: OrgActor, space: SpaceWithRole | undefined): SpaceAccess {
  if (!space || !canSeeSpace(actor, space)) throw notFound("space not found");
  return {
    id: space.id,
    orgId: space.orgId,
    name: space.name,
    isPrivate: space.isPrivate,
    memberRole: space.memberRole,
  };
}

/** The permission a route needs, once the space is known to be visible. */
export function assertPermission(actor: OrgActor, need: Need): void {
  if (need !== "member" && !actor.permissions.has(need)) throw missingPermission(need);
}

/** Space members are managed by the space's owners and by `org.manage` holders. */
export function assertManagesSpace(actor: SpaceActor): void {
  if (actor.space.memberRole !== "owner" && !actor.permissions.has("org.manage")) {
    throw forbidden("only a space owner can manage its members");
  }
}
