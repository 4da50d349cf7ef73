/**
 * One open room: its messages (newest at the bottom, older pages loaded while scrolling up, the reading
 * position kept when they are put in front), live updates, the "thinking" line of staff replies under way,
 * and the composer.
 *
 * Scrolling: the list stays pinned to the bottom while the reader is there (new messages and images that load
 * keep it there); once they scroll up, nothing moves under them and a button offers the newest messages.
 */

import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { ChatRoom, Message, MessageBody, PostedMessage, Reaction } from "../../../../src/api-types";
import { ApiError, messageOf } from "../../lib/api";
import { ConfirmDialog } from "../../lib/dialogs";
import { loadFresh, useLiveEvents } from "../../lib/events";
import { Markdown } from "../../lib/markdown";
import { busyProps, ErrorText, Spinner, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import {
  deleteMessage,
  removeReaction as deleteReaction,
  editMessage,
  listMessages,
  postMessage,
  addReaction as postReaction,
} from "./api";
import { Composer, type SendFailure } from "./Composer";
import type { AttachmentDraft, Thinking } from "./chat-types";
import { EmojiPicker } from "./EmojiPicker";
import { LinkIcon, TrashIcon } from "./icons";
import { MessageBlocks, useRowInfos } from "./MessageBlocks";
import { createEditing, createSelection, type RowActions, RowContext } from "./MessageRow";
import { type Candidate, useMentionHighlighter } from "./mentions";
import {
  addReaction,
  EMPTY_ROOM,
  fromPage,
  mergeNewest,
  PAGE,
  prependPage,
  type RoomData,
  reactionsOf,
  removeReaction,
  upsertMessage,
} from "./room-state";

/** Older messages are fetched when the reader comes this close to the top. */
const NEAR_TOP_PX = 600;
/** Within this of the bottom counts as "at the bottom". */
const NEAR_BOTTOM_PX = 48;

/** A message being sent, shown until the server has it. */
interface Pending {
  key: string;
  content: string;
  attachments: AttachmentDraft[];
}

/** The room `room` of `spaceId`. What was seen before it opened places the "New messages" divider. */
export function RoomView({
  spaceId,
  room,
  seenOf,
  onSeen,
  thinking,
  candidates,
  outsiders,
  roomsButton,
  onDeleteRoom,
  notice,
  onDismissNotice,
}: {
  spaceId: string;
  room: ChatRoom;
  /** When the newest message seen in a room was posted; read once, when the room opens. */
  seenOf: (roomId: string) => string;
  onSeen: (roomId: string, at: string) => void;
  thinking: readonly Thinking[];
  candidates: readonly Candidate[];
  /** Members who cannot read this (private) space: the composer warns when one is mentioned. */
  outsiders: readonly Candidate[];
  /** The button that shows the room list on narrow screens. */
  roomsButton: React.ReactNode;
  onDeleteRoom: (() => void) | null;
  /** Said under the header (why this room opened, say) until dismissed. */
  notice: string | null;
  onDismissNotice: () => void;
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
  /** The oldest message of the last page, to focus when that page took away "Load older messages" focused. */
  const focusAfterOlder = useRef<string | null>(null);
  const [pending, setPending] = useState<Pending[]>([]);
  const [newBelow, setNewBelow] = useState(0);
  const [picker, setPicker] = useState<{ messageId: string; anchor: HTMLElement } | null>(null);
  const [deleting, setDeleting] = useState<Message | null>(null);
  const [seenAtOpen] = useState(() => seenOf(room.id));
  /** The first message not seen before: the "New messages" divider goes above it. */
  const [dividerId, setDividerId] = useState<string | null>(null);
  const dividerRef = useRef(dividerId);
  dividerRef.current = dividerId;
  const [editing] = useState(createEditing);
  const [current] = useState(createSelection);

  const dataRef = useRef(data);
  dataRef.current = data;
  const scroller = useRef<HTMLDivElement>(null);
  const list = useRef<HTMLDivElement>(null);
  /** Pinned to the bottom: new content scrolls into view. */
  const stick = useRef(true);
  /** The row to hold in place while an older page is put in front. */
  const anchor = useRef<{ id: string; offset: number } | null>(null);
  const olderLoading = useRef(false);
  const firstLayout = useRef(true);
  const pendingCounter = useRef(0);

  const canWrite = ws.can("chat.write");
  const canModerate = ws.can("org.manage");
  const me = ws.me.id;

  // Only what was there before the room opened is "new"; messages arriving while it is watched are not.
  const isUnread = useCallback(
    (m: Message) => m.created_at > seenAtOpen && m.author_user_id !== me && m.deleted_at === null,
    [seenAtOpen, me],
  );

  // The newest page, first and after the events socket reconnects (events sent meanwhile are lost).
  const loadNewest = useCallback(
    async (merge: boolean) => {
      try {
        const page = await loadFresh(() => listMessages(ws.base, spaceId, room.id, { limit: PAGE }));
        setData((current) => (merge ? mergeNewest(current, page) : fromPage(page)));
        if (!merge) setDividerId(page.messages.find(isUnread)?.id ?? null);
        setError(null);
      } catch (err) {
        setError(messageOf(err));
      } finally {
        setLoaded(true);
      }
    },
    [ws.base, spaceId, room.id, isUnread],
  );
  useEffect(() => {
    void loadNewest(false);
  }, [loadNewest]);

  const loadOlder = useCallback(async () => {
    const current = dataRef.current;
    const oldest = current.messages[0];
    if (olderLoading.current || !current.hasMore || !oldest) return;
    olderLoading.current = true;
    setOlderBusy(true);
    setLogBusy(true);
    setOlderError(null);
    try {
      const page = await listMessages(ws.base, spaceId, room.id, { limit: PAGE, before: oldest.created_at });
      // The divider on the oldest message held so far moves up into this page when it has unread messages.
      // While the reader looks at it, the divider stays where it is on screen (the messages it moved above
      // come in below it, the read ones above); otherwise the first row in view stays put.
      const divider = dividerRef.current;
      const movesTo = divider !== null && divider === oldest.id ? page.messages.find(isUnread)?.id : undefined;
      anchor.current =
        (movesTo && divider && rowInView(scroller.current, divider, movesTo)) || firstVisibleRow(scroller.current);
      // The button goes away with the last page: the keyboard that was on it goes to the oldest message.
      if (page.messages.length < PAGE && document.activeElement === olderButton.current)
        focusAfterOlder.current = page.messages[0]?.id ?? null;
      setData((d) => prependPage(d, page));
      // A divider on the oldest message held so far may have unread messages before it: it moves up to the
      // first unread one of this page.
      setDividerId((id) => (id !== null && id === oldest.id ? (page.messages.find(isUnread)?.id ?? id) : id));
    } catch (err) {
      setOlderError(messageOf(err));
    } finally {
      olderLoading.current = false;
      setOlderBusy(false);
    }
  }, [ws.base, spaceId, room.id, isUnread]);

  // Scroll after each change of the list: hold the anchor row in place, or stay at the bottom.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs after every change of what the list shows.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el || !loaded) return;
    const held = anchor.current;
    anchor.current = null;
    if (held) {
      const row = el.querySelector<HTMLElement>(`[data-id="${held.id}"]`);
      if (row)
        laidOut(row, () => {
          el.scrollTop += row.getBoundingClientRect().top - el.getBoundingClientRect().top - held.offset;
        });
    } else if (firstLayout.current) {
      firstLayout.current = false;
      const divider = el.querySelector<HTMLElement>(".chat-divider.unread");
      el.scrollTop = el.scrollHeight;
      // Unread messages taller than the screen: start at the first of them, the divider at the top (read
      // messages above it load as the reader scrolls up). Scrolled here, not with scrollIntoView, which would
      // scroll the page around the list too.
      if (divider)
        laidOut(divider, () => {
          const top = divider.getBoundingClientRect().top - el.getBoundingClientRect().top;
          if (top < 0) {
            el.scrollTop += top;
            stick.current = false;
          }
        });
    } else if (stick.current) {
      el.scrollTop = el.scrollHeight;
    }
    const focusId = focusAfterOlder.current;
    focusAfterOlder.current = null;
    const focusRow = focusId ? el.querySelector<HTMLElement>(`article[data-id="${focusId}"]`) : null;
    if (focusRow) {
      if (!focusRow.hasAttribute("tabindex")) focusRow.tabIndex = -1;
      stick.current = false;
      focusRow.focus();
    }
    // A short room, or a fast scroll up: keep loading while the top is in sight.
    if (el.scrollTop < NEAR_TOP_PX && dataRef.current.hasMore && !olderError) setTimeout(() => void loadOlder(), 0);
  }, [data.messages, pending, loaded]);

  useEffect(() => {
    if (!logBusy || olderBusy || !loaded) return;
    const frame = requestAnimationFrame(() => setLogBusy(false));
    return () => cancelAnimationFrame(frame);
  }, [logBusy, olderBusy, loaded]);

  // Images that load and edits change heights: stay at the bottom if there.
  useEffect(() => {
    const el = scroller.current;
    const inner = list.current;
    if (!el || !inner) return;
    const observer = new ResizeObserver(() => {
      if (stick.current) el.scrollTop = el.scrollHeight;
    });
    observer.observe(inner);
    return () => observer.disconnect();
  }, []);

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_BOTTOM_PX;
    if (stick.current && newBelow) setNewBelow(0);
    if (el.scrollTop < NEAR_TOP_PX) void loadOlder();
  };

  const toBottom = () => {
    const el = scroller.current;
    if (!el) return;
    stick.current = true;
    el.scrollTop = el.scrollHeight;
    setNewBelow(0);
  };

  // Reading: the newest message counts as seen while the room is on screen.
  const newest = data.messages[data.messages.length - 1];
  useEffect(() => {
    if (!newest) return;
    const mark = () => {
      if (document.visibilityState === "visible") onSeen(room.id, newest.created_at);
    };
    mark();
    document.addEventListener("visibilitychange", mark);
    return () => document.removeEventListener("visibilitychange", mark);
  }, [newest, room.id, onSeen]);

  // The list's one Tab stop is its newest message, except while the keyboard is in the list: there it stays.
  // Set before the rows are painted, so that a list on screen always has its stop.
  useLayoutEffect(() => {
    if (!newest) return;
    const inList = list.current?.contains(document.activeElement) ?? false;
    if (!inList || !dataRef.current.messages.some((m) => m.id === current.get())) current.set(newest.id);
  }, [newest, current]);

  useLiveEvents((event) => {
    if (event.type === "resync") {
      void loadNewest(true);
      return;
    }
    if (event.space_id !== spaceId) return;
    switch (event.type) {
      case "chat.message.created": {
        const { message, attachments } = event.payload as PostedMessage;
        if (message.chat_room_id !== room.id) return;
        setData((d) => upsertMessage(d, message, attachments));
        if (message.author_user_id === me)
          setPending((list) => {
            const i = list.findIndex((p) => p.content === message.content);
            return i < 0 ? list : list.filter((_, j) => j !== i);
          });
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
        if (message.chat_room_id === room.id) setData((d) => upsertMessage(d, message));
        break;
      }
      case "chat.reaction.added":
        setData((d) => addReaction(d, event.payload as Reaction));
        break;
      case "chat.reaction.removed":
        setData((d) => removeReaction(d, event.payload as Reaction));
        break;
    }
  });

  const send = useCallback(
    async (content: string, attachments: AttachmentDraft[]): Promise<SendFailure | null> => {
      const key = `pending-${++pendingCounter.current}`;
      stick.current = true;
      setPending((list) => [...list, { key, content, attachments }]);
      try {
        const body: MessageBody = {};
        if (content) body.content = content;
        if (attachments.length)
          body.attachments = attachments.map((a) => (a.name ? { url: a.url, name: a.name } : { url: a.url }));
        const answer = await postMessage(ws.base, spaceId, room.id, body);
        setData((d) => upsertMessage(d, answer.message, answer.attachments));
        return null;
      } catch (err) {
        // Status 0: the request never reached the server (nothing was stored, so sending again is safe).
        return { message: messageOf(err), offline: err instanceof ApiError && err.status === 0 };
      } finally {
        setPending((list) => list.filter((p) => p.key !== key));
      }
    },
    [ws.base, spaceId, room.id],
  );

  const editLast = useCallback(() => {
    const messages = dataRef.current.messages;
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i] as Message;
      if (m.author_user_id === me && !m.deleted_at) {
        editing.set(m.id);
        return true;
      }
    }
    return false;
  }, [me, editing]);

  const sectionRef = useRef<HTMLElement>(null);
  // Stable actions for the rows: they read the latest workspace through a ref.
  const wsRef = useRef(ws);
  wsRef.current = ws;
  const [selection] = useState(createSelection);
  const actions = useMemo<RowActions>(
    () => ({
      me,
      canWrite,
      canModerate,
      nameOf: (id) => wsRef.current.nameOf(id),
      toggleReaction: (messageId, emoji, mine) => {
        const done = mine
          ? deleteReaction(ws.base, spaceId, room.id, messageId, emoji).then(() =>
              setData((d) => removeReaction(d, { message_id: messageId, user_id: me, emoji })),
            )
          : postReaction(ws.base, spaceId, room.id, messageId, emoji).then((r) => setData((d) => addReaction(d, r)));
        done.catch((err) => toast(`Reaction not saved: ${messageOf(err)}`, "error"));
      },
      openPicker: (messageId, anchorEl) => setPicker({ messageId, anchor: anchorEl }),
      edit: async (message, content) => {
        try {
          const saved = await editMessage(ws.base, spaceId, room.id, message.id, content);
          setData((d) => upsertMessage(d, saved));
          return null;
        } catch (err) {
          return messageOf(err);
        }
      },
      askDelete: (message) => setDeleting(message),
      focusComposer: () => sectionRef.current?.querySelector<HTMLElement>('[role="combobox"]')?.focus(),
      selection,
      editing,
      current,
    }),
    [me, canWrite, canModerate, ws.base, spaceId, room.id, selection, editing, current],
  );

  // Mentions of members stand out in the messages, those of the viewer most.
  const highlight = useMentionHighlighter(ws.members, me);

  /** Deletes the message being confirmed; a refusal stays in the dialog. */
  const deleteConfirmed = async (message: Message) => {
    await deleteMessage(ws.base, spaceId, room.id, message.id);
    const now = new Date().toISOString();
    setData((d) => upsertMessage(d, { ...message, content: "", deleted_at: now, updated_at: now }));
  };

  const rows = useRowInfos(data.messages, dividerId);

  const thinkingNames = [...new Set(thinking.map((t) => ws.nameOf(t.staffUserId)))];

  return (
    <section ref={sectionRef} className="chat-room" aria-label={`#${room.name}`}>
      <header className="chat-room-head">
        {roomsButton}
        <h2 className="grow">
          <span className="muted" aria-hidden="true">
            #
          </span>
          {room.name}
        </h2>
        {onDeleteRoom && (
          <button type="button" className="danger chat-delete-room" onClick={onDeleteRoom}>
            <TrashIcon />
            <span className="label">Delete room</span>
          </button>
        )}
      </header>
      {notice && (
        <div className="chat-notice" role="status">
          <span className="grow">{notice}</span>
          <button type="button" className="icon" aria-label="Dismiss notice" onClick={onDismissNotice}>
            ✕
          </button>
        </div>
      )}
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
                <MessageBlocks rows={rows} data={data} nameOf={ws.nameOf} isStaff={ws.isStaff} highlight={highlight} />
              </RowContext.Provider>
              {pending.map((p) => (
                // Shown, not read: the message is announced once, when it is posted (not "Sending…" and again).
                <div key={p.key} className="message pending" aria-hidden="true">
                  <div className="message-gutter" />
                  <div className="message-main">
                    <p className="muted small">Sending…</p>
                    {p.content && <p className="pending-text">{p.content}</p>}
                    {p.attachments.map((a) => (
                      <p key={a.url} className="muted small">
                        <LinkIcon /> {a.name || a.url}
                      </p>
                    ))}
                  </div>
                </div>
              ))}
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
      <div className="chat-thinking" role="status" aria-live="polite">
        {thinkingNames.length > 0 && (
          <>
            <span className="thinking-dots" aria-hidden="true">
              <span />
              <span />
              <span />
            </span>
            {thinkingNames.join(", ")} {thinkingNames.length === 1 ? "is" : "are"} thinking…
          </>
        )}
      </div>
      {canWrite ? (
        <Composer
          key={room.id}
          roomId={room.id}
          roomName={room.name}
          candidates={candidates}
          outsiders={outsiders}
          onSend={send}
          onEditLast={editLast}
        />
      ) : (
        <p className="composer-readonly muted">You can read this room; posting needs the chat.write permission.</p>
      )}
      {picker && (
        <EmojiPicker
          anchor={picker.anchor}
          label="Add a reaction"
          onPick={(emoji) => {
            // Picking an emoji one has already reacted with takes it back, like clicking its chip.
            const mine = reactionsOf(dataRef.current, picker.messageId).some(
              (r) => r.user_id === me && r.emoji === emoji,
            );
            actions.toggleReaction(picker.messageId, emoji, mine);
            setPicker(null);
            picker.anchor.focus();
          }}
          onClose={() => setPicker(null)}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title="Delete message"
          confirmLabel="Delete"
          onClose={() => {
            setDeleting(null);
            // The message's own buttons went with it: the keyboard goes back to the composer, once the dialog
            // (which keeps the focus from the page while open) is gone.
            setTimeout(actions.focusComposer);
          }}
          onConfirm={() => deleteConfirmed(deleting)}
        >
          <p>Delete this message for everyone? This cannot be undone.</p>
          {deleting.content && (
            <blockquote className="delete-preview">
              <Markdown source={deleting.content} className="message-text" highlight={highlight} />
            </blockquote>
          )}
        </ConfirmDialog>
      )}
    </section>
  );
}

