/**
 * Writing a message: Enter sends (inside an unclosed code fence it starts a new line), Shift+Enter starts a
 * new line, `@` opens the list of people and staff to mention (arrows, then Enter or Tab), files are attached
 * by pasting, dropping or picking them (uploaded at once, with their progress), links by URL, and an emoji can
 * be inserted. Up in an empty composer edits one's last message. The draft of each room (and thread) is kept
 * while switching rooms. A message that could not reach the server is offered again (Retry, or Enter) and the
 * error makes way for that once the live connection is back. In a thread, "Also send to #room" sends the reply
 * to the room too.
 */
import {
  type ClipboardEvent,
  type FormEvent,
  type KeyboardEvent,
  type RefObject,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import type { ChatRoom } from "../../../../src/api-types";
import { useLiveEvents } from "../../lib/events";
import { useMentionPicker } from "../../lib/mention-picker";
import { ErrorText } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import type { AttachmentDraft } from "./chat-types";
import { DraftAttachments } from "./DraftAttachments";
import { EmojiPicker } from "./EmojiPicker";
import { LinkIcon, PaperclipIcon, SmileIcon } from "./icons";
import { type Candidate, mentionFinder } from "./mentions";
import { forgetPreview, useComposerFiles, useFileDrop } from "./use-composer-files";

/** Why a message was not sent: the API's words, and whether the server could not be reached at all. */
export interface SendFailure {
  message: string;
  offline: boolean;
}

/** A line opening or closing a fenced code block (up to three spaces, then three backticks). */
const FENCE = /^ {0,3}```/;

/** How many fence lines `text` has: an odd number means a code block is still open at its end. */
export function fenceCount(text: string): number {
  let n = 0;
  for (const line of text.split("\n")) if (FENCE.test(line)) n++;
  return n;
}

/** True when `text` holds nothing but fence lines (and blank ones): sent, it would be an empty grey box. */
export function onlyFences(text: string): boolean {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  return lines.length > 0 && lines.every((line) => FENCE.test(line));
}

/** The refusal of a link that is not http(s), in words; null when it may be attached. */
export function badLink(url: string): string | null {
  try {
    const protocol = new URL(url).protocol;
    if (protocol === "http:" || protocol === "https:") return null;
  } catch {
    // Not a URL at all: said below.
  }
  return "Only web links can be attached: the URL must start with http:// or https://.";
}

/** "Ada", "Ada and Tina", "Ada, Tina and Victor". */
function names(list: string[]): string {
  return list.length < 2 ? (list[0] ?? "") : `${list.slice(0, -1).join(", ")} and ${list[list.length - 1]}`;
}

interface Draft {
  text: string;
  attachments: AttachmentDraft[];
}

// Unsent drafts by room, for this tab's lifetime.
const drafts = new Map<string, Draft>();

/**
 * The composer of one room, or of a thread of it (`thread`). `onSend` resolves to the API's error in words, or
 * null once sent; `alsoInRoom` is the thread's "Also send to #room".
 */
export function Composer({
  room,
  thread,
  candidates,
  outsiders = [],
  dropZone,
  onSend,
  onEditLast,
}: {
  room: ChatRoom;
  /** The root of the thread this composer replies in; absent for the room's own composer. */
  thread?: string;
  candidates: readonly Candidate[];
  /** Members of the organization who cannot read this (private) space: mentioning them gets a hint. */
  outsiders?: readonly Candidate[];
  /** Where files may be dropped (the whole room or panel); the composer itself when absent. */
  dropZone?: RefObject<HTMLElement | null>;
  onSend: (content: string, attachments: AttachmentDraft[], alsoInRoom: boolean) => Promise<SendFailure | null>;
  onEditLast: () => boolean;
}) {
  const ws = useWorkspace();
  const roomName = room.name;
  const draftKey = thread ? `${room.id}:${thread}` : room.id;
  const saved = drafts.get(draftKey);
  const [text, setText] = useState(saved?.text ?? "");
  const [attachments, setAttachments] = useState<AttachmentDraft[]>(saved?.attachments ?? []);
  const [failure, setFailure] = useState<SendFailure | null>(null);
  /** The send failed for want of a connection, which is back now: the message is offered again. */
  const [reconnected, setReconnected] = useState(false);
  const [linkError, setLinkError] = useState<string | null>(null);
  const [linkOpen, setLinkOpen] = useState(false);
  const [emojiAnchor, setEmojiAnchor] = useState<HTMLElement | null>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  const linkUrl = useRef<HTMLInputElement>(null);
  const pendingCaret = useRef<number | null>(null);
  const picker = useMentionPicker(text, setText, candidates, area);
  const [alsoInRoom, setAlsoInRoom] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const fileField = useRef<HTMLInputElement>(null);
  const files = useComposerFiles(ws.base, room.space_id, room.id, ws.can("files.write"), (uploaded) =>
    setAttachments((list) => [...list, uploaded]),
  );
  useFileDrop(dropZone ?? root, files.add);

  useEffect(() => {
    drafts.set(draftKey, { text, attachments });
  }, [draftKey, text, attachments]);

  /** A pasted picture or file (a screenshot) is attached; text pastes as text. */
  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    const pasted = [...event.clipboardData.files];
    if (pasted.length === 0 || event.clipboardData.getData("text/plain")) return;
    event.preventDefault();
    files.add(pasted);
  };

  const removeAttachment = (index: number) => {
    const gone = attachments[index];
    if (gone) files.discard(gone);
    setAttachments(attachments.filter((_, j) => j !== index));
  };

  // Grows with its text up to a limit, then scrolls.
  // biome-ignore lint/correctness/useExhaustiveDependencies: measured again whenever the text changes.
  useLayoutEffect(() => {
    const el = area.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(el.scrollHeight + 2, 240)}px`;
    if (pendingCaret.current !== null) {
      el.setSelectionRange(pendingCaret.current, pendingCaret.current);
      pendingCaret.current = null;
    }
  }, [text]);

  // The connection is back (the events socket opened again): a message refused for want of it can go now.
  useLiveEvents((event) => {
    if (event.type === "resync" && failure?.offline) setReconnected(true);
  });

  // Mentions of people and staff who cannot read this private space. Every name is looked for, so that the
  // longest one wins as on the server ("@Ada Lovelace" is not "@Ada").
  const find = useMemo(() => mentionFinder([...candidates, ...outsiders]), [candidates, outsiders]);
  const unseen = useMemo(() => {
    if (outsiders.length === 0 || !text.includes("@")) return [];
    const outside = new Map(outsiders.map((c) => [c.id, c.name]));
    const found = new Set(find(text).map((f) => f.userId));
    return [...found].flatMap((id) => (outside.has(id) ? [outside.get(id) as string] : []));
  }, [find, outsiders, text]);

  const send = async () => {
    const content = text.trim();
    if (!content && attachments.length === 0) return;
    // Files still going up are part of the message: it waits for them.
    if (files.busy) return;
    // A lone fence would be an empty code block: it is the start of one being typed, not a message.
    if (onlyFences(content) && attachments.length === 0) return;
    const sentText = text;
    const sentAttachments = attachments;
    // Sent with the Send (or Retry) button: the keyboard goes back to the composer before emptying it turns
    // that button off (a disabled button would drop the focus to the page).
    area.current?.focus();
    setText("");
    setAttachments([]);
    setFailure(null);
    setReconnected(false);
    const sentAlso = alsoInRoom;
    setAlsoInRoom(false);
    const failed = await onSend(content, sentAttachments, sentAlso);
    if (failed) {
      setFailure(failed);
      // Give the message back to fix it, unless something new was typed meanwhile.
      setText((current) => current || sentText);
      setAttachments((current) => (current.length ? current : sentAttachments));
      setAlsoInRoom(sentAlso);
    } else for (const a of sentAttachments) forgetPreview(a);
  };

  const onKey = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.nativeEvent.isComposing || picker.keyDown(event)) return;
    if (event.key === "Enter" && !event.shiftKey) {
      // Inside a code block still open before the caret, Enter is a new line of code (as in Slack).
      const area = event.currentTarget;
      if (fenceCount(text.slice(0, area.selectionStart)) % 2 === 1) return;
      event.preventDefault();
      void send();
    } else if (event.key === "ArrowUp" && text === "" && onEditLast()) {
      event.preventDefault();
    }
  };

  const addLink = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const url = String(data.get("url") ?? "").trim();
    if (!url) return;
    // Refused here, in words, rather than by the API when the message is sent (which would keep it back).
    const refusal = badLink(url);
    if (refusal) {
      setLinkError(refusal);
      linkUrl.current?.focus();
      return;
    }
    setLinkError(null);
    const name = String(data.get("name") ?? "").trim();
    // The same link twice is one attachment.
    setAttachments([...attachments.filter((a) => a.url !== url), { url, name }]);
    event.currentTarget.reset();
    setLinkOpen(false);
    area.current?.focus();
  };

  // Opening "Attach link" is asking to type a URL: the keyboard goes there.
  useEffect(() => {
    if (linkOpen) linkUrl.current?.focus();
  }, [linkOpen]);

  const closeLink = () => {
    setLinkOpen(false);
    setLinkError(null);
    area.current?.focus();
  };

  const insertEmoji = (emoji: string) => {
    const el = area.current;
    const start = el?.selectionStart ?? text.length;
    const end = el?.selectionEnd ?? text.length;
    pendingCaret.current = start + emoji.length;
    setText(text.slice(0, start) + emoji + text.slice(end));
    setEmojiAnchor(null);
    el?.focus();
  };

  const empty = !text.trim() && attachments.length === 0;
  return (
    <div className="composer" ref={root}>
      {picker.list}
      <DraftAttachments
        attachments={attachments}
        uploads={files.uploads}
        onRemove={removeAttachment}
        onCancel={files.cancel}
      />
      {linkOpen && (
        <form
          className="attach-form"
          onSubmit={addLink}
          aria-label="Attach a link"
          onKeyDown={(event) => {
            if (event.key === "Escape") {
              event.preventDefault();
              closeLink();
            }
          }}
        >
          <label className="field grow">
            <span>Link URL</span>
            <input
              ref={linkUrl}
              name="url"
              inputMode="url"
              autoComplete="off"
              placeholder="https://…"
              required
              aria-invalid={linkError ? true : undefined}
              onChange={() => setLinkError(null)}
            />
          </label>
          <label className="field grow">
            <span>Link name</span>
            <input name="name" autoComplete="off" placeholder="Optional" />
          </label>
          <div className="row">
            <button type="submit">Add link</button>
            <button type="button" className="icon" aria-label="Cancel link" onClick={closeLink}>
              ✕
            </button>
          </div>
          <ErrorText error={linkError} />
        </form>
      )}
      <div className="composer-box">
        <textarea
          ref={area}
          rows={1}
          value={text}
          placeholder={thread ? "Reply…" : `Message #${roomName}`}
          aria-label={thread ? `Reply in thread in #${roomName}` : `Message #${roomName}`}
          {...picker.fieldProps}
          onPaste={onPaste}
          onChange={(event) => {
            setText(event.target.value);
            picker.changed(event.target.value, event.target.selectionStart);
            // A refusal is about the text as it was; an unsent message stays offered (Retry) while edited.
            if (failure && !failure.offline) setFailure(null);
          }}
          onKeyDown={onKey}
        />
        <div className="composer-tools">
          <button
            type="button"
            className="icon"
            aria-label="Attach files"
            title="Attach files (or paste or drop them)"
            onClick={() => fileField.current?.click()}
          >
            <PaperclipIcon />
          </button>
          <input
            ref={fileField}
            type="file"
            multiple
            hidden
            aria-hidden="true"
            tabIndex={-1}
            onChange={(event) => {
              files.add([...(event.currentTarget.files ?? [])]);
              event.currentTarget.value = "";
              area.current?.focus();
            }}
          />
          <button
            type="button"
            className="icon"
            aria-label="Attach link"
            title="Attach link"
            aria-expanded={linkOpen}
            onClick={() => setLinkOpen(!linkOpen)}
          >
            <LinkIcon />
          </button>
          <button
            type="button"
            className="icon"
            aria-label="Insert emoji"
            title="Insert emoji"
            onClick={(event) => setEmojiAnchor(emojiAnchor ? null : event.currentTarget)}
          >
            <SmileIcon />
          </button>
          <button
            type="button"
            className="primary send"
            onClick={() => void send()}
            disabled={empty || files.busy}
            title={files.busy ? "Waiting for the files to upload" : undefined}
          >
            Send
          </button>
        </div>
      </div>
      {thread && (
        <label className="composer-also small">
          <input type="checkbox" checked={alsoInRoom} onChange={(event) => setAlsoInRoom(event.target.checked)} />
          Also send to #{roomName}
        </label>
      )}
      {unseen.length > 0 && (
        <p className="composer-warning small" role="status">
          {names(unseen)} {unseen.length === 1 ? "is not a member" : "are not members"} of this private space and will
          not see this.
        </p>
      )}
      {failure &&
        (failure.offline ? (
          <div
            className={reconnected ? "composer-retry" : "composer-retry error"}
            role={reconnected ? "status" : "alert"}
          >
            <span className="grow">
              {reconnected ? "The connection is back. Your message was not sent yet." : `Not sent: ${failure.message}.`}
            </span>
            <button type="button" onClick={() => void send()} disabled={empty || files.busy}>
              Retry
            </button>
          </div>
        ) : (
          <ErrorText error={failure.message} />
        ))}
      {emojiAnchor && (
        <EmojiPicker
          anchor={emojiAnchor}
          label="Insert an emoji"
          onPick={insertEmoji}
          onClose={() => setEmojiAnchor(null)}
        />
      )}
    </div>
  );
}
