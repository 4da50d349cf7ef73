/**
 * The events of members, roles and accounts. The live directory (contract §10: `member.joined`, `member.updated`,
 * `member.left`) is sent to every member's sockets, each with the member as `GET /members` lists them; the
 * others are the server's own, which other features follow.
 */
import type { MemberOut } from "./members.schemas";

declare module "../../core/events" {
  interface EventPayloads {
    /** Someone joined the organization: named at once everywhere. */
    "member.joined": MemberOut;
    /** A member's display name or roles changed. */
    "member.updated": MemberOut;
    /** Someone left the organization (removed, or a staff member deleted): the member as they were. */
    "member.left": MemberOut;
    /** Someone became a member of the organization (invited, approved, added, created as staff). */
    "member.added": { user_id: string };
    /** Someone stopped being a member of the organization (their spaces' memberships go too). */
    "member.removed": { user_id: string };
    /** A custom role was deleted (invites stop handing it out). */
    "role.deleted": { role_id: string };
    /** An account's password was set: its sign-in sessions end, but `keep_session_id`'s. */
    "user.password.changed": { user_id: string; keep_session_id: string | null };
    /**
     * An account was deleted (a staff member's). Rows of any number of spaces lost their author without an
     * event of their own; whatever was derived from them is stale.
     */
    "user.deleted": { user_id: string };
  }
}
