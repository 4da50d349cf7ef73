/**
 * The settings feature's calls: the organization, its roles, members' roles, invites, sign-up requests and the
 * audit log.
 */
import type {
  AuditEvent,
  AuditQuery,
  CreatedInvite,
  Invite,
  InviteBody,
  Organization,
  OrganizationChanges,
  Role,
  RoleBody,
  RoleChanges,
  SignupRequest,
} from "../../../../src/api-types";
import { api } from "../../lib/api";

/** Renames the organization or turns open sign-ups on or off. */
export async function patchOrganization(base: string, changes: OrganizationChanges): Promise<Organization> {
  return (await api<{ organization: Organization }>("PATCH", base, changes)).organization;
}

/** The organization's roles, the system ones first. */
export async function listRoles(base: string): Promise<Role[]> {
  return (await api<{ roles: Role[] }>("GET", `${base}/roles`)).roles;
}

/** Creates a custom role. */
export async function createRole(base: string, body: RoleBody): Promise<void> {
  await api("POST", `${base}/roles`, body);
}

/** Renames a custom role or changes a role's permissions. */
export async function patchRole(base: string, roleId: string, changes: RoleChanges): Promise<void> {
  await api("PATCH", `${base}/roles/${roleId}`, changes);
}

/** Deletes a custom role. */
export async function deleteRole(base: string, roleId: string): Promise<void> {
  await api("DELETE", `${base}/roles/${roleId}`);
}

/** Gives a member exactly these roles. */
export async function setMemberRoles(base: string, userId: string, roleIds: string[]): Promise<void> {
  await api("PUT", `${base}/members/${userId}/roles`, { role_ids: roleIds });
}

/** Takes someone out of the organization (their account stays). */
export async function removeMember(base: string, userId: string): Promise<void> {
  await api("DELETE", `${base}/members/${userId}`);
}

/** The organization's invites, newest first. */
export async function listInvites(base: string): Promise<Invite[]> {
  return (await api<{ invites: Invite[] }>("GET", `${base}/invites`)).invites;
}

/** Creates an invite; its token is in the answer, and only there. */
export function createInvite(base: string, body: InviteBody): Promise<CreatedInvite> {
  return api<CreatedInvite>("POST", `${base}/invites`, body);
}

/** Revokes an invite that was not used yet. */
export async function revokeInvite(base: string, inviteId: string): Promise<void> {
  await api("DELETE", `${base}/invites/${inviteId}`);
}

/** The sign-up requests with one status, or all of them (no status), newest first. */
export async function listSignupRequests(base: string, status?: SignupRequest["status"]): Promise<SignupRequest[]> {
  const query = status ? `?status=${status}` : "";
  return (await api<{ signup_requests: SignupRequest[] }>("GET", `${base}/signup-requests${query}`)).signup_requests;
}

/** Approves a sign-up request: the account becomes a member with these roles. */
export async function approveSignup(base: string, requestId: string, roleIds: string[]): Promise<void> {
  await api("POST", `${base}/signup-requests/${requestId}/approve`, { role_ids: roleIds });
}

/** Denies a sign-up request: the account's sessions end. */
export async function denySignup(base: string, requestId: string): Promise<void> {
  await api("POST", `${base}/signup-requests/${requestId}/deny`);
}

/** A page of the audit log (50 records), newest first: older than `before`, by one person, of one action. */
export async function listAudit(base: string, query: AuditQuery): Promise<AuditEvent[]> {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value) params.set(key, value);
  const search = params.size ? `?${params}` : "";
  return (await api<{ events: AuditEvent[] }>("GET", `${base}/audit${search}`)).events;
}
