/** The organization to the API's JSON, field by field. */
import { iso } from "../../lib/ids";
import type { OrganizationOut } from "./organization.schemas";
import type { OrgRow } from "./organization.store";

export function presentOrganization(row: OrgRow): OrganizationOut {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    open_signups_enabled: row.openSignupsEnabled,
    created_at: iso(row.createdAt),
  };
}
