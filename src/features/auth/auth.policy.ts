/** Rules about credentials. */
import type { Principal } from "../../core/actor";
import { forbidden } from "../../core/errors";

/** Staff sign in with their token only. */
export function assertHasPassword(principal: Principal): void {
  if (principal.serviceAccountId) throw forbidden("service accounts have no password");
}
