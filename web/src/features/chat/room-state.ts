/**
 * The loaded part of one room as immutable data, and the pure updates that pages and live events apply to it.
 *
 * Every update keeps the objects it does not touch, so a memoized message row re-renders only when its own
 * message, reactions or attachments change: an event costs one row, not the whole list.
 */
import type { Attachment, Message, MessagePage, Reaction } from "../../../../src/api-types";

/** Page size of the history, as the API's default. */
export const PAGE = 50;

const NONE: readonly never[] = Object.freeze([]);

/** The loaded messages of a room, oldest first, with their reactions and attachments by message id. */
export interface RoomData {
  messages: Message[];
  reactions: Record<string, readonly Reaction[]>;
  attachments: Record<string, readonly Attachment[]>;
  /** Whether older messages may exist (the last page was full). */
  hasMore: boolean;
}

/** Nothing loaded yet. */
export const EMPTY_ROOM: RoomData = { messages: [], reactions: {}, attachments: {}, hasMore: true };

/** The reactions of a message (a shared empty list when it has none, so props stay equal). */
export function reactionsOf(data: RoomData, messageId: string): readonly Reaction[] {
  return data.reactions[messageId] ?? NONE;
}

/** The attachments of a message (a shared empty list when it has none). */
export function attachmentsOf(data: RoomData, messageId: string): readonly Attachment[] {
  return data.attachments[messageId] ?? NONE;
}

/** Messages are stamped with strictly increasing times in a room; ties (never expected) fall back to the id. */
function before(a: Message, b: Message): boolean {
  return a.created_at < b.created_at || (a.created_at === b.created_at && a.id < b.id);
}

function groupBy<T extends { message_id: string }>(items: T[]): Record<string, T[]> {
  const out: Record<string, T[]> = {};
  for (const item of items) {
    const list = out[item.message_id];
    if (list) list.push(item);
    else out[item.message_id] = [item];
  }
  return out;
}

/** The newest page, as the first state of a room. */
export function fromPage(page: MessagePage, limit = PAGE): RoomData {
  return {
    messages: page.messages,
    reactions: groupBy(page.reactions),
    attachments: groupBy(page.attachments),
    hasMore: page.messages.length >= limit,
  };
}

/** An older page put in front of what is loaded. */
export function prependPage(data: RoomData, page: MessagePage, limit = PAGE): RoomData {
  const known = new Set(data.messages.map((m) => m.id));
  const older = page.messages.filter((m) => !known.has(m.id));
  return {
    messages: [...older, ...data.messages],
    reactions: { ...groupBy(page.reactions.filter((r) => !known.has(r.message_id))), ...data.reactions },
    attachments: { ...groupBy(page.attachments.filter((a) => !known.has(a.message_id))), ...data.attachments },
    hasMore: page.messages.length >= limit,
  };
}

/**
 * The newest page fetched again (after the socket reconnected): when it reaches back to what is loaded, it is
 * merged in (messages, and the reactions and attachments of its messages, replaced); when there is a gap, it
 * replaces everything, since the messages in between are unknown.
 */
export function mergeNewest(data: RoomData, page: MessagePage, limit = PAGE): RoomData {
  const oldest = page.messages[0];
  const newest = data.messages[data.messages.length - 1];
  if (!oldest || !newest || (page.messages.length >= limit && before(newest, oldest))) return fromPage(page, limit);
  let next = data;
  for (const message of page.messages) next = upsertMessage(next, message);
  const reactions = { ...next.reactions };
  const attachments = { ...next.attachments };
  const freshReactions = groupBy(page.reactions);
  const freshAttachments = groupBy(page.attachments);
  for (const message of page.messages) {
    const r = freshReactions[message.id];
    const a = freshAttachments[message.id];
    if (r) reactions[message.id] = sameReactions(reactions[message.id], r) ? (reactions[message.id] ?? r) : r;
    else delete reactions[message.id];
    if (a) attachments[message.id] = attachments[message.id]?.length === a.length ? (attachments[message.id] ?? a) : a;
    else delete attachments[message.id];
  }
  return { ...next, reactions, attachments };
}

