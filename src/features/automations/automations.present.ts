/** Automation rows to JSON: the OAuth token never leaves, only whether one is stored. */
import { iso, isoOrNull } from "../../lib/ids";
import type { AutomationOut, RunOut } from "./automations.schemas";
import type { AutomationRow, RunRow } from "./automations.store";

export function presentAutomation(row: AutomationRow): AutomationOut {
  return {
    id: row.id,
    organization_id: row.orgId,
    space_id: row.spaceId,
    name: row.name,
    kind: row.kind as AutomationOut["kind"],
    config: JSON.parse(row.config) as Record<string, unknown>,
    status: row.status as AutomationOut["status"],
    created_by_user_id: row.createdByUserId,
    created_by_service_account_id: row.createdByServiceAccountId,
    reviewed_by_user_id: row.reviewedByUserId,
    reviewed_at: isoOrNull(row.reviewedAt),
    rejection_reason: row.rejectionReason,
    last_run_at: isoOrNull(row.lastRunAt),
    last_error: row.lastError,
    next_run_at: isoOrNull(row.nextRunAt),
    config_problem: row.configProblem,
    has_oauth_token: row.oauthTokenCiphertext !== null,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

export function presentRun(row: RunRow): RunOut {
  return {
    id: row.id,
    automation_id: row.automationId,
    trigger: row.trigger as RunOut["trigger"],
    status: row.status as RunOut["status"],
    attempt: row.attempt,
    started_at: isoOrNull(row.startedAt),
    finished_at: isoOrNull(row.finishedAt),
    error: row.error,
    output: row.output === null ? null : (JSON.parse(row.output) as Record<string, unknown>),
    created_at: iso(row.createdAt),
  };
}
