/**
 * The unread counts and the notification settings every screen shares: the sidebar's counts, the Inbox link,
 * the window's title, the room list, the Chat tab, mutes. One store per page, filled from the server
 * (`GET /me/unread`, the inbox's `unread`, `GET /me/notifications`) when the workspace opens, each time the
 * events socket opens and when the tab comes back into view, and kept between those by live events
 * (`chat.message.created`, `chat.read`, `inbox.item`, `inbox.read`, ...). Reading is the server's too: a room on
 * screen in a focused window posts its newest message as read, so every tab and device agrees.
 */
import { useEffect, useRef, useSyncExternalStore } from "react";
import type {
  InboxItem,
  InboxReadEvent,
  Message,
  NotificationChanges,
  NotificationSettings,
} from "../../../../src/api-types";
import { loadFresh, useLiveEvents } from "../../lib/events";
import { navigate } from "../../lib/router";
import { setTitleCount } from "../../lib/ui";
import { useWorkspace, type Workspace } from "../../lib/workspace";
import {
  countInboxUnread,
  getNotificationSettings,
  getUnread,
  markInboxRead,
  putNotificationSettings,
  readRoom,
} from "./api";
import { showItemOnDesktop } from "./desktop";
import { placeOf } from "./items";
import { checkPush, onNotificationClick, takeOpenedItem } from "./push";
import {
  EMPTY_UNREAD,
  fromServer,
  itemArrived,
  itemsRead,
  messageArrived,
  roomRead,
  type UnreadState,
} from "./unread-state";

let state: UnreadState = EMPTY_UNREAD;
let settings: NotificationSettings | null = null;
let orgId: string | null = null;
/** The room on screen in a focused window: what arrives there is read at once. */
let reading: string | null = null;
/** Messages this tab posted as read: the `chat.read` they echo back needs no new count. */
const postedHere = new Set<string>();
/** Inbox items this tab marked read (and counted so): the `inbox.read` that echoes them needs no new count. */
const itemsReadHere = new Set<string>();
/** Rooms read here that held mentions: the inbox's count is asked again once the read is posted. */
const staleRooms = new Set<string>();
/** Reads posted so far: a count that answers after one was posted may predate it, and is asked again. */
let readsPosted = 0;
const listeners = new Set<() => void>();
let ready = Promise.withResolvers<void>();

function notify(): void {
  for (const listener of listeners) listener();
}

function setState(next: UnreadState): void {
  if (next === state) return;
  state = next;
  notify();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The counts, re-rendering when they change. */
export function useUnreadState(): UnreadState {
  return useSyncExternalStore(subscribe, () => state);
}

/** The notification settings (null before they load), re-rendering when they change. */
export function useNotificationSettings(): NotificationSettings | null {
  return useSyncExternalStore(subscribe, () => settings);
}

/** The counts now (for a screen that reads them once). */
export function currentUnread(): UnreadState {
  return state;
}

/** The workspace's organization changed (or the page opened): start over. */
function reset(org: string): void {
  orgId = org;
  state = EMPTY_UNREAD;
  settings = null;
  reading = null;
  postedHere.clear();
  itemsReadHere.clear();
  staleRooms.clear();
  ready = Promise.withResolvers<void>();
  notify();
}

let latest = 0;

/** Asks the server for the counts; resolves once they are in (or failed). */
export async function refreshUnread(): Promise<void> {
  const org = orgId;
  if (!org) return;
  const request = ++latest;
  try {
    for (let attempt = 0; ; attempt++) {
      const posted = readsPosted;
      const [rooms, inbox] = await loadFresh(() => Promise.all([getUnread(org), countInboxUnread(org)]));
      if (request !== latest || org !== orgId) return;
      if (posted !== readsPosted && attempt < 2) continue;
      // The room being read shows nothing unread: its read is on its way.
      setState(reading ? roomRead(fromServer(rooms, inbox), reading) : fromServer(rooms, inbox));
      ready.resolve();
      return;
    }
  } catch {
    // Kept as they were; the next resync or visit asks again.
    ready.resolve();
  }
}

/** Resolves once the counts have been loaded at least once. */
export function unreadReady(): Promise<void> {
  return ready.promise;
}

let refreshTimer: ReturnType<typeof setTimeout> | undefined;
/** Asks again soon, once for several reasons arriving together. */
function refreshSoon(): void {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => void refreshUnread(), 250);
}

