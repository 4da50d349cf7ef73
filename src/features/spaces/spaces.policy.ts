/** Who manages a space's members, and who may point its staff at a repository. */
import type { SpaceActor } from "../../core/actor";
import { forbidden } from "../../core/errors";

/** Space members are managed by the space's owners and by `org.manage` holders. */
export function assertManagesSpace(actor: SpaceActor): void {
  if (actor.space.memberRole !== "owner" && !actor.permissions.has("org.manage")) {
    throw forbidden("only a space owner can manage its members");
  }
}

/**
 * Only a person links the space to a repository or removes the link: an `agent` staff member works on the
 * repository it names, and staff propose while people decide (a staff member could otherwise point itself, and
 * every other agent of the space, at a repository of its choosing).
 */
export function assertPersonLinksRepository(actor: SpaceActor): void {
  if (actor.serviceAccountId !== null) throw forbidden("only a person can change the space's git link");
}
