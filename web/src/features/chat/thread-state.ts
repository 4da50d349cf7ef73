/**
 * A thread as the side panel holds it: the room's `RoomData` shape with the root as its first message and the
 * replies after it, oldest first, so the room's pure updates (a reply arriving, an edit, a reaction) apply to it
 * as they are. Pages of older replies go in after the root.
 */
import type { Message, ThreadPage } from "../../../../src/api-types";
import { fromPage, PAGE, prependPage, type RoomData } from "./room-state";

/** The newest page of a thread, as its first state. */
export function threadFromPage(page: ThreadPage, limit = PAGE): RoomData {
  const { root } = page;
  return {
    ...fromPage(
      {
        messages: [root.message, ...page.messages],
        reactions: [...root.reactions, ...page.reactions],
        attachments: [...root.attachments, ...page.attachments],
      },
      limit,
    ),
    hasMore: page.messages.length >= limit,
  };
}

/** An older page of replies, put in after the root. */
export function prependReplies(data: RoomData, page: ThreadPage, limit = PAGE): RoomData {
  const [root, ...replies] = data.messages;
  if (!root) return data;
  const next = prependPage({ ...data, messages: replies }, page, limit);
  return { ...next, messages: [root, ...next.messages] };
}

/** The thread's root: the first message held. */
export function rootOf(data: RoomData): Message | undefined {
  return data.messages[0];
}

/** Whether a message belongs in the thread of `rootId` (the root itself, or one of its replies). */
export function inThread(message: Message, rootId: string): boolean {
  return message.id === rootId || message.thread_root_id === rootId;
}

/** Whether a message shows in its room's own list: top-level, or a reply sent to the room too. */
export function inRoomList(message: Message): boolean {
  return message.thread_root_id === null || message.also_in_room;
}

/** "1 reply", "3 replies". */
export function repliesLabel(count: number): string {
  return `${count} ${count === 1 ? "reply" : "replies"}`;
}
