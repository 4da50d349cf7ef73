/** Rows to the API's JSON, field by field, so a new column never leaks. */
import { iso, isoOrNull } from "../../lib/ids";
import type { InviteOut, MemberOut, OrganizationOut, RoleOut, SignupRequestOut, UserOut } from "./people.schemas";
import type { InviteRow, MemberRow, OrgRow, RoleRow, SignupRequestView, UserRow } from "./people.store";

export function presentOrganization(row: OrgRow): OrganizationOut {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    open_signups_enabled: row.openSignupsEnabled,
    created_at: iso(row.createdAt),
  };
}

export function presentUser(row: UserRow, serviceAccountId: string | null): UserOut {
  return {
    id: row.id,
    email: row.email,
    display_name: row.displayName,
    created_at: iso(row.createdAt),
    service_account_id: serviceAccountId,
  };
}

export function presentMember(row: MemberRow): MemberOut {
  return {
    user_id: row.userId,
    email: row.email,
    display_name: row.displayName,
    is_service_account: row.serviceAccountId !== null,
    service_account_id: row.serviceAccountId,
    role_ids: row.roleIds,
    joined_at: iso(row.joinedAt),
  };
}

export function presentRole(row: RoleRow): RoleOut {
  return {
    id: row.id,
    organization_id: row.orgId,
    name: row.name,
    is_system: row.systemKey !== null,
    permissions: JSON.parse(row.permissions) as string[],
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

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
