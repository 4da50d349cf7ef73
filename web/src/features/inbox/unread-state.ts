/**
 * What needs the signed-in person, as the server counts it (`GET /me/unread`, the inbox's `unread`), and the
 * pure steps that live events take it through between two counts. Counts, not ids: the server is the one
 * source, and every step that cannot be worked out here (another tab read a room, a message was deleted) asks
 * it again instead.
 */
import type { InboxItem, Message, NotificationSettings, RoomUnread } from "../../../../src/api-types";

export interface UnreadState {
  /** False until the first count has answered. */
  loaded: boolean;
  /** Rooms with something unread, by id. */
  rooms: Readonly<Record<string, RoomUnread>>;
  /** Unread inbox items. */
  inbox: number;
}

export const EMPTY_UNREAD: UnreadState = Object.freeze({ loaded: false, rooms: Object.freeze({}), inbox: 0 });

/** The state of the server's answers. */
export function fromServer(rooms: readonly RoomUnread[], inbox: number): UnreadState {
  return { loaded: true, rooms: Object.fromEntries(rooms.map((r) => [r.chat_room_id, r])), inbox };
}

function withRoom(
  state: UnreadState,
  roomId: string,
  spaceId: string,
  change: (room: RoomUnread) => RoomUnread,
): UnreadState {
  const room = state.rooms[roomId] ?? {
    chat_room_id: roomId,
    space_id: spaceId,
    unread: 0,
    mentions: 0,
    last_read_message_id: null,
  };
  return { ...state, rooms: { ...state.rooms, [roomId]: change(room) } };
}

/**
 * A message was posted. It counts unless it is `me`'s own or lands in the room being read (`reading`: on
 * screen in a focused window), which reads it at once.
 */
export function messageArrived(state: UnreadState, message: Message, me: string, reading: string | null): UnreadState {
  if (message.author_user_id === me || message.deleted_at || message.chat_room_id === reading) return state;
  // A reply that stays in its thread is not unread in its room (the server counts it so too).
  if (message.thread_root_id !== null && !message.also_in_room) return state;
  return withRoom(state, message.chat_room_id, message.space_id, (r) => ({ ...r, unread: r.unread + 1 }));
}

/**
 * An inbox item arrived: one more unread item, and a mention more in its room (unless that room is being
 * read, where reading it reads the mention too, on the server).
 */
export function itemArrived(state: UnreadState, item: InboxItem, reading: string | null): UnreadState {
  if (item.read_at) return state;
  if (item.chat_room_id === reading && item.chat_room_id !== null) return state;
  const next = { ...state, inbox: state.inbox + 1 };
  if (item.kind !== "mention" || !item.chat_room_id) return next;
  return withRoom(next, item.chat_room_id, item.space_id, (r) => ({ ...r, mentions: r.mentions + 1 }));
}

/**
 * The room was read to its newest message here (or deleted): nothing unread in it. Its mention items are read
 * with it on the server, but some may have been read already from the Inbox: the inbox's count is the server's
 * to say, asked again once the read is posted.
 */
export function roomRead(state: UnreadState, roomId: string): UnreadState {
  if (!state.rooms[roomId]) return state;
  const { [roomId]: _read, ...rest } = state.rooms;
  return { ...state, rooms: rest };
}

/** `count` inbox items were marked read here (all of them with `"all"`). */
export function itemsRead(state: UnreadState, count: number | "all"): UnreadState {
  return { ...state, inbox: count === "all" ? 0 : Math.max(0, state.inbox - count) };
}

/** What is muted: rooms and spaces. */
export interface Muted {
  rooms: ReadonlySet<string>;
  spaces: ReadonlySet<string>;
}

/** Nothing muted (before the settings load). */
export const NOTHING_MUTED: Muted = { rooms: new Set(), spaces: new Set() };

/** The muted rooms and spaces of the settings. */
export function mutedOf(settings: NotificationSettings | null): Muted {
  if (!settings) return NOTHING_MUTED;
  return { rooms: new Set(settings.muted_room_ids), spaces: new Set(settings.muted_space_ids) };
}

/** A count as shown: unread messages (none for what is muted, as in Slack) and mentions (always). */
export interface Count {
  unread: number;
  mentions: number;
}

/** A room's count as shown. */
export function roomCount(state: UnreadState, roomId: string, spaceId: string, muted: Muted): Count {
  const room = state.rooms[roomId];
  if (!room) return { unread: 0, mentions: 0 };
  const quiet = muted.rooms.has(roomId) || muted.spaces.has(spaceId);
  return { unread: quiet ? 0 : room.unread, mentions: room.mentions };
}

/** A space's count as shown: the sum of its rooms' but `except` (the room open on screen). */
export function spaceCount(state: UnreadState, spaceId: string, muted: Muted, except: string | null = null): Count {
  const total = { unread: 0, mentions: 0 };
  for (const room of Object.values(state.rooms)) {
    if (room.space_id !== spaceId || room.chat_room_id === except) continue;
    const count = roomCount(state, room.chat_room_id, spaceId, muted);
    total.unread += count.unread;
    total.mentions += count.mentions;
  }
  return total;
}
