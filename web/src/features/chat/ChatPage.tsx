/**
 * The chat of a space: its rooms (with unread counts and live creation and deletion) beside the open room.
 * `/spaces/:spaceId/chat` opens `general`, or the first room.
 *
 * Unread: per room, the time of the last message seen is kept in this browser (localStorage); a room created
 * or never opened counts from when this browser first opened the space's chat (or first counted a message of
 * it elsewhere). Counts come from a short look at each room's newest messages on opening, then from live events;
 * they live in the shared store of unread.ts, which the "Chat" tab and the sidebar read too.
 *
 * Deleting a room (which deletes its messages for good) is offered only to `org.manage` holders and to the
 * room's creator, and `general` only to `org.manage` holders; the API lets any `chat.write` holder do it.
 */

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { ChatRoom, Message, Space } from "../../../../src/api-types";
import { ApiError, messageOf } from "../../lib/api";
import { useLiveEvents } from "../../lib/events";
import { useLoad, useStored } from "../../lib/hooks";
import { navigate, useLocation } from "../../lib/router";
import { Empty, ErrorText, Spinner, toast, usePageTitle } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { listSpaceMembers } from "../spaces/api";
import { listMessages, listRooms } from "./api";
import type { Thinking } from "./chat-types";
import type { Candidate } from "./mentions";
import { CreateRoom, DeleteRoom } from "./RoomDialogs";
import { RoomList } from "./RoomList";
import { RoomView } from "./RoomView";
import { type RoomUnread, type Seen, seenKey, updateUnread, useUnread } from "./unread";
import { useThinking } from "./use-thinking";

/** How many of a room's newest messages are looked at to count its unread ones. */
const UNREAD_PROBE = 20;

/** The chat screen of `space`, with `roomId` open. */
export function ChatPage({ space, roomId }: { space: Space; roomId: string | null }) {
  // Per space: the stored reading state and everything loaded belong to one space.
  return <ChatScreen key={space.id} space={space} roomId={roomId} />;
}