function sameReactions(a: readonly Reaction[] | undefined, b: readonly Reaction[]): boolean {
  if (!a || a.length !== b.length) return false;
  return a.every((r, i) => r.user_id === b[i]?.user_id && r.emoji === b[i]?.emoji);
}

/** A new or changed message in its place (by time); the same state when nothing changed. */
export function upsertMessage(data: RoomData, message: Message, attachments?: readonly Attachment[]): RoomData {
  const list = data.messages;
  let at = list.length;
  // Live messages are nearly always the newest: search from the end.
  while (at > 0 && before(message, list[at - 1] as Message)) at--;
  const existing = at > 0 && list[at - 1]?.id === message.id ? at - 1 : list.findIndex((m) => m.id === message.id);
  let messages: Message[];
  if (existing >= 0) {
    const old = list[existing] as Message;
    if (
      old.updated_at === message.updated_at &&
      old.deleted_at === message.deleted_at &&
      old.content === message.content &&
      old.reply_count === message.reply_count
    )
      messages = list;
    else {
      messages = list.slice();
      messages[existing] = message;
    }
  } else {
    // A message older than everything loaded while older pages remain belongs to a page not loaded yet.
    if (at === 0 && data.hasMore && list.length > 0) return data;
    messages = [...list.slice(0, at), message, ...list.slice(at)];
  }
  let next: RoomData = messages === list ? data : { ...data, messages };
  if (message.deleted_at) {
    // The API drops a deleted message's reactions and attachments.
    if (next.reactions[message.id] || next.attachments[message.id]) {
      const reactions = { ...next.reactions };
      const files = { ...next.attachments };
      delete reactions[message.id];
      delete files[message.id];
      next = { ...next, reactions, attachments: files };
    }
  } else if (attachments && attachments.length > 0 && !next.attachments[message.id]) {
    next = { ...next, attachments: { ...next.attachments, [message.id]: attachments } };
  }
  return next;
}

/** Whether the message is loaded. */
export function hasMessage(data: RoomData, messageId: string): boolean {
  for (let i = data.messages.length - 1; i >= 0; i--) if (data.messages[i]?.id === messageId) return true;
  return false;
}

/** A reaction added (once: adding the same one again changes nothing). */
export function addReaction(data: RoomData, reaction: Reaction): RoomData {
  if (!hasMessage(data, reaction.message_id)) return data;
  const list = data.reactions[reaction.message_id] ?? NONE;
  if (list.some((r) => r.user_id === reaction.user_id && r.emoji === reaction.emoji)) return data;
  return { ...data, reactions: { ...data.reactions, [reaction.message_id]: [...list, reaction] } };
}

/** A reaction removed. */
export function removeReaction(data: RoomData, reaction: Pick<Reaction, "message_id" | "user_id" | "emoji">): RoomData {
  const list = data.reactions[reaction.message_id];
  if (!list) return data;
  const rest = list.filter((r) => !(r.user_id === reaction.user_id && r.emoji === reaction.emoji));
  if (rest.length === list.length) return data;
  const reactions = { ...data.reactions };
  if (rest.length) reactions[reaction.message_id] = rest;
  else delete reactions[reaction.message_id];
  return { ...data, reactions };
}

/** A reaction event (`chat.reaction.added` or `.removed`) applied. */
export function reactionChanged(data: RoomData, type: string, reaction: Reaction): RoomData {
  return type === "chat.reaction.added" ? addReaction(data, reaction) : removeReaction(data, reaction);
}

/** One emoji's chip: how many reacted, whether the viewer did, and who (for the tooltip). */
export interface ReactionGroup {
  emoji: string;
  count: number;
  mine: boolean;
  userIds: string[];
}

/** Reactions grouped by emoji, in the order each emoji was first used. */
export function groupReactions(reactions: readonly Reaction[], me: string): ReactionGroup[] {
  const groups = new Map<string, ReactionGroup>();
  for (const r of reactions) {
    let group = groups.get(r.emoji);
    if (!group) {
      group = { emoji: r.emoji, count: 0, mine: false, userIds: [] };
      groups.set(r.emoji, group);
    }
    group.count++;
    group.userIds.push(r.user_id);
    if (r.user_id === me) group.mine = true;
  }
  return [...groups.values()];
}
