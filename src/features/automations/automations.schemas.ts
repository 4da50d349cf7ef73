/** Request and response schemas of automations (api-spec §4 Automations, §3 status table; contract §4). */
import { z } from "zod";
import { lazy, nameIn, timestampOut, uuidOut } from "../../http/schemas";

/** The longest OAuth token stored. */
export const OAUTH_TOKEN_MAX = 8192;

export const AUTOMATION_KINDS = ["social_post", "reverse_tunnel", "scheduled", "webhook"] as const;
/** The statuses a create or PATCH may ask for; `rejected` only comes from a review. */
export const SETTABLE_STATUSES = ["draft", "pending_approval", "active", "paused"] as const;
export const AUTOMATION_STATUSES = [...SETTABLE_STATUSES, "rejected"] as const;
export type AutomationStatus = (typeof AUTOMATION_STATUSES)[number];

const kindIn = z.enum(AUTOMATION_KINDS, { error: "kind: must be social_post, reverse_tunnel, scheduled or webhook" });
const statusIn = z.enum(SETTABLE_STATUSES, { error: "status: must be draft, pending_approval, active or paused" });
const configIn = z.record(z.string(), z.unknown(), { error: "config: must be an object" });
/**
 * Any value here: its type, length and emptiness are checked after the service-account rule
 * (`oauthTokenOf`), so staff giving one always get that rule's 403.
 */
const oauthTokenIn = z.unknown().meta({ type: "string", maxLength: OAUTH_TOKEN_MAX });

export const createAutomationIn = z.object({
  name: nameIn(200),
  kind: kindIn,
  config: configIn.optional().meta({ default: {} }),
  status: z
    .unknown()
    .optional()
    .meta({
      type: "string",
      enum: [...SETTABLE_STATUSES],
      default: "draft",
      description: "a service account's automation is always `pending_approval`",
    }),
  description: z.string().max(10_000).optional(),
  oauth_token: oauthTokenIn.optional(),
});
export type CreateAutomationIn = z.infer<typeof createAutomationIn>;

export const patchAutomationIn = z.object({
  name: nameIn(200).optional(),
  config: configIn.optional(),
  status: statusIn.optional(),
  /** (extension) From a service account: merged into `config` as `proposal_note`, as on create. */
  description: z.string().max(10_000).optional(),
  /** (extension) `null` removes the stored token. */
  oauth_token: oauthTokenIn.meta({ type: ["string", "null"] }).optional(),
});
export type PatchAutomationIn = z.infer<typeof patchAutomationIn>;

export const rejectAutomationIn = z.object({ reason: z.string().trim().max(2000).optional() }).nullish();
export type RejectAutomationIn = z.infer<typeof rejectAutomationIn>;

export const automationOut = lazy(() =>
  z
    .object({
      id: uuidOut,
      organization_id: uuidOut,
      space_id: uuidOut,
      name: z.string(),
      kind: z.enum(AUTOMATION_KINDS),
      config: z.record(z.string(), z.unknown()),
      status: z.enum(AUTOMATION_STATUSES),
      created_by_user_id: uuidOut.nullable(),
      created_by_service_account_id: uuidOut.nullable(),
      reviewed_by_user_id: uuidOut.nullable(),
      reviewed_at: timestampOut.nullable(),
      rejection_reason: z.string().nullable(),
      last_run_at: timestampOut.nullable(),
      last_error: z.string().nullable(),
      /** (extension) The next scheduled run of an active automation whose config is complete; else null. */
      next_run_at: timestampOut.nullable(),
      /** (extension) Why the config cannot run (`config.cron: required`), or null: it can. */
      config_problem: z.string().nullable(),
      /** (extension) Whether a write-only OAuth token is stored; the token itself is never shown. */
      has_oauth_token: z.boolean(),
      created_at: timestampOut,
      updated_at: timestampOut,
    })
    .meta({ id: "Automation" }),
);
export type AutomationOut = z.infer<ReturnType<typeof automationOut>>;

/** Where a run came from. */
export const RUN_TRIGGERS = ["schedule", "webhook", "manual", "connection"] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];
export const RUN_STATUSES = ["queued", "running", "succeeded", "failed"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const runOut = lazy(() =>
  z
    .object({
      id: uuidOut,
      automation_id: uuidOut,
      trigger: z.enum(RUN_TRIGGERS),
      status: z.enum(RUN_STATUSES),
      /** 1 for the first attempt; a run retried after an outside service's failure counts on. */
      attempt: z.number().int(),
      started_at: timestampOut.nullable(),
      finished_at: timestampOut.nullable(),
      error: z.string().nullable(),
      /** What it did: the message posted, the task created, the post's id; null before it ends, or when it failed. */
      output: z.record(z.string(), z.unknown()).nullable(),
      created_at: timestampOut,
    })
    .meta({ id: "AutomationRun" }),
);
export type RunOut = z.infer<ReturnType<typeof runOut>>;

/** Run now: no body, `{}`, or (a social post) the text to post. */
export const runNowIn = z.object({ text: z.string().max(10_000).optional() }).nullish();
export type RunNowIn = z.infer<typeof runNowIn>;
