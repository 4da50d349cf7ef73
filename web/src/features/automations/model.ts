/** Automations' names for people, what their statuses mean here, and the proposer's note. */
import type { Automation, AutomationKind, AutomationStatus } from "../../../../src/api-types";

/** The kinds, with their names for people. */
export const KINDS: Record<AutomationKind, string> = {
  scheduled: "Scheduled",
  webhook: "Webhook",
  social_post: "Social post",
  reverse_tunnel: "Reverse tunnel",
};

/** The statuses, with their names for people. */
export const STATUSES: Record<AutomationStatus, string> = {
  draft: "Draft",
  pending_approval: "Waiting for approval",
  active: "Active",
  paused: "Paused",
  rejected: "Rejected",
};

/**
 * Said wherever automations are listed or approved: this version stores, reviews and approves them, but nothing
 * runs them yet (docs/api.md, Automations: runners come in a later version), so "Active" must not read as running.
 */
export const NOT_RUN_YET =
  "This version of Tandem stores, reviews and approves automations but does not run them: an approved automation is marked Active, and nothing runs until a later version adds the runners.";

/** What a status means, as a pill's tooltip; "active" says that it does not run in this version. */
export const STATUS_HINTS: Record<AutomationStatus, string> = {
  draft: "Not submitted for approval yet",
  pending_approval: "Waits for a person to approve or reject it",
  active: "Approved; this version of Tandem does not run automations yet",
  paused: "Paused; this version of Tandem does not run automations yet",
  rejected: "Rejected by a person",
};

/** What a staff member wrote when proposing it (`config.proposal_note`), or null. */
export function proposalNote(automation: Automation): string | null {
  const note = automation.config.proposal_note;
  return typeof note === "string" && note.trim() !== "" ? note : null;
}
