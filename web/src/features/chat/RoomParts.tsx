/** The smaller parts of an open room: its header, the messages being sent, who is thinking, deleting a message. */

import type { ReactNode } from "react";
import type { ChatRoom, Message } from "../../../../src/api-types";
import { ConfirmDialog } from "../../lib/dialogs";
import { type Highlighter, Markdown } from "../../lib/markdown";
import { MuteButton } from "../inbox/MuteButton";
import { LinkIcon, TrashIcon } from "./icons";
import type { Pending } from "./use-room-writes";

/** The room's name (with the room list's button on narrow screens), "Delete room", and a notice under them. */
export function RoomHeader({
  room,
  roomsButton,
  onDeleteRoom,
  notice,
  onDismissNotice,
}: {
  room: ChatRoom;
  roomsButton: ReactNode;
  onDeleteRoom: (() => void) | null;
  notice: string | null;
  onDismissNotice: () => void;
}) {
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
