/**
 * Unread chat messages, shared by the chat screen (its per-room counts), the space's "Chat" tab and the
 * sidebar's spaces. One notion of "seen": the last message seen in each room, kept in this browser under
 * `tandem.chat.seen.<me>.<spaceId>`; a room never opened counts from when this browser started counting
 * for the space.
 *
 * The chat screen fills a space's counts when it opens (a look at each room's newest messages); messages that
 * arrive while the app is open are added here from the live events, whatever screen is shown, so other
 * screens need no request of their own.
 */

import { useSyncExternalStore } from "react";
import type { Message } from "../../../../src/api-types";
import { useLiveEvents } from "../../lib/events";
import { useLocation } from "../../lib/router";
import { useWorkspace } from "../../lib/workspace";

/** What this browser remembers of reading a space's rooms. */
export interface Seen {
  /** When this browser started counting for the space: rooms never opened count from here. */
  since: string;
  /** Per room, the `created_at` of the newest message seen. */
  rooms: Record<string, string>;
}

/** Per room, the ids of its unread messages (ids, so counts from different sources merge). */
export type RoomUnread = Record<string, ReadonlySet<string>>;

/** The localStorage key of what `me` has seen of a space's rooms. */
export function seenKey(me: string, spaceId: string): string {
  return `tandem.chat.seen.${me}.${spaceId}`;
}

/** The stored reading state of a space, or null when this browser has none yet. */
export function readSeen(me: string, spaceId: string): Seen | null {
  try {
    const raw = localStorage.getItem(seenKey(me, spaceId));
    return raw === null ? null : (JSON.parse(raw) as Seen);
  } catch {
    return null;
  }
}

/** Messages older than the page are not counted by live events: the chat screen's look covers those. */
const openedAt = new Date().toISOString();

const EMPTY: RoomUnread = Object.freeze({}) as RoomUnread;
/** Keyed by `<me>:<spaceId>`, so another account signing in in this tab starts empty. */
const state = new Map<string, RoomUnread>();
const listeners = new Set<() => void>();

const keyOf = (me: string, spaceId: string) => `${me}:${spaceId}`;

/** The unread messages of a space's rooms. */
export function getUnread(me: string, spaceId: string): RoomUnread {
  return state.get(keyOf(me, spaceId)) ?? EMPTY;
}

/** Changes a space's unread messages; `update` returns its argument when nothing changes. */
export function updateUnread(me: string, spaceId: string, update: (current: RoomUnread) => RoomUnread): void {
  const key = keyOf(me, spaceId);
  const current = state.get(key) ?? EMPTY;
  const next = update(current);
  if (next === current) return;
  state.set(key, next);
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** A space's unread messages per room, re-rendering when they change. */
export function useUnread(me: string, spaceId: string): RoomUnread {
  return useSyncExternalStore(subscribe, () => getUnread(me, spaceId));
}

/** How many unread messages a space has, leaving out the room open on screen (if any). */
export function useUnreadCount(spaceId: string): number {
  const { me } = useWorkspace();
  const unread = useUnread(me.id, spaceId);
  const open = openRoom(useLocation().path, spaceId);
  let count = 0;
  for (const [room, ids] of Object.entries(unread)) if (room !== open) count += ids.size;
  return count;
}

/** The room of `spaceId` whose chat the path shows, if any. */
function openRoom(path: string, spaceId: string): string | null {
  const parts = path.split("/");
  return parts[1] === "spaces" && parts[2] === spaceId && parts[3] === "chat" ? (parts[4] ?? null) : null;
}

/**
 * Counts messages from others arriving in rooms that are not open, in every space, while the app runs.
 * Used once, by the frame around every screen.
 */
export function useUnreadTracker(): void {
  const { me } = useWorkspace();
  const { path } = useLocation();
  useLiveEvents((event) => {
    if (event.type === "resync" || !event.space_id) return;
    const spaceId = event.space_id;
    switch (event.type) {
      case "chat.message.created": {
        const { message } = event.payload as { message: Message };
        const room = message.chat_room_id;
        if (message.author_user_id === me.id || room === openRoom(path, spaceId)) return;
        let seen = readSeen(me.id, spaceId);
        if (!seen) {
          // The first count in a space starts its clock, so the chat screen later agrees with this one.
          seen = { since: openedAt, rooms: {} };
          localStorage.setItem(seenKey(me.id, spaceId), JSON.stringify(seen));
        }
        if (message.created_at <= (seen.rooms[room] ?? seen.since)) return;
        updateUnread(me.id, spaceId, (ids) =>
          ids[room]?.has(message.id) ? ids : { ...ids, [room]: new Set(ids[room]).add(message.id) },
        );
        return;
      }
      case "chat.message.deleted": {
        const { id, chat_room_id: room } = event.payload as Message;
        updateUnread(me.id, spaceId, (ids) => {
          if (!ids[room]?.has(id)) return ids;
          const rest = new Set(ids[room]);
          rest.delete(id);
          return { ...ids, [room]: rest };
        });
        return;
      }
      case "chat.room.deleted": {
        const { id } = event.payload as { id: string };
        updateUnread(me.id, spaceId, (ids) => {
          if (!(id in ids)) return ids;
          const { [id]: _gone, ...rest } = ids;
          return rest;
        });
        return;
      }
    }
  });
}
