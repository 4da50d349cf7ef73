/**
 * One message of a room: avatar, author (staff marked), time, the content as safe markdown, its attachments
 * and reaction chips, and actions (react, edit and delete one's own). Rows are memoized and get only values
 * that change with the message itself, so a live event re-renders the one row it concerns.
 */
import {
  type FocusEvent,
  type KeyboardEvent,
  type MouseEvent,
  memo,
  useContext,
  useLayoutEffect,
  useRef,
  useState,
  useSyncExternalStore,
} from "react";
import type { Attachment, Message, Reaction } from "../../../../src/api-types";
import { type Highlighter, Markdown } from "../../lib/markdown";
import { Avatar, dateTime, timeAgo } from "../../lib/ui";
import { AttachmentList } from "./Attachments";
import { EditIcon, ReactIcon, ThreadIcon, TrashIcon } from "./icons";
import { MessageEditor } from "./MessageEditor";
import { isFailedReply, RetryReply } from "./RetryReply";
import { groupReactions } from "./room-state";
import { type RowActions, RowContext, useNarrow } from "./row-context";
import { repliesLabel } from "./thread-state";

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });

/** `HH:MM` in the viewer's locale. */
export function clock(iso: string): string {
  return timeFormat.format(new Date(iso));
}

interface RowProps {
  message: Message;
  reactions: readonly Reaction[];
  attachments: readonly Attachment[];
  authorName: string;
  staff: boolean;
  /** The automation that posted it (the message has no author then), or null. */
  automation: string | null;
  /** A follow-up of the same author within minutes: no avatar or name. */
  compact: boolean;
  /** Shown as a divider above the row ("Today", a date). */
  day: string | null;
  /** The first message the viewer has not seen: a "New messages" divider above it. */
  firstUnread: boolean;
  /** Marks the mentions in the content. */
  highlight: Highlighter;
}

