/** The calls behind the workspace every screen shares: who is signed in, their organization, its members and spaces. */
import type { Member, Organization, Space, User } from "../../../src/api-types";
import { api } from "./api";

/** The signed-in account. */
export async function getMe(): Promise<User> {
  return (await api<{ user: User }>("GET", "/me")).user;
}

/** The organizations the account is a member of (one per install, or none yet). */
export async function listOrganizations(): Promise<Organization[]> {
  return (await api<{ organizations: Organization[] }>("GET", "/organizations")).organizations;
}

/** What the signed-in account may do in the organization at `base`. */
export async function myPermissions(base: string): Promise<string[]> {
  return (await api<{ permissions: string[] }>("GET", `${base}/me/permissions`)).permissions;
}

/** The organization's members, people and staff, oldest first. */
export async function listMembers(base: string): Promise<Member[]> {
  return (await api<{ members: Member[] }>("GET", `${base}/members`)).members;
}

/** The spaces the account can see, oldest first. */
export async function listSpaces(base: string): Promise<Space[]> {
  return (await api<{ spaces: Space[] }>("GET", `${base}/spaces`)).spaces;
}
