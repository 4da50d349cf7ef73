/**
 * Writing a message: Enter sends, Shift+Enter starts a new line, `@` opens the list of people and staff to
 * mention (arrows, then Enter or Tab), links can be attached by URL, and an emoji can be inserted. Up in an
 * empty composer edits one's last message. The draft of each room is kept while switching rooms.
 */
import { type FormEvent, type KeyboardEvent, useEffect, useLayoutEffect, useRef, useState } from "react";
import { useMentionPicker } from "../../lib/mention-picker";
import { ErrorText } from "../../lib/ui";
import type { AttachmentDraft } from "./chat-types";
import { EmojiPicker } from "./EmojiPicker";
import { LinkIcon, SmileIcon } from "./icons";
import type { Candidate } from "./mentions";

interface Draft {
  text: string;
  attachments: AttachmentDraft[];
}

// Unsent drafts by room, for this tab's lifetime.
const drafts = new Map<string, Draft>();

/** The composer of one room. `onSend` resolves to the API's error in words, or null once sent. */
export function Composer({
  roomId,
  roomName,
  candidates,
  onSend,
  onEditLast,
}: {
  roomId: string;
  roomName: string;
  candidates: readonly Candidate[];
  onSend: (content: string, attachments: AttachmentDraft[]) => Promise<string | null>;
  onEditLast: () => boolean;
}) {
  const saved = drafts.get(roomId);
  const [text, setText] = useState(saved?.text ?? "");
  const [attachments, setAttachments] = useState<AttachmentDraft[]>(saved?.attachments ?? []);
  const [error, setError] = useState<string | null>(null);
  const [linkOpen, setLinkOpen] = useState(false);
  const [emojiAnchor, setEmojiAnchor] = useState<HTMLElement | null>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  const linkUrl = useRef<HTMLInputElement>(null);
  const pendingCaret = useRef<number | null>(null);
  const picker = useMentionPicker(text, setText, candidates, area);

  useEffect(() => {
    drafts.set(roomId, { text, attachments });
  }, [roomId, text, attachments]);

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

  const send = async () => {
    const content = text.trim();
    if (!content && attachments.length === 0) return;
    const sentText = text;
    const sentAttachments = attachments;
    setText("");
    setAttachments([]);
    setError(null);
    const failure = await onSend(content, sentAttachments);
    if (failure) {
      setError(failure);
      // Give the message back to fix it, unless something new was typed meanwhile.
      setText((current) => current || sentText);
      setAttachments((current) => (current.length ? current : sentAttachments));
    }
  };

  const onKey = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.nativeEvent.isComposing || picker.keyDown(event)) return;
    if (event.key === "Enter" && !event.shiftKey) {
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

  return (
    <div className="composer">
      {picker.list}
      {attachments.length > 0 && (
        <ul className="draft-attachments" aria-label="Links to attach">
          {attachments.map((a, i) => (
            <li key={a.url} className="draft-attachment">
              <LinkIcon />
              <span className="grow" title={a.url}>
                {a.name || a.url}
              </span>
              <button
                type="button"
                className="icon"
                aria-label={`Remove ${a.name || a.url}`}
                onClick={() => setAttachments(attachments.filter((_, j) => j !== i))}
              >
                ✕
              </button>
            </li>
          ))}
        </ul>
      )}
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
            <input ref={linkUrl} name="url" inputMode="url" autoComplete="off" placeholder="https://…" required />
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
        </form>
      )}
      <div className="composer-box">
        <textarea
          ref={area}
          rows={1}
          value={text}
          placeholder={`Message #${roomName}`}
          aria-label={`Message #${roomName}`}
          {...picker.fieldProps}
          onChange={(event) => {
            setText(event.target.value);
            picker.changed(event.target.value, event.target.selectionStart);
          }}
          onKeyDown={onKey}
        />
        <div className="composer-tools">
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
            disabled={!text.trim() && attachments.length === 0}
          >
            Send
          </button>
        </div>
      </div>
      <p className="composer-hint muted small">
        <kbd>Enter</kbd> to send, <kbd>Shift</kbd>+<kbd>Enter</kbd> for a new line, <kbd>@</kbd> to mention, markdown
        works
      </p>
      <ErrorText error={error} />
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