function ChatScreen({ space, roomId }: { space: Space; roomId: string | null }) {
  const ws = useWorkspace();
  const { query } = useLocation();
  const roomsApi = useLoad(listRooms, ws.base, space.id);
  const rooms = roomsApi.data;
  const setRooms = roomsApi.setData;
  const me = ws.me.id;

  const [initialSeen] = useState<Seen>(() => ({ since: new Date().toISOString(), rooms: {} }));
  const [seen, storeSeen] = useStored<Seen>(seenKey(me, space.id), initialSeen);
  const seenRef = useRef(seen);
  seenRef.current = seen;
  // The first visit starts the clock that never-opened rooms count from.
  useEffect(() => {
    if (seenRef.current === initialSeen) storeSeen(initialSeen);
  }, [initialSeen, storeSeen]);
  const seenOf = useCallback((id: string) => seenRef.current.rooms[id] ?? seenRef.current.since, []);

  /**
   * Per room, the ids of its unread messages. Ids, not counts, so a probe's answer and the live events that
   * arrive while it is under way merge instead of one overwriting the other. Kept in the shared store, which
   * also counts live messages (on every screen) and feeds the "Chat" tab and the sidebar.
   */
  const unread = useUnread(me, space.id);
  const setUnread = useCallback(
    (update: (ids: RoomUnread) => RoomUnread) => updateUnread(me, space.id, update),
    [me, space.id],
  );
  /** Rooms whose count is a lower bound: every probed message was unread, and there may be more. */
  const [atLeast, setAtLeast] = useState<ReadonlySet<string>>(new Set());
  const thinking = useThinking(ws.base, space.id);
  const [roomsOpen, setRoomsOpen] = useState(false);
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<ChatRoom | null>(null);
  /** Why the open room opened when the one asked for is gone; shown in that room until dismissed. */
  const [notice, setNotice] = useState<{ roomId: string; text: string } | null>(null);
  /** Names of the rooms seen, so a room deleted under the reader can still be named. */
  const names = useRef(new Map<string, string>());
  for (const room of rooms ?? []) names.current.set(room.id, room.name);

  const current = rooms?.find((r) => r.id === roomId) ?? null;
  const currentId = current?.id ?? null;
  const currentRef = useRef(currentId);
  currentRef.current = currentId;
  // The window names the room ("#general · Launch · Tandem"), above the route's "Chat · Launch".
  usePageTitle(current ? `#${current.name} · ${space.name}` : null, 1);

  // No room in the URL, or one that is gone: open `general`, or the first room.
  useEffect(() => {
    if (!rooms || current) return;
    const fallback = rooms.find((r) => r.name.toLowerCase() === "general") ?? rooms[0];
    if (roomId) {
      const gone = names.current.get(roomId);
      const what = gone ? `#${gone} was deleted` : "That room no longer exists";
      // Said in the room that opens instead, not as a notice floating over its composer.
      if (fallback) setNotice({ roomId: fallback.id, text: `${what}: #${fallback.name} is open instead.` });
      else toast(`${what}.`);
    }
    if (fallback) navigate(`/spaces/${space.id}/chat/${fallback.id}`, { replace: true });
  }, [rooms, current, roomId, space.id]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the room list closes on each change of room.
  useEffect(() => setRoomsOpen(false), [currentId]);
  // The notice is about the room it opened: going elsewhere ends it.
  useEffect(() => {
    if (currentId) setNotice((n) => (n && n.roomId !== currentId ? null : n));
  }, [currentId]);

  const onSeen = useCallback(
    (id: string, at: string) => {
      const stored = seenRef.current;
      if ((stored.rooms[id] ?? "") < at) {
        const next = { ...stored, rooms: { ...stored.rooms, [id]: at } };
        seenRef.current = next;
        storeSeen(next);
      }
      setUnread((ids) => (ids[id]?.size ? { ...ids, [id]: NONE } : ids));
      setAtLeast((ids) => (ids.has(id) ? new Set([...ids].filter((other) => other !== id)) : ids));
    },
    [storeSeen, setUnread],
  );

  // Unread counts of the other rooms, from their newest messages.
  const probe = useCallback(
    async (list: ChatRoom[]) => {
      const pages = await Promise.all(
        list.map(async (room) => {
          if (room.id === currentRef.current) return [room.id, [] as Message[]] as const;
          try {
            const page = await listMessages(ws.base, space.id, room.id, { limit: UNREAD_PROBE });
            return [room.id, page.messages] as const;
          } catch (err) {
            // Deleted meanwhile: its chat.room.deleted event takes it off the list.
            if (err instanceof ApiError && err.status === 404) return [room.id, [] as Message[]] as const;
            throw err;
          }
        }),
      );
      // Read now, not before the probe: a room opened meanwhile has been seen.
      const found = pages
        .filter(([id]) => id !== currentRef.current)
        .map(([id, messages]) => {
          const after = seenOf(id);
          const unseen = messages.filter(
            (m) => m.created_at > after && m.author_user_id !== me && m.deleted_at === null,
          );
          return [id, unseen.map((m) => m.id)] as const;
        });
      setUnread((ids) => {
        const next = { ...ids };
        for (const [id, unseen] of found) if (unseen.length) next[id] = new Set([...(ids[id] ?? []), ...unseen]);
        return next;
      });
      setAtLeast(new Set(found.filter(([, unseen]) => unseen.length >= UNREAD_PROBE).map(([id]) => id)));
    },
    [ws.base, space.id, me, seenOf, setUnread],
  );
  const roomIds = rooms?.map((r) => r.id).join(",");
  // biome-ignore lint/correctness/useExhaustiveDependencies: probed once per set of rooms, not per rename.
  useEffect(() => {
    if (rooms) probe(rooms).catch((err) => toast(`Unread counts not loaded: ${messageOf(err)}`, "error"));
  }, [roomIds, probe]);

  useLiveEvents((event) => {
    if (event.type === "resync") {
      void roomsApi.reload();
      return;
    }
    if (event.space_id !== space.id) return;
    switch (event.type) {
      case "chat.room.created": {
        const room = event.payload as ChatRoom;
        setRooms((list) => (list && !list.some((r) => r.id === room.id) ? [...list, room] : list));
        break;
      }
      case "chat.room.deleted": {
        const { id } = event.payload as { id: string };
        // When it is the open room, the effect above moves to another one and says so.
        setRooms((list) => list?.filter((r) => r.id !== id));
        break;
      }
    }
  });

  // People and staff who can read this space: everyone for a public one, its members for a private one.
  const spaceMembers = useLoad(space.private ? listSpaceMembers : null, ws.base, space.id);
  const candidates = useMemo<Candidate[]>(() => {
    const allowed = space.private ? new Set(spaceMembers.data?.map((m) => m.user_id) ?? []) : null;
    return ws.members
      .filter((m) => m.user_id !== me && (!allowed || allowed.has(m.user_id)))
      .map((m) => ({ id: m.user_id, name: m.display_name, staff: m.is_service_account }));
  }, [ws.members, me, space.private, spaceMembers.data]);
  // In a private space, the others of the organization: a mention of them gets a hint, since they won't see it.
  const outsiders = useMemo<Candidate[]>(() => {
    if (!space.private || !spaceMembers.data) return [];
    const inside = new Set(spaceMembers.data.map((m) => m.user_id));
    return ws.members
      .filter((m) => m.user_id !== me && !inside.has(m.user_id))
      .map((m) => ({ id: m.user_id, name: m.display_name, staff: m.is_service_account }));
  }, [ws.members, me, space.private, spaceMembers.data]);

  const totalUnread = (rooms ?? []).reduce((sum, r) => (r.id === currentId ? sum : sum + (unread[r.id]?.size ?? 0)), 0);
  const canWrite = ws.can("chat.write");
  const canManage = ws.can("org.manage");
  const canDeleteRoom = (room: ChatRoom) =>
    canManage || (canWrite && room.name.toLowerCase() !== "general" && room.created_by === me);

  if (roomsApi.error && !rooms) return <ErrorText error={roomsApi.error} />;
  if (!rooms) return <Spinner />;

  const roomsButton = (
    <button
      type="button"
      className="chat-rooms-toggle"
      aria-expanded={roomsOpen}
      aria-controls="chat-rooms"
      onClick={() => setRoomsOpen(!roomsOpen)}
    >
      Rooms
      {totalUnread > 0 && (
        <span className="unread-badge">
          {totalUnread}
          <span className="sr-only"> unread</span>
        </span>
      )}
    </button>
  );

  return (
    <div className={`chat${roomsOpen ? " rooms-open" : ""}`}>
      <RoomList
        spaceId={space.id}
        rooms={rooms}
        currentId={currentId}
        unread={unread}
        atLeast={atLeast}
        thinking={thinking}
        canWrite={canWrite}
        open={roomsOpen}
        onClose={() => setRoomsOpen(false)}
        onCreate={() => setCreating(true)}
      />
      {current ? (
        <RoomView
          key={current.id}
          spaceId={space.id}
          room={current}
          seenOf={seenOf}
          onSeen={onSeen}
          thinking={thinking[current.id] ?? NO_THINKING}
          candidates={candidates}
          outsiders={outsiders}
          roomsButton={roomsButton}
          onDeleteRoom={canDeleteRoom(current) ? () => setDeleting(current) : null}
          notice={notice?.roomId === current.id ? notice.text : null}
          onDismissNotice={() => setNotice(null)}
          target={query.get("message")}
        />
      ) : rooms.length === 0 ? (
        <div className="chat-room">
          <div className="chat-room-head">{roomsButton}</div>
          <Empty>
            No rooms yet.
            {canWrite && (
              <>
                {" "}
                <button type="button" className="link" onClick={() => setCreating(true)}>
                  Create the first one
                </button>
                .
              </>
            )}
          </Empty>
        </div>
      ) : (
        <Spinner />
      )}
      {creating && (
        <CreateRoom
          spaceId={space.id}
          onClose={() => setCreating(false)}
          onCreated={(room) => {
            setRooms((list) => (list && !list.some((r) => r.id === room.id) ? [...list, room] : list));
          }}
        />
      )}
      {deleting && (
        <DeleteRoom
          spaceId={space.id}
          room={deleting}
          onClose={() => setDeleting(null)}
          onDeleted={() => {
            setRooms((list) => list?.filter((r) => r.id !== deleting.id));
            const next =
              rooms.find((r) => r.id !== deleting.id && r.name.toLowerCase() === "general") ??
              rooms.find((r) => r.id !== deleting.id);
            navigate(next ? `/spaces/${space.id}/chat/${next.id}` : `/spaces/${space.id}/chat`, { replace: true });
          }}
        />
      )}
    </div>
  );
}

const NO_THINKING: readonly Thinking[] = Object.freeze([]);
const NONE: ReadonlySet<string> = new Set();