/** Nothing unread in the room here; when it held mentions, the inbox's count is asked again after its read. */
function clearRoom(roomId: string): void {
  if ((state.rooms[roomId]?.mentions ?? 0) > 0) staleRooms.add(roomId);
  setState(roomRead(state, roomId));
}

/** Marks the room read up to `messageId` here at once, and on the server (so on every tab and device). */
async function postRead(base: string, spaceId: string, roomId: string, messageId: string): Promise<void> {
  clearRoom(roomId);
  postedHere.add(messageId);
  readsPosted++;
  try {
    await readRoom(base, spaceId, roomId, messageId);
  } catch {
    // A room or message deleted meanwhile: its own events say so.
    return;
  }
  if (staleRooms.delete(roomId)) void refreshUnread();
}

/** How often a room on screen posts its read position at most. */
const READ_EVERY_MS = 1000;

/**
 * Reads the room while it is on screen in a focused window: its newest message is posted as read (at most
 * once a second), and what arrives there meanwhile does not count. `newestId` is the newest message loaded;
 * `ready` is false until the room has placed its "New messages" divider from the read position it opened at.
 */
export function useRoomReader(
  base: string,
  spaceId: string,
  roomId: string,
  newestId: string | undefined,
  ready: boolean,
): void {
  const posted = useRef<string | null>(null);
  const wanted = useRef<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const last = useRef(0);

  useEffect(() => {
    if (!ready) return;
    const flush = () => {
      timer.current = undefined;
      const id = wanted.current;
      if (!id || id === posted.current) return;
      posted.current = id;
      last.current = Date.now();
      void postRead(base, spaceId, roomId, id);
    };
    const look = () => {
      const seen = document.visibilityState === "visible" && document.hasFocus();
      if (!seen) {
        if (reading === roomId) reading = null;
        return;
      }
      reading = roomId;
      if (!newestId) return;
      wanted.current = newestId;
      // Counts of this room go at once; the post waits out the throttle.
      clearRoom(roomId);
      if (timer.current) return;
      const wait = last.current + READ_EVERY_MS - Date.now();
      if (wait <= 0) flush();
      else timer.current = setTimeout(flush, wait);
    };
    look();
    document.addEventListener("visibilitychange", look);
    addEventListener("focus", look);
    addEventListener("blur", look);
    return () => {
      document.removeEventListener("visibilitychange", look);
      removeEventListener("focus", look);
      removeEventListener("blur", look);
    };
  }, [base, spaceId, roomId, newestId, ready]);

  // Leaving the room posts what is still waiting.
  useEffect(
    () => () => {
      if (reading === roomId) reading = null;
      if (timer.current) {
        clearTimeout(timer.current);
        const id = wanted.current;
        if (id && id !== posted.current) void postRead(base, spaceId, roomId, id);
      }
    },
    [base, spaceId, roomId],
  );
}

/**
 * Marks inbox items read (the given ones, or all), counted here at once; the server tells every tab and device
 * (`inbox.read`). Throws the API's refusal.
 */
export async function markItemsRead(which: { ids: string[] } | { all: true }): Promise<void> {
  const org = orgId;
  if (!org) return;
  if ("ids" in which) for (const id of which.ids) itemsReadHere.add(id);
  setState(itemsRead(state, "all" in which ? "all" : which.ids.length));
  readsPosted++;
  try {
    await markInboxRead(org, which);
  } catch (error) {
    refreshSoon();
    throw error;
  }
}

/**
 * Items were read (`inbox.read`): all of them, counted at once; or some, on another tab or device or by reading
 * a room, for which the count is the server's to say (items read here are counted already).
 */
function inboxRead(read: InboxReadEvent): void {
  readsPosted++;
  if ("all" in read) {
    setState(itemsRead(state, "all"));
    return;
  }
  const elsewhere = read.ids.filter((id) => !itemsReadHere.delete(id));
  if (elsewhere.length > 0) refreshSoon();
}

/**
 * Opens what an item is about (from the Inbox, a desktop notification): marks it read when it is unread, then
 * goes there.
 */
export async function openItem(ws: Workspace, item: InboxItem): Promise<void> {
  if (!item.read_at) void markItemsRead({ ids: [item.id] }).catch(() => {});
  navigate(await placeOf(ws.base, item));
}

/** Loads the notification settings. */
async function loadSettings(): Promise<void> {
  const org = orgId;
  if (!org) return;
  try {
    const loaded = await getNotificationSettings(org);
    if (org !== orgId) return;
    settings = loaded;
    notify();
  } catch {
    // The profile screen asks again and shows why.
  }
}

