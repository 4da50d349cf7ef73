/**
 * The audit log: one row per administrative or destructive act (a member removed, a role changed, a key set, a
 * backup made...), written in the transaction of the act itself. Rows name their actor and target as they were
 * called then, so a record outlives the account, the role or the task it names; none holds a secret.
 */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations } from "./people";

export const auditEvents = sqliteTable(
  "audit_events",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** Null for the command line or the server itself. A plain id, not a foreign key: the record outlives the account. */
    actorUserId: text("actor_user_id"),
    /** `user` (a person), `service_account` (staff), `command_line` or `server`. */
    actorKind: text("actor_kind").notNull(),
    /** Who, as they were named at the time: a display name, or `command line`. */
    actorLabel: text("actor_label").notNull(),
    /** What was done, e.g. `member.removed`. */
    action: text("action").notNull(),
    /** What it was done to: `user`, `role`, `invite`, `task`... */
    targetType: text("target_type").notNull(),
    /** The target's id; null where it has none (a backup). */
    targetId: text("target_id"),
    /** The target as it was named at the time (a deleted task's title). */
    targetLabel: text("target_label").notNull().default(""),
    /** A short JSON object of what else matters (a role's permissions before and after); never a secret. */
    details: text("details").notNull().default("{}"),
    /** The client address of the request; null for the command line and the server itself. */
    address: text("address"),
    /** Strictly increasing within an organization, so paging by `before` neither skips nor repeats a record. */
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    index("audit_events_org_idx").on(t.orgId, t.createdAt),
    index("audit_events_actor_idx").on(t.orgId, t.actorUserId, t.createdAt),
    index("audit_events_action_idx").on(t.orgId, t.action, t.createdAt),
  ],
);
