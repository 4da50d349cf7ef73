/** Accounts, members and roles to the API's JSON, field by field, so a new column never leaks. */
import { iso } from "../../lib/ids";
import type { MemberOut, RoleOut, UserOut } from "./members.schemas";
import type { MemberRow, RoleRow, UserRow } from "./members.store";

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
