/**
 * One open room: its messages (newest at the bottom, older pages loaded while scrolling up, the reading
 * position kept when they are put in front), live updates, the "thinking" line of staff replies under way,
 * and the composer.
 *
 * Scrolling: the list stays pinned to the bottom while the reader is there (new messages and images that load
 * keep it there); once they scroll up, nothing moves under them and a button offers the newest messages.
 */

import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import type { ChatRoom, Message, PostedMessage, Reaction } from "../../../../src/api-types";
import { messageOf } from "../../lib/api";
import { loadFresh, useLiveEvents } from "../../lib/events";
import { busyProps, ErrorText, Spinner } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { useAutomationNames } from "../automations/names";
import { useRoomReader } from "../inbox/unread";
import { listMessages } from "./api";
import { Composer } from "./Composer";
import type { AttachmentDraft, Thinking } from "./chat-types";
import { MessageBlocks, useRowInfos } from "./MessageBlocks";
import { type Candidate, useMentionHighlighter } from "./mentions";
import { PendingRows, RoomHeader, type RoomMenuItem, ThinkingLine } from "./RoomParts";
import { isUnreadAt, placeMark, type ReadMark, readMarkAtOpen } from "./read-mark";
import {
  EMPTY_ROOM,
  fromPage,
  mergeNewest,
  PAGE,
  prependPage,
  type RoomData,
  reactionChanged,
  upsertMessage,
} from "./room-state";
import { RowContext } from "./row-context";
import { firstVisibleRow, rowInView } from "./scroll";
import { inRoomList } from "./thread-state";
import { useRoomJump } from "./use-room-jump";
import { useRoomScroll } from "./use-room-scroll";
import { useRoomWrites } from "./use-room-writes";
import { useRowActions } from "./use-row-actions";

/**
 * The room `room` of `spaceId`. The read position it opens at (the server's: the same on every device) places
 * the "New messages" divider; while it is on screen in a focused window, it is read as messages arrive.
 */