/** Changes notification settings (a mute, the email or desktop choice); throws the API's refusal. */
export async function changeNotificationSettings(changes: NotificationChanges): Promise<NotificationSettings> {
  const org = orgId;
  if (!org) throw new Error("not signed in");
  const next = await putNotificationSettings(org, changes);
  if (org === orgId) {
    settings = next;
    notify();
    channel?.postMessage({ type: "settings", org });
  }
  return next;
}

/** Mutes or unmutes a room or space. */
export function setMuted(what: "room" | "space", id: string, muted: boolean): Promise<NotificationSettings> {
  const current = what === "room" ? (settings?.muted_room_ids ?? []) : (settings?.muted_space_ids ?? []);
  const ids = muted ? [...new Set([...current, id])] : current.filter((other) => other !== id);
  return changeNotificationSettings(what === "room" ? { muted_room_ids: ids } : { muted_space_ids: ids });
}

/** Tabs of this browser tell each other what has no live event: settings changed. */
const channel = typeof BroadcastChannel === "function" ? new BroadcastChannel("tandem.inbox") : null;
if (channel) {
  channel.onmessage = (event: MessageEvent<{ type: string; org: string | null }>) => {
    if (event.data.org !== orgId) return;
    if (event.data.type === "settings") void loadSettings();
  };
}

/**
 * Keeps the store for the workspace: loads it, follows the live events, puts the inbox's unread count in the
 * window's title, shows new items on the desktop while the tab is hidden, and keeps this browser's Web Push
 * subscription with the organization (opening the items its notifications are clicked for). Used once, by the
 * frame around every screen.
 */
export function useInboxTracker(): void {
  const ws = useWorkspace();
  const orgOf = ws.org.id;
  useEffect(() => {
    if (orgId !== orgOf) reset(orgOf);
    void refreshUnread();
    void loadSettings();
    void checkPush(orgOf);
    // A window opened by a click on a notification: its item is read (the server says so to every tab).
    const opened = takeOpenedItem();
    if (opened) void markInboxRead(orgOf, { ids: [opened] }).catch(() => {});
    return () => clearTimeout(refreshTimer);
  }, [orgOf]);

  // A click on a notification, in this window: open its item here as the Inbox does (read), or go to its place.
  useEffect(
    () =>
      onNotificationClick((message) => {
        if (message.organization_id === ws.org.id) void openItem(ws, message.item as unknown as InboxItem);
        else navigate(message.path);
      }),
    [ws],
  );

  const { inbox } = useUnreadState();
  useEffect(() => {
    setTitleCount(inbox);
    return () => setTitleCount(0);
  }, [inbox]);

  // What changed with no event while the tab was away (an item gone with its deleted task): look again.
  useEffect(() => {
    const onVisible = () => {
      if (document.visibilityState === "visible") refreshSoon();
    };
    document.addEventListener("visibilitychange", onVisible);
    return () => document.removeEventListener("visibilitychange", onVisible);
  }, []);

  useLiveEvents((event) => {
    switch (event.type) {
      case "resync":
        void refreshUnread();
        if (event.payload?.reconnected) void loadSettings();
        return;
      case "access.changed":
        refreshSoon();
        return;
      case "chat.message.created":
        setState(messageArrived(state, (event.payload as { message: Message }).message, ws.me.id, reading));
        return;
      case "chat.message.deleted": {
        const { chat_room_id: room } = event.payload as Message;
        if (state.rooms[room]) refreshSoon();
        return;
      }
      case "chat.room.deleted": {
        const { id } = event.payload as { id: string };
        // Its items went with it: the inbox's count is asked again.
        if (state.rooms[id]?.mentions) refreshSoon();
        setState(roomRead(state, id));
        return;
      }
      case "chat.read": {
        const { message_id: id } = event.payload as { message_id: string };
        // Read here: counted already. Read in another tab or device: how much is left there is the server's.
        if (!postedHere.delete(id)) refreshSoon();
        return;
      }
      case "inbox.read":
        inboxRead(event.payload as InboxReadEvent);
        return;
      case "inbox.item": {
        const item = event.payload as InboxItem;
        if (item.chat_room_id && item.chat_room_id === reading) {
          // Read with the room on the server, once its read is posted (or already was): counted again then.
          staleRooms.add(item.chat_room_id);
          refreshSoon();
        }
        setState(itemArrived(state, item, reading));
        showItemOnDesktop(item, settings, ws, () => void openItem(ws, item));
        return;
      }
    }
  });
}
