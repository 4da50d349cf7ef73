/** Who manages a space's members. */
import type { SpaceActor } from "../../core/actor";
import { forbidden } from "../../core/errors";

/** Space members are managed by the space's owners and by `org.manage` holders. */
export function assertManagesSpace(actor: SpaceActor): void {
  if (actor.space.memberRole !== "owner" && !actor.permissions.has("org.manage")) {
    throw forbidden("only a space owner can manage its members");
  }
}
