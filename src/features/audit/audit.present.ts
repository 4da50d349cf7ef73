/** Audit records as the API shows them, field by field. */
import { iso } from "../../lib/ids";
import type { AuditEventOut } from "./audit.schemas";
import type { AuditRow } from "./audit.store";

export function presentAuditEvent(row: AuditRow): AuditEventOut {
  return {
    id: row.id,
    organization_id: row.orgId,
    action: row.action as AuditEventOut["action"],
    actor_user_id: row.actorUserId,
    actor_kind: row.actorKind as AuditEventOut["actor_kind"],
    actor_label: row.actorLabel,
    target_type: row.targetType,
    target_id: row.targetId,
    target_label: row.targetLabel,
    details: JSON.parse(row.details) as Record<string, unknown>,
    address: row.address,
    created_at: iso(row.createdAt),
  };
}
