/**
 * The inbox feature's calls (contract §10): reading a room, the unread counts, the inbox and its read marks,
 * and the caller's notification settings. Each `/me/...` route names the organization in `org_id`.
 */
import type {
  InboxPage,
  NotificationChanges,
  NotificationSettings,
  RoomUnread,
  UnreadRooms,
} from "../../../../src/api-types";
import { api } from "../../lib/api";

const org = (orgId: string) => `org_id=${encodeURIComponent(orgId)}`;

/** Moves the caller's read position in a room forward to `messageId` (an older one changes nothing). */
export async function readRoom(base: string, spaceId: string, roomId: string, messageId: string): Promise<void> {
  await api("POST", `${base}/spaces/${spaceId}/chat-rooms/${roomId}/read`, { message_id: messageId });
}

/** The rooms the caller can see with something unread (muted ones included). */
export async function getUnread(orgId: string): Promise<RoomUnread[]> {
  return (await api<UnreadRooms>("GET", `/me/unread?${org(orgId)}`)).rooms;
}

/** A page of the inbox, newest first, and how many items are unread in all. */
export function getInbox(
  orgId: string,
  page: { unreadOnly?: boolean; limit?: number; before?: string } = {},
): Promise<InboxPage> {
  let query = org(orgId);
  if (page.unreadOnly) query += "&unread_only=true";
  if (page.limit) query += `&limit=${page.limit}`;
  if (page.before) query += `&before=${encodeURIComponent(page.before)}`;
  return api<InboxPage>("GET", `/me/inbox?${query}`);
}

/** How many inbox items are unread. */
export async function countInboxUnread(orgId: string): Promise<number> {
  return (await getInbox(orgId, { limit: 1 })).unread;
}

/** Marks inbox items read: the given ones, or all of them. */
export async function markInboxRead(orgId: string, which: { ids: string[] } | { all: true }): Promise<void> {
  await api("POST", "/me/inbox/read", { org_id: orgId, ...which });
}

/** The caller's notification settings. */
export function getNotificationSettings(orgId: string): Promise<NotificationSettings> {
  return api<NotificationSettings>("GET", `/me/notifications?${org(orgId)}`);
}

/** Changes the given notification settings, keeping the others; answers them all. */
export function putNotificationSettings(orgId: string, changes: NotificationChanges): Promise<NotificationSettings> {
  return api<NotificationSettings>("PUT", `/me/notifications?${org(orgId)}`, changes);
}