export function RoomView({
  spaceId,
  room,
  thinking,
  candidates,
  outsiders,
  roomsButton,
  menu,
  notice,
  onDismissNotice,
  target,
  onOpenThread,
}: {
  spaceId: string;
  room: ChatRoom;
  thinking: readonly Thinking[];
  candidates: readonly Candidate[];
  /** Members who cannot read this (private) space: the composer warns when one is mentioned. */
  outsiders: readonly Candidate[];
  /** The button that shows the room list on narrow screens. */
  roomsButton: React.ReactNode;
  /** The room's actions, in the "⋯" menu of its header. */
  menu: RoomMenuItem[];
  /** Said under the header (why this room opened, say) until dismissed. */
  notice: string | null;
  onDismissNotice: () => void;
  /** The message to open the room at (`?message=`): loaded, scrolled to and highlighted. */
  target: string | null;
  /** Opens a root's thread in the side panel. */
  onOpenThread: (rootId: string) => void;
}) {
  const ws = useWorkspace();
  const [data, setData] = useState<RoomData>(EMPTY_ROOM);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [olderBusy, setOlderBusy] = useState(false);
  const [olderError, setOlderError] = useState<string | null>(null);
  /**
   * The log is busy while a batch of messages goes in (the first page, an older one), so a screen reader does
   * not read 50 messages aloud; it is cleared a frame after the batch is on the page.
   */
  const [logBusy, setLogBusy] = useState(true);
  const olderButton = useRef<HTMLButtonElement>(null);
  /** Where reading stood when the room opened (see `readMarkAtOpen`); null until it is known. */
  const readMark = useRef<ReadMark | null>(null);
  /** When the reader joined the organization: a room never read counts from then. */
  const joinedAt = useRef("");
  joinedAt.current = ws.members.find((m) => m.user_id === ws.me.id)?.joined_at ?? "";
  /** The first message not seen before: the "New messages" divider goes above it. */
  const [dividerId, setDividerId] = useState<string | null>(null);
  const dividerRef = useRef(dividerId);
  dividerRef.current = dividerId;

  const dataRef = useRef(data);
  dataRef.current = data;
  const olderLoading = useRef(false);

  const canWrite = ws.can("chat.write");
  const me = ws.me.id;
  const writes = useRoomWrites(ws.base, spaceId, room.id, me, setData);
  const sectionRef = useRef<HTMLElement>(null);
  // Mentions of members stand out in the messages, those of the viewer most.
  const highlight = useMentionHighlighter(ws.members, me);
  const { actions, editLast, overlays } = useRowActions({
    writes,
    dataRef,
    sectionRef,
    highlight,
    openThread: onOpenThread,
  });
  const { current, jumped } = actions;
  const { pending, arrived } = writes;
  const { scroller, list, stick, anchor, focusAfterOlder, newBelow, setNewBelow, onScroll, toBottom } = useRoomScroll({
    messages: data.messages,
    pending,
    loaded,
    hasMore: data.hasMore,
    olderError,
    loadOlder: () => void loadOlder(),
  });

  // Only what was unread when the room opened is "new"; messages arriving while it is watched are not.
  const isUnread = useCallback((m: Message) => isUnreadAt(readMark.current, m, me), [me]);

  // The newest page, first and after the events socket reconnects (events sent meanwhile are lost). The first
  // waits for the read position, fresh from the server, before the room reads anything.
  const loadNewest = useCallback(
    async (merge: boolean) => {
      try {
        const [page, mark] = await Promise.all([
          loadFresh(() => listMessages(ws.base, spaceId, room.id, { limit: PAGE })),
          merge ? null : readMarkAtOpen(ws.org.id, room.id, joinedAt.current),
        ]);
        if (mark) readMark.current = placeMark(mark, page.messages);
        setData((current) => (merge ? mergeNewest(current, page) : fromPage(page)));
        if (!merge) setDividerId(page.messages.find(isUnread)?.id ?? null);
        setError(null);
      } catch (err) {
        setError(messageOf(err));
      } finally {
        setLoaded(true);
      }
    },
    [ws.base, ws.org.id, spaceId, room.id, isUnread],
  );
  useEffect(() => {
    void loadNewest(false);
  }, [loadNewest]);

  const loadOlder = useCallback(
    async (limit = PAGE) => {
      const current = dataRef.current;
      const oldest = current.messages[0];
      if (olderLoading.current || !current.hasMore || !oldest) return;
      olderLoading.current = true;
      setOlderBusy(true);
      setLogBusy(true);
      setOlderError(null);
      try {
        const page = await listMessages(ws.base, spaceId, room.id, { limit, before: oldest.created_at });
        // The divider on the oldest message held so far moves up into this page when it has unread messages.
        // While the reader looks at it, the divider stays where it is on screen (the messages it moved above
        // come in below it, the read ones above); otherwise the first row in view stays put.
        readMark.current = placeMark(readMark.current, page.messages);
        const divider = dividerRef.current;
        const movesTo = divider !== null && divider === oldest.id ? page.messages.find(isUnread)?.id : undefined;
        anchor.current =
          (movesTo && divider && rowInView(scroller.current, divider, movesTo)) || firstVisibleRow(scroller.current);
        // The button goes away with the last page: the keyboard that was on it goes to the oldest message.
        if (page.messages.length < limit && document.activeElement === olderButton.current)
          focusAfterOlder.current = page.messages[0]?.id ?? null;
        setData((d) => prependPage(d, page, limit));
        // A divider on the oldest message held so far may have unread messages before it: it moves up to the
        // first unread one of this page.
        setDividerId((id) => (id !== null && id === oldest.id ? (page.messages.find(isUnread)?.id ?? id) : id));
      } catch (err) {
        setOlderError(messageOf(err));
      } finally {
        olderLoading.current = false;
        setOlderBusy(false);
      }
    },
    [ws.base, spaceId, room.id, isUnread, anchor, scroller, focusAfterOlder],
  );

  useEffect(() => {
    if (!logBusy || olderBusy || !loaded) return;
    const frame = requestAnimationFrame(() => setLogBusy(false));
    return () => cancelAnimationFrame(frame);
  }, [logBusy, olderBusy, loaded]);

  // Reading: the newest message is read while the room is on screen in a focused window.
  const newest = data.messages[data.messages.length - 1];
  useRoomReader(ws.base, spaceId, room.id, newest?.id, loaded && readMark.current !== null);

  // The list's one Tab stop is its newest message, except while the keyboard is in the list: there it stays.
  // Set before the rows are painted, so that a list on screen always has its stop.
  useLayoutEffect(() => {
    if (!newest) return;
    const inList = list.current?.contains(document.activeElement) ?? false;
    if (!inList || !dataRef.current.messages.some((m) => m.id === current.get())) current.set(newest.id);
  }, [newest, current, list]);

  useLiveEvents((event) => {
    if (event.type === "resync") {
      void loadNewest(true);
      return;
    }
    if (event.space_id !== spaceId) return;
    switch (event.type) {
      case "chat.message.created": {
        const { message, attachments } = event.payload as PostedMessage;
        // A reply that stays in its thread is the thread's (the side panel's), not the room's list's.
        if (message.chat_room_id !== room.id || !inRoomList(message)) return;
        setData((d) => upsertMessage(d, message, attachments));
        if (message.author_user_id === me) arrived(message);
        else {
          if (!stick.current) setNewBelow((n) => n + 1);
          // Arriving while the tab is in the background: new to the reader when they come back.
          if (document.visibilityState === "hidden") setDividerId((id) => id ?? message.id);
        }
        break;
      }
      case "chat.message.updated":
      case "chat.message.deleted": {
        const message = event.payload as Message;
        if (message.chat_room_id === room.id && inRoomList(message)) setData((d) => upsertMessage(d, message));
        break;
      }
      case "chat.reaction.added":
      case "chat.reaction.removed":
        setData((d) => reactionChanged(d, event.type, event.payload as Reaction));
        break;
    }
  });

  const send = useCallback(
    (content: string, attachments: AttachmentDraft[]) => {
      stick.current = true;
      return writes.send(content, attachments);
    },
    [writes.send, stick],
  );

  const jump = useRoomJump({ target, data, loaded, loadOlder, scroller, stick, jumped, current });

  const rows = useRowInfos(data.messages, dividerId);
  const automationName = useAutomationNames(spaceId, data.messages);

  const thinkingNames = [...new Set(thinking.map((t) => ws.nameOf(t.staffUserId)))];

  return (
    <section ref={sectionRef} className="chat-room" aria-label={`#${room.name}`}>
      <RoomHeader
        room={room}
        roomsButton={roomsButton}
        menu={menu}
        notice={notice ?? jump.notice}
        onDismissNotice={() => {
          onDismissNotice();
          jump.dismiss();
        }}
      />
      <div className="chat-scroll" ref={scroller} onScroll={onScroll}>
        <div
          className="chat-list"
          ref={list}
          role="log"
          aria-label={`Messages in #${room.name}`}
          aria-busy={logBusy || undefined}
        >
          {!loaded ? (
            <Spinner />
          ) : error && data.messages.length === 0 ? (
            <ErrorText error={error} />
          ) : (
            <>
              {data.hasMore ? (
                <div className="chat-older">
                  <ErrorText error={olderError} />
                  {/* One button throughout (loading, failed, ready), so the keyboard on it stays there. */}
                  <button
                    ref={olderButton}
                    type="button"
                    className={olderError ? undefined : "link"}
                    {...busyProps(olderBusy)}
                    onClick={() => void loadOlder()}
                  >
                    {olderBusy ? "Loading older messages…" : olderError ? "Try again" : "Load older messages"}
                  </button>
                </div>
              ) : (
                <div className="chat-start">
                  <h3>
                    Welcome to <span className="muted">#</span>
                    {room.name}
                  </h3>
                  <p className="muted">
                    This is the start of the room.
                    {data.messages.length === 0 && canWrite ? " Write the first message below." : ""}
                  </p>
                </div>
              )}
              <RowContext.Provider value={actions}>
                <MessageBlocks rows={rows} data={data} automationName={automationName} highlight={highlight} />
              </RowContext.Provider>
              <PendingRows pending={pending} />
              {error && data.messages.length > 0 && <ErrorText error={error} />}
            </>
          )}
        </div>
      </div>
      {newBelow > 0 && (
        <button type="button" className="chat-jump" onClick={toBottom}>
          {newBelow} new {newBelow === 1 ? "message" : "messages"} ↓
        </button>
      )}
      <ThinkingLine names={thinkingNames} />
      {canWrite ? (
        <Composer
          key={room.id}
          room={room}
          candidates={candidates}
          outsiders={outsiders}
          dropZone={sectionRef}
          onSend={send}
          onEditLast={editLast}
        />
      ) : (
        <p className="composer-readonly muted">You can read this room; posting needs the chat.write permission.</p>
      )}
      {overlays}
    </section>
  );
}
