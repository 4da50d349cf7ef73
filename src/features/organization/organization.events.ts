/** The events of the organization's settings: the server's own (the audit log records them). */
import type { OrganizationOut } from "./organization.schemas";

declare module "../../core/events" {
  interface EventPayloads {
    /** The organization was renamed, or open signups turned on or off: as it is now, and as it was. */
    "organization.updated": { organization: OrganizationOut; previous: OrganizationOut };
  }
}
