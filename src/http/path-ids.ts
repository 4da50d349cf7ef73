/**
 * The ids in a route's path and the 404 each brings, for an unknown, malformed or invisible id (contract §4: a
 * malformed UUID in a path is the resource's not-found). Used by the permission macro, which refuses a malformed
 * id before the body is looked at, and by the OpenAPI document, which declares each one.
 */

import { notFound } from "../core/errors";
import { isUuid } from "../lib/ids";

const NOT_FOUND_OF: Record<string, string> = {
  orgId: "organization not found",
  spaceId: "space not found",
  roleId: "role not found",
  inviteId: "invite not found",
  requestId: "signup request not found",
  serviceAccountId: "service account not found",
  provider: "page not found",
  fileId: "file not found",
  nodeId: "file not found",
  proposalId: "proposal not found",
  taskId: "task not found",
  columnId: "column not found",
  labelId: "label not found",
  fileNodeId: "deliverable not found",
  roomId: "chat room not found",
  messageId: "message not found",
  automationId: "automation not found",
};

/** The not-found message of path parameter `param` in `path`; `userId` names an organization's member, or a space's below a space. */
export function notFoundOf(param: string, path: string): string | undefined {
  if (param === "userId") return path.includes("/spaces/") ? "space member not found" : "member not found";
  return NOT_FOUND_OF[param];
}

/** Checked by the macro before it: the organization and the space, whose 404s come from who may see them. */
const CHECKED_FIRST = new Set(["orgId", "spaceId", "provider"]);

/**
 * Refuses a path id that is not a UUID with its resource's 404, whatever the body holds (a request wrong in both
 * ways would otherwise get the body's 400 first). Ids that are UUIDs are looked up by the route.
 */
export function assertPathIds(params: Record<string, string | undefined> | undefined, path: string): void {
  if (!params) return;
  for (const key in params) {
    if (CHECKED_FIRST.has(key)) continue;
    const message = notFoundOf(key, path);
    if (message !== undefined && !isUuid(params[key] ?? "")) throw notFound(message);
  }
}
