/**
 * The chat of a space: its rooms (with unread counts and live creation and deletion) beside the open room, and
 * a thread of it beside that (`?thread=<rootId>`). `/spaces/:spaceId/chat` opens `general`, or the first room;
 * `?message=<id>` opens the room at a message, or, for a reply in a thread, the thread at the reply beside the
 * room at its root.
 *
 * Unread counts and mentions are the server's (the inbox feature's store, which the "Chat" tab and the sidebar
 * read too); the open room, on screen in a focused window, is read as its messages arrive.
 *
 * Deleting a room (which deletes its messages for good) is offered only to `org.manage` holders and to the
 * room's creator, and `general` only to `org.manage` holders; the API lets any `chat.write` holder do it.
 */

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { ChatRoom, Space } from "../../../../src/api-types";
import { useLiveEvents } from "../../lib/events";
import { useLoad } from "../../lib/hooks";
import { navigate, useLocation } from "../../lib/router";
import { copy, Empty, ErrorText, Spinner, toast, usePageTitle } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { Counts, useSpaceCount } from "../inbox/Counts";
import { listSpaceMembers } from "../spaces/api";
import { listReplies, listRooms } from "./api";
import type { Thinking } from "./chat-types";
import type { Candidate } from "./mentions";
import { CreateRoom, DeleteRoom } from "./RoomDialogs";
import { RoomList } from "./RoomList";
import type { RoomMenuItem } from "./RoomParts";
import { RoomView } from "./RoomView";
import { ThreadPanel } from "./ThreadPanel";
import { useThinking } from "./use-thinking";

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

  // A message asked for (`?message=`) that is a reply opens its thread beside the room, the room at its root.
  const place = useMessagePlace(ws.base, space.id, currentId, query.get("message"));
  const threadId = query.get("thread") ?? place?.root ?? null;
  const roomTarget = place ? (place.root ?? place.message) : null;
  const roomPath = `/spaces/${space.id}/chat/${currentId}`;
  const openThread = useCallback((rootId: string) => navigate(`${roomPath}?thread=${rootId}`), [roomPath]);
  const closeThread = useCallback(() => navigate(roomPath, { replace: true }), [roomPath]);

  const others = useSpaceCount(space.id);
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
      <Counts count={others} />
    </button>
  );

  // The room's actions, in its header's "⋯" menu.
  const menu: RoomMenuItem[] = current
    ? [
        {
          label: "Copy link to room",
          run: () => void copy(`${location.origin}${roomPath}`, "Link to the room copied"),
        },
        ...(canDeleteRoom(current) ? [{ label: "Delete room", danger: true, run: () => setDeleting(current) }] : []),
      ]
    : [];

  return (
    <div className={`chat${roomsOpen ? " rooms-open" : ""}${current && threadId ? " thread-open" : ""}`}>
      <RoomList
        spaceId={space.id}
        rooms={rooms}
        currentId={currentId}
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
          thinking={thinking[current.id] ?? NO_THINKING}
          candidates={candidates}
          outsiders={outsiders}
          roomsButton={roomsButton}
          menu={menu}
          notice={notice?.roomId === current.id ? notice.text : null}
          onDismissNotice={() => setNotice(null)}
          target={roomTarget}
          onOpenThread={openThread}
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
      {current && threadId && (
        <ThreadPanel
          key={threadId}
          spaceId={space.id}
          room={current}
          rootId={threadId}
          target={place?.root ? place.message : null}
          candidates={candidates}
          outsiders={outsiders}
          onClose={closeThread}
        />
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

/**
 * Where a message asked for by id is: its id, and its thread's root when it is a reply (null at the top level,
 * or when it is not found: the room says so). Null while it is being looked up.
 */
function useMessagePlace(
  base: string,
  spaceId: string,
  roomId: string | null,
  messageId: string | null,
): { message: string; root: string | null } | null {
  const [place, setPlace] = useState<{ message: string; root: string | null } | null>(null);
  useEffect(() => {
    setPlace(null);
    if (!roomId || !messageId) return;
    let stale = false;
    listReplies(base, spaceId, roomId, messageId, { limit: 1 }).then(
      (page) => {
        const root = page.root.message.id;
        if (!stale) setPlace({ message: messageId, root: root === messageId ? null : root });
      },
      () => !stale && setPlace({ message: messageId, root: null }),
    );
    return () => {
      stale = true;
    };
  }, [base, spaceId, roomId, messageId]);
  return place;
}
