/** Automations' names for people, what their statuses mean, how runs are named, and reading a configuration. */
import type { Automation, AutomationKind, AutomationRun, AutomationStatus } from "../../../../src/api-types";

/** The kinds, with their names for people. */
export const KINDS: Record<AutomationKind, string> = {
  scheduled: "Scheduled",
  webhook: "Webhook",
  social_post: "Social post",
  reverse_tunnel: "Reverse tunnel",
};

/** What each kind does, in a line (the form's kind picker). */
export const KIND_HINTS: Record<AutomationKind, string> = {
  scheduled: "On a schedule: post a message, ask a staff member, or create a task.",
  webhook: "When another service calls its signed URL: post a message, ask a staff member, or create a task.",
  social_post: "Posts to a social network through a stored OAuth token, on a schedule or on Run now.",
  reverse_tunnel: "Opens a service running on someone's machine to the space's members, through Tandem.",
};

/** The statuses, with their names for people. */
export const STATUSES: Record<AutomationStatus, string> = {
  draft: "Draft",
  pending_approval: "Waiting for approval",
  active: "Active",
  paused: "Paused",
  rejected: "Rejected",
};

/** What a status means, as a pill's tooltip. */
export const STATUS_HINTS: Record<AutomationStatus, string> = {
  draft: "Not submitted for approval yet; it runs once activated",
  pending_approval: "Waits for a person to approve or reject it; it runs once approved",
  active: "Approved: runs on its schedule, its webhook, Run now or its tunnel",
  paused: "Paused: stopped until someone resumes it",
  rejected: "Rejected by a person; stopped",
};

/** What started a run, for people. */
export const TRIGGERS: Record<AutomationRun["trigger"], string> = {
  schedule: "On schedule",
  webhook: "Webhook call",
  manual: "Run now",
  connection: "Tunnel connection",
};

/** A run's status, for people. */
export const RUN_STATUSES: Record<AutomationRun["status"], string> = {
  queued: "Queued",
  running: "Running",
  succeeded: "Succeeded",
  failed: "Failed",
};

/** The task a scheduled or webhook automation creates. */
export interface TaskConfig {
  title?: string;
  column?: string;
  assignee_user_id?: string;
  description?: string;
}

/** The configuration keys the kinds know (contract §8); anything else is kept as it is. */
export const KNOWN_KEYS: Record<AutomationKind, readonly string[]> = {
  scheduled: ["cron", "timezone", "channel", "message", "staff_user_id", "staff_prompt", "task"],
  webhook: ["channel", "template", "staff_user_id", "staff_prompt", "task"],
  social_post: ["endpoint", "text", "cron", "timezone"],
  reverse_tunnel: [],
};

/** Where a social post goes when its configuration names no endpoint. */
export const DEFAULT_SOCIAL_ENDPOINT = "https://api.x.com/2/tweets";

/** A text key of a configuration, or "" when it is missing or not text. */
export function text(config: Record<string, unknown>, key: string): string {
  const value = config[key];
  return typeof value === "string" ? value : "";
}

/** The task of a configuration, or null. */
export function taskOf(config: Record<string, unknown>): TaskConfig | null {
  const task = config.task;
  return task !== null && typeof task === "object" && !Array.isArray(task) ? (task as TaskConfig) : null;
}

/** The keys no kind knows, apart from the proposal note: kept on save, listed as other settings. */
export function otherSettings(config: Record<string, unknown>): Record<string, unknown> {
  const known = new Set([...Object.values(KNOWN_KEYS).flat(), "proposal_note"]);
  return Object.fromEntries(Object.entries(config).filter(([key]) => !known.has(key)));
}

/** What a staff member wrote when proposing it (`config.proposal_note`), or null. */
export function proposalNote(automation: Automation): string | null {
  const note = automation.config.proposal_note;
  return typeof note === "string" && note.trim() !== "" ? note : null;
}

/** A room name as the UI writes it: `#general` (a leading `#` in the configuration is not doubled). */
export function roomLabel(channel: string): string {
  return `#${channel.replace(/^#/, "")}`;
}

/** The inbound URL of a webhook automation, on this server's origin. */
export function webhookUrl(automationId: string): string {
  return `${location.origin}/api/v1/hooks/${automationId}`;
}