/**
 * Runs `measure` (which reads where `element` is and scrolls to it) with the message block holding `element`
 * fully laid out. A block never drawn yet (just put in front, say) is skipped by `content-visibility` at its
 * estimated height, while its rows are placed at their real heights: a row measured there is where it will
 * be, but the block grows to its real height when first drawn, and the browser's own scroll anchoring then
 * moves the view by the difference (a tall message above the "New messages" divider pushed it out of view).
 * Laid out now, the block keeps the height it was measured with.
 */
function laidOut(element: HTMLElement, measure: () => void): void {
  const block = element.closest<HTMLElement>(".message-block");
  if (block) block.style.contentVisibility = "visible";
  try {
    measure();
  } finally {
    if (block) block.style.contentVisibility = "";
  }
}

/**
 * An anchor holding the row `to` where row `from` is now, when `from` is in view (else null): the "New
 * messages" divider moving from one to the other stays in place on screen.
 */
function rowInView(el: HTMLElement | null, from: string, to: string): { id: string; offset: number } | null {
  const row = el?.querySelector<HTMLElement>(`article[data-id="${from}"]`);
  if (!el || !row) return null;
  const offset = row.getBoundingClientRect().top - el.getBoundingClientRect().top;
  return offset >= -row.offsetHeight && offset < el.clientHeight ? { id: to, offset } : null;
}

/** The first message row at least partly in view, and how far its top is from the list's top. */
function firstVisibleRow(el: HTMLElement | null): { id: string; offset: number } | null {
  if (!el) return null;
  const top = el.getBoundingClientRect().top;
  // Blocks first: rows of blocks above the view are never measured (they may not be laid out).
  for (const block of el.querySelectorAll<HTMLElement>(".message-block")) {
    if (block.getBoundingClientRect().bottom <= top) continue;
    for (const row of block.querySelectorAll<HTMLElement>("article.message")) {
      const box = row.getBoundingClientRect();
      if (box.bottom > top) return { id: row.dataset.id as string, offset: box.top - top };
    }
  }
  return null;
}
