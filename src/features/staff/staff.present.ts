/** Service-account rows to JSON; the token hash never leaves. */
import { iso } from "../../lib/ids";
import type { ServiceAccountOut } from "./staff.schemas";
import type { ServiceAccountRow } from "./staff.store";

export function presentServiceAccount(row: ServiceAccountRow): ServiceAccountOut {
  return {
    id: row.id,
    organization_id: row.orgId,
    user_id: row.userId,
    name: row.name,
    created_by: row.createdBy,
    created_at: iso(row.createdAt),
    provider: row.provider as ServiceAccountOut["provider"],
    modelrouter_model: row.modelrouterModel,
    agent_default_repo_url: row.agentDefaultRepoUrl,
    agent_default_ref: row.agentDefaultRef,
    instructions: row.instructions,
  };
}
