/** The smaller parts of an open room: its header, the messages being sent, who is thinking, deleting a message. */

import { type ReactNode, useState } from "react";
import type { ChatRoom, Message } from "../../../../src/api-types";
import { ConfirmDialog } from "../../lib/dialogs";
import { type Highlighter, Markdown } from "../../lib/markdown";
import { FileMenu, type MenuItem } from "../files/FileMenu";
import { MuteButton } from "../inbox/MuteButton";
import { LinkIcon, MoreIcon } from "./icons";
import type { Pending } from "./use-room-writes";

/** One action of a room's "⋯" menu. */
export type RoomMenuItem = MenuItem;

/**
 * The room's name (with the room list's button on narrow screens), its mute button and its "⋯" menu of room
 * actions (copying its link, deleting it: nothing destructive sits in the header itself), and a notice under
 * them.
 */
export function RoomHeader({
  room,
  roomsButton,
  menu,
  notice,
  onDismissNotice,
}: {
  room: ChatRoom;
  roomsButton: ReactNode;
  menu: RoomMenuItem[];
  notice: string | null;
  onDismissNotice: () => void;
}) {
  const [menuAt, setMenuAt] = useState<{ x: number; y: number } | null>(null);
  return (
    <>
      <header className="chat-room-head">
        {roomsButton}
        <h2 className="grow">
          <span className="muted" aria-hidden="true">
            #
          </span>
          {room.name}
        </h2>
        <MuteButton what="room" id={room.id} name={`#${room.name}`} />
        {menu.length > 0 && (
          <button
            type="button"
            className="icon chat-room-menu"
            aria-label="Room actions"
            title="Room actions"
            aria-haspopup="menu"
            aria-expanded={menuAt !== null}
            onClick={(event) => {
              const box = event.currentTarget.getBoundingClientRect();
              setMenuAt(menuAt ? null : { x: box.right - 180, y: box.bottom + 4 });
            }}
          >
            <MoreIcon />
          </button>
        )}
        {menuAt && (
          <FileMenu label={`#${room.name} actions`} at={menuAt} items={menu} onClose={() => setMenuAt(null)} />
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
    </>
  );
}

/** Messages on their way, under the others. */
export function PendingRows({ pending }: { pending: readonly Pending[] }) {
  return pending.map((p) => (
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
  ));
}

/** "Ada is thinking…" above the composer, said politely; empty (but there) when nobody is. */
export function ThinkingLine({ names }: { names: readonly string[] }) {
  return (
    <div className="chat-thinking" role="status" aria-live="polite">
      {names.length > 0 && (
        <>
          <span className="thinking-dots" aria-hidden="true">
            <span />
            <span />
            <span />
          </span>
          {names.join(", ")} {names.length === 1 ? "is" : "are"} thinking…
        </>
      )}
    </div>
  );
}

/** Asks before deleting `message`, quoting it as it reads; a refusal stays in the dialog. */
export function DeleteMessageDialog({
  message,
  highlight,
  onConfirm,
  onClose,
}: {
  message: Message;
  highlight: Highlighter;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}) {
  return (
    <ConfirmDialog title="Delete message" confirmLabel="Delete" onClose={onClose} onConfirm={onConfirm}>
      <p>Delete this message for everyone? This cannot be undone.</p>
      {message.content && (
        <blockquote className="delete-preview">
          <Markdown source={message.content} className="message-text" highlight={highlight} />
        </blockquote>
      )}
    </ConfirmDialog>
  );
}
