/** Invites to the API's JSON, field by field: never the token or its hash. */
import { iso, isoOrNull } from "../../lib/ids";
import type { InviteOut } from "./invites.schemas";
import type { InviteRow } from "./invites.store";

export function presentInvite(row: InviteRow): InviteOut {
  return {
    id: row.id,
    email: row.email,
    role_ids: JSON.parse(row.roleIds) as string[],
    expires_at: iso(row.expiresAt),
    created_at: iso(row.createdAt),
    created_by: row.createdBy,
    accepted_at: isoOrNull(row.acceptedAt),
  };
}
