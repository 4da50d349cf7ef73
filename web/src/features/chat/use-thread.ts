/**
 * One thread as the side panel shows it: its root and newest replies loaded (older ones a page at a time), kept
 * live by the events of its messages, and read (its items in the inbox) while it is on screen in a focused
 * window.
 */
import { type Dispatch, type SetStateAction, useCallback, useEffect, useRef, useState } from "react";
import type { Message, PostedMessage, Reaction } from "../../../../src/api-types";
import { messageOf } from "../../lib/api";
import { loadFresh, useLiveEvents } from "../../lib/events";
import { readRoom } from "../inbox/api";
import { listReplies } from "./api";
import { EMPTY_ROOM, PAGE, type RoomData, reactionChanged, upsertMessage } from "./room-state";
import { inRoomList, inThread, prependReplies, threadFromPage } from "./thread-state";

export interface ThreadState {
  data: RoomData;
  setData: Dispatch<SetStateAction<RoomData>>;
  loaded: boolean;
  error: string | null;
  olderBusy: boolean;
  loadOlder: () => Promise<void>;
}

/** The thread of `rootId` in room `roomId`; `onArrived` hears of one's own replies arriving live. */
export function useThread(
  base: string,
  spaceId: string,
  roomId: string,
  rootId: string,
  onArrived: (message: Message) => void,
  me: string,
): ThreadState {
  const [data, setData] = useState<RoomData>(EMPTY_ROOM);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [olderBusy, setOlderBusy] = useState(false);
  const dataRef = useRef(data);
  dataRef.current = data;

  // The newest page, first and after the events socket reconnects (events sent meanwhile are lost: the thread
  // is loaded anew).
  const load = useCallback(async () => {
    try {
      const page = await loadFresh(() => listReplies(base, spaceId, roomId, rootId, { limit: PAGE }));
      setData(threadFromPage(page));
      setError(null);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setLoaded(true);
    }
  }, [base, spaceId, roomId, rootId]);
  useEffect(() => {
    setLoaded(false);
    setData(EMPTY_ROOM);
    void load();
  }, [load]);

  const loadOlder = useCallback(async () => {
    const oldest = dataRef.current.messages[1];
    if (!oldest || olderBusy) return;
    setOlderBusy(true);
    try {
      const page = await listReplies(base, spaceId, roomId, rootId, { limit: PAGE, before: oldest.created_at });
      setData((d) => prependReplies(d, page));
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setOlderBusy(false);
    }
  }, [base, spaceId, roomId, rootId, olderBusy]);

  useLiveEvents((event) => {
    if (event.type === "resync") {
      void load();
      return;
    }
    if (event.space_id !== spaceId) return;
    switch (event.type) {
      case "chat.message.created": {
        const { message, attachments } = event.payload as PostedMessage;
        if (message.thread_root_id !== rootId) return;
        setData((d) => upsertMessage(d, message, attachments));
        if (message.author_user_id === me) onArrived(message);
        break;
      }
      case "chat.message.updated":
      case "chat.message.deleted": {
        const message = event.payload as Message;
        if (inThread(message, rootId)) setData((d) => upsertMessage(d, message));
        break;
      }
      case "chat.reaction.added":
      case "chat.reaction.removed":
        setData((d) => reactionChanged(d, event.type, event.payload as Reaction));
        break;
    }
  });

  useThreadReader(base, spaceId, roomId, data.messages, loaded);

  return { data, setData, loaded, error, olderBusy, loadOlder };
}

/**
 * While the thread is on screen in a focused window, its newest reply that stays in the thread is posted as
 * read: the server reads the person's items about the thread up to it, and leaves the room's read position
 * alone. (A reply sent to the room too is read with the room.)
 */
function useThreadReader(base: string, spaceId: string, roomId: string, messages: Message[], ready: boolean) {
  const posted = useRef<string | null>(null);
  let newest: Message | undefined;
  for (let i = messages.length - 1; i > 0 && !newest; i--) {
    const m = messages[i] as Message;
    if (!inRoomList(m)) newest = m;
  }
  const newestId = newest?.id;
  useEffect(() => {
    if (!ready || !newestId) return;
    const look = () => {
      if (document.visibilityState !== "visible" || !document.hasFocus() || posted.current === newestId) return;
      posted.current = newestId;
      void readRoom(base, spaceId, roomId, newestId).catch(() => undefined);
    };
    look();
    document.addEventListener("visibilitychange", look);
    addEventListener("focus", look);
    return () => {
      document.removeEventListener("visibilitychange", look);
      removeEventListener("focus", look);
    };
  }, [base, spaceId, roomId, newestId, ready]);
}
