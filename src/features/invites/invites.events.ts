/** The events of invites: the server's own (the audit log records them), each with the invite as listed. */
import type { InviteOut } from "./invites.schemas";

declare module "../../core/events" {
  interface EventPayloads {
    /** An invite was made (its token is never in an event). */
    "invite.created": InviteOut;
    /** An invite was revoked before anyone used it, or after. */
    "invite.revoked": InviteOut;
  }
}
