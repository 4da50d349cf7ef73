/** How the audit log reads to people: each action in words, and what a record's details say, in one line. */
import type { AuditAction, AuditEvent } from "../../../../src/api-types";
import { formatSize } from "../../lib/size";

/** Each action in words: every action the log records has one (a new one fails to compile until named). */
const ACTION_NAMES: Record<AuditAction, string> = {
  "member.removed": "Removed a member",
  "member.roles.changed": "Changed a member's roles",
  "role.created": "Created a role",
  "role.updated": "Changed a role",
  "role.deleted": "Deleted a role",
  "invite.created": "Created an invite",
  "invite.revoked": "Revoked an invite",
  "signup.approved": "Approved a sign-up",
  "signup.denied": "Denied a sign-up",
  "service_account.created": "Created a staff member",
  "service_account.updated": "Changed a staff member",
  "service_account.deleted": "Deleted a staff member",
  "service_account.token.rotated": "Replaced a staff member's token",
  "integration.key.set": "Set a provider key",
  "integration.key.cleared": "Removed a provider key",
  "organization.updated": "Changed the organization",
  "automation.approved": "Approved an automation",
  "automation.rejected": "Rejected an automation",
  "file.proposal.accepted": "Accepted a file proposal",
  "file.proposal.rejected": "Rejected a file proposal",
  "chat.room.deleted": "Deleted a chat room",
  "task.deleted": "Deleted a task",
  "file.deleted": "Deleted a file",
  "backup.created": "Made a backup",
  "backup.restored": "Restored a backup",
};

/** The actions, grouped as the action filter lists them. */
export const ACTION_GROUPS: { label: string; actions: AuditAction[] }[] = [
  {
    label: "Members and roles",
    actions: ["member.removed", "member.roles.changed", "role.created", "role.updated", "role.deleted"],
  },
  { label: "Invites and sign-ups", actions: ["invite.created", "invite.revoked", "signup.approved", "signup.denied"] },
  {
    label: "Staff, keys and the organization",
    actions: [
      "service_account.created",
      "service_account.updated",
      "service_account.deleted",
      "service_account.token.rotated",
      "integration.key.set",
      "integration.key.cleared",
      "organization.updated",
    ],
  },
  {
    label: "Approvals",
    actions: ["automation.approved", "automation.rejected", "file.proposal.accepted", "file.proposal.rejected"],
  },
  { label: "Deletions", actions: ["chat.room.deleted", "task.deleted", "file.deleted"] },
  { label: "Backups", actions: ["backup.created", "backup.restored"] },
];

/** An action in words. */
export const nameOfAction = (action: AuditAction): string => ACTION_NAMES[action];

/** Whether `value` is an action the log records (a filter read from the address may be anything). */
export function isAction(value: string | null): value is AuditAction {
  return value !== null && Object.hasOwn(ACTION_NAMES, value);
}

/** The record's action in words ("Deleted a folder" for a folder). */
export function actionName(event: AuditEvent): string {
  if (event.action === "file.deleted" && event.details.kind === "folder") return "Deleted a folder";
  return ACTION_NAMES[event.action] ?? event.action;
}

/** Who acted, in words: a name (staff marked so), the command line, or Tandem itself. */
export function actorName(event: AuditEvent): string {
  switch (event.actor_kind) {
    case "command_line":
      return "Command line";
    case "server":
      return "Tandem";
    case "service_account":
      return `${event.actor_label || "Former AI staff"} (staff)`;
    default:
      return event.actor_label || "Former member";
  }
}

const PROVIDER_NAMES: Record<string, string> = { modelrouter: "Model gateway key", agent: "Cloud agents key" };

/** What the act was done to, in words. */
export function targetName(event: AuditEvent): string {
  if (event.target_type === "integration") return PROVIDER_NAMES[event.target_id ?? ""] ?? event.target_label;
  if (event.target_type === "invite" && !event.target_label) return "Link for anyone";
  if (event.target_type === "chat_room") return `#${event.target_label}`;
  return event.target_label || "(no name)";
}

const str = (value: unknown) => (typeof value === "string" ? value : "");

/** A value of a change, in words. */
function shown(value: unknown): string {
  if (value === null || value === undefined || value === "") return "none";
  if (value === true) return "on";
  if (value === false) return "off";
  if (Array.isArray(value)) return value.length ? value.join(", ") : "none";
  return String(value);
}

/** `{field: {from, to}}` in words: `name: A → B; permissions: x → x, y`. */
function changesText(changes: unknown): string {
  if (!changes || typeof changes !== "object") return "";
  return Object.entries(changes as Record<string, { from: unknown; to: unknown }>)
    .map(([field, { from, to }]) => `${field.replaceAll("_", " ")}: ${shown(from)} → ${shown(to)}`)
    .join("; ");
}

/** Role names of `[{id, name}]`. */
function rolesText(roles: unknown): string {
  return Array.isArray(roles) ? roles.map((role) => str((role as { name?: unknown }).name)).join(", ") : "";
}

/** What else a record says, in one line (empty when nothing). */
export function detailsText(event: AuditEvent): string {
  const d = event.details;
  const parts: string[] = [];
  if (str(d.space_name)) parts.push(`in ${str(d.space_name)}`);
  switch (event.action) {
    case "member.roles.changed": {
      const added = rolesText(d.added);
      const removed = rolesText(d.removed);
      if (added) parts.push(`gave ${added}`);
      if (removed) parts.push(`took away ${removed}`);
      break;
    }
    case "role.created":
    case "role.deleted":
      parts.push(`permissions: ${shown(d.permissions)}`);
      break;
    case "role.updated":
    case "organization.updated":
    case "service_account.updated":
      parts.push(changesText(d.changes));
      break;
    case "invite.created":
    case "signup.approved":
      if (rolesText(d.roles)) parts.push(`roles: ${rolesText(d.roles)}`);
      break;
    case "service_account.created":
      parts.push(`${str(d.provider)}${rolesText(d.roles) ? `, roles: ${rolesText(d.roles)}` : ""}`);
      break;
    case "integration.key.set":
      if (d.replaced === true) parts.push("replaced the stored key");
      break;
    case "automation.rejected":
      if (str(d.reason)) parts.push(`“${str(d.reason)}”`);
      break;
    case "member.removed":
    case "signup.denied":
      if (str(d.email)) parts.push(str(d.email));
      break;
    case "backup.created":
    case "backup.restored":
      if (typeof d.bytes === "number") parts.push(formatSize(d.bytes));
      break;
  }
  return parts.filter(Boolean).join(" · ");
}
