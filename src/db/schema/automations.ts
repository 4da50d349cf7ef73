/** Automations of a space: configured jobs a human approves before they run; their runs; webhook deliveries seen. */
import { isNotNull, sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
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
    /** The next scheduled run of an active automation whose config is complete; the scheduler's only input. */
    nextRunAt: integer("next_run_at"),
    /** Why the config cannot run (`config.cron: required`), or null. */
    configProblem: text("config_problem"),
    /** `v1:` ciphertext of a webhook's `whsec_` secret: it must be read back to check a signature. */
    webhookSecretCiphertext: text("webhook_secret_ciphertext"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("automations_space_idx").on(t.spaceId, t.createdAt, t.id),
    index("automations_org_status_idx").on(t.orgId, t.status),
    index("automations_created_by_user_idx").on(t.createdByUserId),
    index("automations_created_by_sa_idx").on(t.createdByServiceAccountId),
    index("automations_reviewed_by_idx").on(t.reviewedByUserId),
    index("automations_next_run_idx").on(t.nextRunAt).where(isNotNull(t.nextRunAt)),
  ],
);

/** One run of an automation: what started it, how it went, what it did. */
export const automationRuns = sqliteTable(
  "automation_runs",
  {
    id: text("id").primaryKey(),
    automationId: text("automation_id")
      .notNull()
      .references(() => automations.id, { onDelete: "cascade" }),
    spaceId: text("space_id").notNull(),
    /** `schedule`, `webhook`, `manual` or `connection`. */
    trigger: text("trigger").notNull(),
    /** `queued`, `running`, `succeeded` or `failed`. */
    status: text("status").notNull(),
    attempt: integer("attempt").notNull(),
    /** What the run was given, as JSON: a webhook's payload and headers, a run-now body; null for a tick. */
    input: text("input"),
    /** What the run did, as JSON (the message posted, the task created, the post's id), or null. */
    output: text("output"),
    error: text("error"),
    startedAt: integer("started_at"),
    finishedAt: integer("finished_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    index("automation_runs_automation_idx").on(t.automationId, t.createdAt, t.id),
    // The runs that wait to start, by automation: a flood of webhook deliveries is capped by their count, which
    // must not read an automation's whole history. A run leaves it when it starts.
    index("automation_runs_queued_idx").on(t.automationId).where(sql`${t.status} = 'queued'`),
  ],
);

/** Webhook deliveries already taken (their `webhook-id` or `X-GitHub-Delivery`), for 24 hours: sent again, they run nothing. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    automationId: text("automation_id")
      .notNull()
      .references(() => automations.id, { onDelete: "cascade" }),
    deliveryId: text("delivery_id").notNull(),
    runId: text("run_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.automationId, t.deliveryId] }),
    index("webhook_deliveries_created_idx").on(t.createdAt),
  ],
);
