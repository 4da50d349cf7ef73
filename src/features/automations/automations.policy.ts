/**
 * Who may do what to an automation. Staff propose; people decide: a service account's automation always
 * waits for a person's approval, it cannot hold an OAuth token, and it cannot approve or reject.
 */
import type { OrgActor } from "../../core/actor";
import { conflict, forbidden, invalid } from "../../core/errors";
import { OAUTH_TOKEN_MAX } from "./automations.schemas";
import type { AutomationRow } from "./automations.store";

export const isServiceAccount = (actor: OrgActor) => actor.serviceAccountId !== null;

/**
 * The `oauth_token` a caller gave, checked: contract §4 first (a service account supplying one, whatever its
 * value, `null` included, gets 403), then the value: a non-empty string, or `null` where it may be cleared.
 */
export function oauthTokenOf(actor: OrgActor, token: unknown, clearable: boolean): string | null | undefined {
  if (token === undefined) return undefined;
  if (isServiceAccount(actor)) throw forbidden("service accounts cannot set oauth_token");
  if (token === null && clearable) return null;
  if (typeof token !== "string") throw invalid("oauth_token: must be a string");
  if (token === "") throw invalid("oauth_token: must not be empty");
  if (token.length > OAUTH_TOKEN_MAX) throw invalid(`oauth_token: must be at most ${OAUTH_TOKEN_MAX} characters`);
  return token;
}

/**
 * Deleting: a service account may only withdraw a proposal of its own that still waits for review; what a
 * person made or approved, a person deletes (as staff never delete files).
 */
export function assertMayDelete(actor: OrgActor, automation: AutomationRow): void {
  if (!isServiceAccount(actor)) return;
  if (automation.createdByServiceAccountId !== actor.serviceAccountId || automation.status !== "pending_approval") {
    throw forbidden("service accounts can only delete their own pending proposals");
  }
}

/** A rule for people only (service accounts propose; people decide), refused with `message`. */
export const assertPerson = (message: string) => (actor: OrgActor) => {
  if (isServiceAccount(actor)) throw forbidden(message);
};

/** Approving and rejecting: a person (with `files.write`, checked by the route). */
export function assertMayReview(actor: OrgActor): void {
  if (isServiceAccount(actor)) throw forbidden("only a person can approve or reject an automation");
}

/** Only an automation waiting for review is approved or rejected. */
export function assertPendingApproval(automation: AutomationRow): void {
  if (automation.status !== "pending_approval") throw conflict("automation is not pending approval");
}
