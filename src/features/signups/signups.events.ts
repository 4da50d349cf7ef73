/** The events of signup decisions: the server's own (the audit log records them). */
import type { SignupRequestOut } from "./signups.schemas";

declare module "../../core/events" {
  interface EventPayloads {
    /** A signup request was approved: the account joined with `role_ids`. */
    "signup.approved": SignupRequestOut & { role_ids: string[] };
    /** A signup request was denied: the account can no longer sign in. */
    "signup.denied": SignupRequestOut;
  }
}
