/**
 * Who may do what to an automation. Staff propose; people decide: a service account's automation always
 * waits for a person's approval, it cannot hold an OAuth token, and it cannot approve or reject.
 */
import type { OrgActor } from "../../http/actor";
import { conflict, forbidden, invalid } from "../../http/errors";
import type { AutomationRow } from "./automations.store";

export const isServiceAccount = (actor: OrgActor) => actor.serviceAccountId !== null;

/** contract §4: a service account supplying `oauth_token` (a value, or `null` to clear it) gets 403. */
export function assertMaySetOauthToken(actor: OrgActor, token: string | null | undefined): void {
  if (token === undefined) return;
  if (isServiceAccount(actor)) throw forbidden("service accounts cannot set oauth_token");
  if (token === "") throw invalid("oauth_token: must not be empty");
}

/** Approving and rejecting: a person (with `files.write`, checked by the route), from `pending_approval` only. */
export function assertMayReview(actor: OrgActor, automation: AutomationRow): void {
  if (isServiceAccount(actor)) throw forbidden("only a person can approve or reject an automation");
  if (automation.status !== "pending_approval") throw conflict("automation is not pending approval");
}
