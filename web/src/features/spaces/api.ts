/** The spaces feature's calls: creating and reading a space, its members, and the git repository its staff use. */
import type { GitLink, GitLinkBody, Space, SpaceBody, SpaceMember, SpaceMemberBody } from "../../../../src/api-types";
import { api } from "../../lib/api";

const spacePath = (base: string, spaceId: string) => `${base}/spaces/${spaceId}`;

/** Creates a space with its board and `general` room; the caller owns it. */
export function createSpace(base: string, body: SpaceBody): Promise<Space> {
  return api<Space>("POST", `${base}/spaces`, body);
}

/** One space (404 `space not found` for one the caller cannot see). */
export function getSpace(base: string, spaceId: string): Promise<Space> {
  return api<Space>("GET", spacePath(base, spaceId));
}

/** The members of a space (who sees a private one), and their roles there. */
export async function listSpaceMembers(base: string, spaceId: string): Promise<SpaceMember[]> {
  return (await api<{ members: SpaceMember[] }>("GET", `${spacePath(base, spaceId)}/members`)).members;
}

/** Adds a member to a space. */
export async function addSpaceMember(base: string, spaceId: string, body: SpaceMemberBody): Promise<void> {
  await api("POST", `${spacePath(base, spaceId)}/members`, body);
}

/** Takes someone out of a space (oneself: leaving it). */
export async function removeSpaceMember(base: string, spaceId: string, userId: string): Promise<void> {
  await api("DELETE", `${spacePath(base, spaceId)}/members/${userId}`);
}

/** The space's git repository, or null when it has none. */
export async function getGitLink(base: string, spaceId: string): Promise<GitLink | null> {
  return (await api<{ git_link: GitLink | null }>("GET", `${spacePath(base, spaceId)}/git-link`)).git_link;
}

/** Links the space to a git repository. */
export async function putGitLink(base: string, spaceId: string, body: GitLinkBody): Promise<GitLink> {
  return (await api<{ git_link: GitLink }>("PUT", `${spacePath(base, spaceId)}/git-link`, body)).git_link;
}

/** Unlinks the space's git repository. */
export async function deleteGitLink(base: string, spaceId: string): Promise<void> {
  await api("DELETE", `${spacePath(base, spaceId)}/git-link`);
}
