/** Signup requests to the API's JSON, field by field. */
import { iso, isoOrNull } from "../../lib/ids";
import type { SignupRequestOut } from "./signups.schemas";
import type { SignupRequestView } from "./signups.store";

export function presentSignupRequest(row: SignupRequestView): SignupRequestOut {
  return {
    id: row.id,
    user_id: row.userId,
    email: row.email,
    display_name: row.displayName,
    status: row.status as SignupRequestOut["status"],
    created_at: iso(row.createdAt),
    resolved_at: isoOrNull(row.resolvedAt),
  };
}
