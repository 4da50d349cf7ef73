/**
 * Where reading stood in a room when it opened, from the server's read position (`GET /me/unread`), so the
 * "New messages" divider is the same on every device: above the first message after the last one read, or,
 * in a room never read, after the person joined the organization (what the server counts from).
 */
import type { Message } from "../../../../src/api-types";
import { getUnread } from "../inbox/api";

export interface ReadMark {
  /** Nothing was unread when the room opened. */
  none: boolean;
  /** The last message read; null when the room was never read. */
  messageId: string | null;
  /**
   * Messages after this `created_at` are unread: the last read message's, once a loaded page holds it (until
   * then every loaded message is newer than it), or the time of joining for a room never read.
   */
  after: string | null;
}

/** The room's read position now, asked of the server. */
export async function readMarkAtOpen(orgId: string, roomId: string, joinedAt: string): Promise<ReadMark> {
  const room = (await getUnread(orgId)).find((r) => r.chat_room_id === roomId);
  if (!room || room.unread === 0) return { none: true, messageId: null, after: null };
  if (!room.last_read_message_id) return { none: false, messageId: null, after: joinedAt };
  return { none: false, messageId: room.last_read_message_id, after: null };
}

/** The mark with the last read message placed, when `messages` (a page just loaded) hold it. */
export function placeMark(mark: ReadMark | null, messages: readonly Message[]): ReadMark | null {
  if (!mark || mark.none || mark.after !== null) return mark;
  const read = messages.find((m) => m.id === mark.messageId);
  return read ? { ...mark, after: read.created_at } : mark;
}

/** Whether `m` was unread when the room opened: someone else's, not deleted, after the mark. */
export function isUnreadAt(mark: ReadMark | null, m: Message, me: string): boolean {
  if (!mark || mark.none || m.author_user_id === me || m.deleted_at !== null) return false;
  return mark.after === null || m.created_at > mark.after;
}
