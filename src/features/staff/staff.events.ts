/**
 * The events of staff accounts: the server's own (the audit log records them), each with the account as the
 * API shows it. No token, nor its hash, is ever in one.
 */
import type { ServiceAccountOut } from "./staff.schemas";

declare module "../../core/events" {
  interface EventPayloads {
    /** A staff member was created with its first token, holding `role_ids`. */
    "service_account.created": ServiceAccountOut & { role_ids: string[] };
    /** A staff member's settings changed: as it is now, and as it was. */
    "service_account.updated": { service_account: ServiceAccountOut; previous: ServiceAccountOut };
    /** A staff member was deleted, its token with it: as it was. */
    "service_account.deleted": ServiceAccountOut;
    /** A staff member's token was replaced by a new one (the old one stops working at once). */
    "service_account.token.rotated": ServiceAccountOut;
  }
}
