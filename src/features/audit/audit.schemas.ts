/** The audit log's route: its query and its record. */
import { z } from "zod";
import { lazy, limitIn, timestampIn, timestampOut, uuidIn, uuidOut } from "../../http/schemas";

/** Every action the audit log records, grouped as Settings shows them. */
export const AUDIT_ACTIONS = [
  "member.removed",
  "member.roles.changed",
  "role.created",
  "role.updated",
  "role.deleted",
  "invite.created",
  "invite.revoked",
  "signup.approved",
  "signup.denied",
  "service_account.created",
  "service_account.updated",
  "service_account.deleted",
  "service_account.token.rotated",
  "integration.key.set",
  "integration.key.cleared",
  "organization.updated",
  "automation.approved",
  "automation.rejected",
  "file.proposal.accepted",
  "file.proposal.rejected",
  "chat.room.deleted",
  "task.deleted",
  "file.deleted",
  "backup.created",
  "backup.restored",
] as const;
/** One action of the audit log. */
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who acted: a person, a staff member, the command line (`tandem backup`), or the server on its own. */
export const ACTOR_KINDS = ["user", "service_account", "command_line", "server"] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

export const auditQuery = z.object({
  limit: limitIn.optional(),
  before: timestampIn("invalid before").optional(),
  actor_user_id: uuidIn.optional(),
  action: z.enum(AUDIT_ACTIONS).optional(),
});
export type AuditQuery = z.infer<typeof auditQuery>;

export const auditEventOut = lazy(() =>
  z
    .object({
      id: uuidOut,
      organization_id: uuidOut,
      action: z.enum(AUDIT_ACTIONS),
      /** Null for the command line and the server itself. */
      actor_user_id: uuidOut.nullable(),
      actor_kind: z.enum(ACTOR_KINDS),
      /** The actor's name at the time: a display name, a staff member's name, `command line` or `Tandem`. */
      actor_label: z.string(),
      /** `user`, `role`, `invite`, `service_account`, `integration`, `organization`, `automation`, `file_proposal`, `chat_room`, `task`, `file` or `backup`. */
      target_type: z.string(),
      /** The target's id (a provider's name for an integration); null for a backup. */
      target_id: z.string().nullable(),
      /** The target's name at the time (a task's title, a role's name, an invite's email, a backup's file). */
      target_label: z.string(),
      /** What else the act changed or concerned (the space, a role's permissions before and after); never a secret. */
      details: z.record(z.string(), z.unknown()),
      /** The client address of the request; null for the command line and the server itself. */
      address: z.string().nullable(),
      created_at: timestampOut,
    })
    .meta({ id: "AuditEvent" }),
);
export type AuditEventOut = z.infer<ReturnType<typeof auditEventOut>>;

export const auditOut = lazy(() => z.object({ events: z.array(auditEventOut()) }));
