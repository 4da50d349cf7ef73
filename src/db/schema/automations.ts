/** Automations of a space: configured jobs a human approves before they run (running them comes later). */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations, users } from "./people";
import { spaces } from "./spaces";
import { serviceAccounts } from "./staff";

export const automations = sqliteTable(
  "automations",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    spaceId: text("space_id")
      .notNull()
      .references(() => spaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** `social_post`, `reverse_tunnel`, `scheduled` or `webhook`. */
    kind: text("kind").notNull(),
    /** The kind's JSON configuration. */
    config: text("config").notNull(),
    /** `draft`, `pending_approval`, `active`, `paused` or `rejected`. */
    status: text("status").notNull(),
    /** `v1:` ciphertext of the write-only OAuth token, for the runner. */
    oauthTokenCiphertext: text("oauth_token_ciphertext"),
    createdByUserId: text("created_by_user_id").references(() => users.id, { onDelete: "set null" }),
    createdByServiceAccountId: text("created_by_service_account_id").references(() => serviceAccounts.id, {
      onDelete: "set null",
    }),
    reviewedByUserId: text("reviewed_by_user_id").references(() => users.id, { onDelete: "set null" }),
    reviewedAt: integer("reviewed_at"),
    rejectionReason: text("rejection_reason"),
    lastRunAt: integer("last_run_at"),
    lastError: text("last_error"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("automations_space_idx").on(t.spaceId, t.createdAt, t.id),
    index("automations_org_status_idx").on(t.orgId, t.status),
    index("automations_created_by_user_idx").on(t.createdByUserId),
    index("automations_created_by_sa_idx").on(t.createdByServiceAccountId),
    index("automations_reviewed_by_idx").on(t.reviewedByUserId),
  ],
);
