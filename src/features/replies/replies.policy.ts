/** Who may ask staff again: people, as only people wake staff (contract §4). */
import type { OrgActor } from "../../core/actor";
import { forbidden } from "../../core/errors";

/** A retry is asked by a person, never by a service account (staff never wake each other). */
export function assertMayRetry(actor: OrgActor): void {
  if (actor.serviceAccountId !== null) throw forbidden("only a person can retry a reply");
}
