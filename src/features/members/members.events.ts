/**
 * The events of members, roles and accounts. The live directory (contract §10: `member.joined`, `member.updated`,
 * `member.left`) is sent to every member's sockets, each with the member as `GET /members` lists them; the
 * others are the server's own, which other features follow.
 */
import type { MemberOut, RoleOut } from "./members.schemas";

/** A role as a change names it: enough to say which, after it is gone. */
export interface RoleRef {
  id: string;
  name: string;
}

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
    /** A custom role was deleted (invites stop handing it out): what it was. */
    "role.deleted": { role_id: string; name: string; permissions: string[] };
    /** A custom role was created. */
    "role.created": RoleOut;
    /** A role was renamed or its permissions changed: as it is now, and as it was. */
    "role.updated": { role: RoleOut; previous: RoleOut };
    /** A member's roles were set: the roles given and the roles taken away (never both empty). */
    "member.roles.changed": { user_id: string; added: RoleRef[]; removed: RoleRef[] };
    /** An account's password was set: its sign-in sessions end, but `keep_session_id`'s. */
    "user.password.changed": { user_id: string; keep_session_id: string | null };
    /**
     * An account was deleted (a staff member's). Rows of any number of spaces lost their author without an
     * event of their own; whatever was derived from them is stale.
     */
    "user.deleted": { user_id: string };
  }
}