function ReactionChips({ message, reactions }: { message: Message; reactions: readonly Reaction[] }) {
  const ctx = useContext(RowContext) as RowActions;
  if (reactions.length === 0) return null;
  const groups = groupReactions(reactions, ctx.me);
  return (
    <ul className="reactions" aria-label="Reactions">
      {groups.map((g) => {
        const names = g.userIds.map((id) => (id === ctx.me ? "you" : ctx.nameOf(id)));
        return (
          <li key={g.emoji}>
            <button
              type="button"
              className={g.mine ? "reaction mine" : "reaction"}
              aria-pressed={g.mine}
              aria-label={`${g.emoji} ${g.count}: ${names.join(", ")}${ctx.canWrite ? (g.mine ? ". Remove yours" : ". Add yours") : ""}`}
              title={`${names.join(", ")} reacted with ${g.emoji}`}
              disabled={!ctx.canWrite}
              onClick={() => ctx.toggleReaction(message.id, g.emoji, g.mine)}
            >
              <span className="reaction-emoji">{g.emoji}</span>
              <span className="reaction-count">{g.count}</span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}

/** Under a root in its room: "3 replies · last 2 min ago", which opens the thread. */
function ThreadSummary({ message }: { message: Message }) {
  const ctx = useContext(RowContext) as RowActions;
  if (!ctx.openThread || message.thread_root_id !== null || message.reply_count === 0) return null;
  const ago = message.last_reply_at && timeAgo(message.last_reply_at);
  return (
    <p className="thread-summary">
      <button type="button" className="link" onClick={() => ctx.openThread?.(message.id)}>
        {repliesLabel(message.reply_count)}
      </button>
      {message.last_reply_at && ago && (
        <span className="muted small" title={dateTime(message.last_reply_at)}>
          {ago === "just now" ? " · just now" : ` · last ${ago}`}
        </span>
      )}
    </p>
  );
}

/** What a row holds that Tab would stop on: only while the keyboard is in the row (text boxes always). */
const ROW_STOPS = "a[href], button";

/** Up, Down, Home and End on a focused message: the message to move to, among those of its list. */
function stepTo(from: HTMLElement, key: string): HTMLElement | null {
  const all = [...(from.closest('[role="log"]')?.querySelectorAll<HTMLElement>("article.message") ?? [])];
  const at = all.indexOf(from);
  if (at < 0) return null;
  const to = { ArrowUp: at - 1, ArrowDown: at + 1, Home: 0, End: all.length - 1 }[key];
  return to === undefined ? null : (all[to] ?? null);
}

/** Clicks on these do their own thing; a click anywhere else in a row selects it. */
const OWN_CLICK = "a, button, input, textarea, select, label, .message-edit";

function Row({
  message,
  reactions,
  attachments,
  authorName,
  staff,
  automation,
  compact,
  day,
  firstUnread,
  highlight,
}: RowProps) {
  const ctx = useContext(RowContext) as RowActions;
  const selected = useSyncExternalStore(ctx.selection.subscribe, () => ctx.selection.get() === message.id);
  const narrow = useNarrow();
  /** The row was selected by the focus a tap just gave it: that tap's click must not unselect it again. */
  const focusedByTap = useRef(false);
  const reactRef = useRef<HTMLButtonElement>(null);
  const articleRef = useRef<HTMLElement>(null);
  const current = useSyncExternalStore(ctx.current.subscribe, () => ctx.current.get() === message.id);
  const jumped = useSyncExternalStore(ctx.jumped.subscribe, () => ctx.jumped.get() === message.id);
  /** The keyboard (or a click) is in this row: its links and actions are Tab stops meanwhile. */
  const [within, setWithin] = useState(false);
  // Set on the elements themselves: the markdown's links are not rendered here. Runs after every render of the
  // row (rows render rarely), so that actions shown later are covered too.
  useLayoutEffect(() => {
    for (const stop of articleRef.current?.querySelectorAll<HTMLElement>(ROW_STOPS) ?? []) {
      stop.tabIndex = within ? 0 : -1;
    }
  });
  const deleted = message.deleted_at !== null;
  const mine = message.author_user_id === ctx.me;
  const editing =
    useSyncExternalStore(ctx.editing.subscribe, () => ctx.editing.get() === message.id) && mine && !deleted;
  const canDelete = !deleted && (mine || ctx.canModerate);
  const showCompact = compact && !day && !firstUnread;
  // A tap selects the row (its actions show on touch and narrow screens, where there is no hover); a second
  // tap, or one on another row, takes it away. Selecting text is not a tap.
  const onClick = (event: MouseEvent<HTMLElement>) => {
    const byFocus = focusedByTap.current;
    focusedByTap.current = false;
    if ((event.target as Element).closest(OWN_CLICK)) return;
    if (window.getSelection()?.toString()) return;
    ctx.selection.set(selected && !byFocus ? null : message.id);
  };
  // Focus in a row makes it the list's Tab stop and its links and actions Tab stops. Where actions show only for
  // the selected row, focusing the row also selects it (as a tap shows them on a touch screen).
  const onFocus = (event: FocusEvent<HTMLElement>) => {
    setWithin(true);
    ctx.current.set(message.id);
    if (event.target !== event.currentTarget || !narrow) return;
    focusedByTap.current = !selected;
    ctx.selection.set(message.id);
  };
  const onBlur = (event: FocusEvent<HTMLElement>) => {
    if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setWithin(false);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    if (event.target !== event.currentTarget || event.altKey || event.ctrlKey || event.metaKey) return;
    const to = stepTo(event.currentTarget, event.key);
    if (!to) return;
    event.preventDefault();
    // The other messages have no tabindex, so that a click on one leaves the keyboard where it was.
    if (!to.hasAttribute("tabindex")) to.tabIndex = -1;
    to.focus();
  };

  return (
    <>
      {day && (
        <div className="chat-divider day">
          <span>{day}</span>
        </div>
      )}
      {firstUnread && (
        <div className="chat-divider unread">
          <span>New messages</span>
        </div>
      )}
      <article
        className={`message${showCompact ? " compact" : ""}${deleted ? " deleted" : ""}${mine ? " mine" : ""}${selected ? " selected" : ""}${jumped ? " jumped" : ""}`}
        data-id={message.id}
        aria-current={jumped || undefined}
        aria-label={`${authorName} at ${clock(message.created_at)}`}
        ref={articleRef}
        tabIndex={current ? 0 : undefined}
        onClick={onClick}
        onFocus={onFocus}
        onBlur={onBlur}
        onKeyDown={onKeyDown}
      >
        <div className="message-gutter">
          {/* A follow-up shows no name, but a screen reader reading the log says who wrote it. */}
          {showCompact && <span className="sr-only">{authorName}</span>}
          {showCompact ? (
            <time className="message-hover-time" dateTime={message.created_at} title={dateTime(message.created_at)}>
              {clock(message.created_at)}
            </time>
          ) : (
            <Avatar id={automation ?? message.author_user_id ?? "none"} name={authorName} staff={staff} />
          )}
        </div>
        <div className="message-main">
          {ctx.openThread && message.thread_root_id && (
            <button
              type="button"
              className="link small muted thread-origin"
              onClick={() => ctx.openThread?.(message.thread_root_id as string)}
            >
              ↳ replied in a thread
            </button>
          )}
          {!showCompact && (
            <header className="message-head">
              <span className="message-author">{authorName}</span>
              {staff && <span className="badge staff">Staff</span>}
              {automation && <span className="badge automation">Automation</span>}
              <time className="muted small" dateTime={message.created_at} title={dateTime(message.created_at)}>
                {clock(message.created_at)}
              </time>
            </header>
          )}
          {deleted ? (
            <p className="message-deleted muted">This message was deleted</p>
          ) : editing ? (
            <MessageEditor
              message={message}
              onDone={() => {
                ctx.editing.set(null);
                ctx.focusComposer();
              }}
            />
          ) : (
            <div className="message-body">
              {message.content && <Markdown source={message.content} className="message-text" highlight={highlight} />}
              {message.edited_at && (
                <span className="muted small edited" title={`Edited ${dateTime(message.edited_at)}`}>
                  (edited)
                </span>
              )}
            </div>
          )}
          {!editing && ctx.canWrite && isFailedReply(message, staff) && <RetryReply message={message} />}
          <AttachmentList attachments={attachments} />
          <ReactionChips message={message} reactions={reactions} />
          <ThreadSummary message={message} />
          {!deleted && !editing && (ctx.canWrite || mine || ctx.openThread) && (
            <div className="message-actions">
              {ctx.canWrite && (
                <button
                  ref={reactRef}
                  type="button"
                  className="icon"
                  aria-label="Add reaction"
                  title="Add reaction"
                  onClick={() => reactRef.current && ctx.openPicker(message.id, reactRef.current)}
                >
                  <ReactIcon />
                </button>
              )}
              {ctx.openThread && (
                <button
                  type="button"
                  className="icon"
                  aria-label="Reply in thread"
                  title="Reply in thread"
                  onClick={() => ctx.openThread?.(message.thread_root_id ?? message.id)}
                >
                  <ThreadIcon />
                </button>
              )}
              {mine && (
                <button
                  type="button"
                  className="icon"
                  aria-label="Edit message"
                  title="Edit"
                  onClick={() => ctx.editing.set(message.id)}
                >
                  <EditIcon />
                </button>
              )}
              {canDelete && (
                <button
                  type="button"
                  className="icon danger"
                  aria-label="Delete message"
                  title="Delete"
                  onClick={() => ctx.askDelete(message)}
                >
                  <TrashIcon />
                </button>
              )}
            </div>
          )}
        </div>
      </article>
    </>
  );
}

/** A message row, re-rendered only when its own props change. */
export const MessageRow = memo(Row);
