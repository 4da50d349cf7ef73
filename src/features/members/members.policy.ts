/** Rules about members: who may grant what, who must stay, what staff accounts do not have, names and emails. */
import type { Principal } from "../../core/actor";
import { conflict, forbidden, invalid, missingPermission } from "../../core/errors";
import { charCount, hasControl, isInvisible } from "../../lib/text";
import type { RoleRow } from "./members.store";

/**
 * A caller may only hand out permissions it holds itself: without this, `org.members.manage` alone could
 * grant the Owner role and climb to `org.manage`.
 */
export function assertCanGrant(held: ReadonlySet<string>, roles: readonly Pick<RoleRow, "permissions">[]): void {
  for (const role of roles) {
    for (const permission of JSON.parse(role.permissions) as string[]) {
      if (!held.has(permission)) throw missingPermission(permission);
    }
  }
}

/** Every id must name a role of the organization. */
export function assertAllRolesFound(ids: readonly string[], found: readonly RoleRow[]): void {
  if (found.length !== new Set(ids).size) throw invalid("role_ids: unknown role");
}

/** The organization must keep at least one owner. */
export function assertKeepsAnOwner(owners: number, losing: boolean): void {
  if (losing && owners <= 1) throw conflict("cannot remove the last owner");
}

/** A staff member's name is what mentions match, unique among staff: it changes only where that is kept. */
export function assertMayRenameSelf(principal: Principal): void {
  if (principal.serviceAccountId) throw forbidden("service accounts are renamed with PATCH /service-accounts/{id}");
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** An email address given outside the HTTP schemas (the CLI, setup). */
export const isEmail = (email: string) => EMAIL.test(email);

/** A name given outside the HTTP schemas (the CLI): the rules of `nameIn()`, 1 to 100 characters, one line. */
export function checkDisplayName(field: string, name: string): void {
  const length = charCount(name);
  if (length === 0 || length > 100) throw invalid(`${field}: must be 1 to 100 characters`);
  if (hasControl(name)) throw invalid(`${field}: must not contain control characters`);
  if (isInvisible(name)) throw invalid(`${field}: must contain a visible character`);
}

/** The part of an email before `@`, as a default display name. */
export function nameFromEmail(email: string): string {
  return email.split("@")[0] || email;
}
