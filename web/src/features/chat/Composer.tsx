/**
 * Writing a message: Enter sends, Shift+Enter starts a new line, `@` opens the list of people and staff to
 * mention (arrows, then Enter or Tab), links can be attached by URL, and an emoji can be inserted. Up in an
 * empty composer edits one's last message. The draft of each room is kept while switching rooms.
 */
import {
  type FormEvent,
  type KeyboardEvent,
  useEffect,
  useId,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import { Avatar, ErrorText } from "../../lib/ui";
import type { AttachmentDraft } from "./chat-types";
import { EmojiPicker } from "./EmojiPicker";
import { LinkIcon, SmileIcon } from "./icons";
import { type Candidate, insertMention, matchCandidates, mentionAt } from "./mentions";

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
  const [caret, setCaret] = useState(0);
  const [active, setActive] = useState(0);
  /** The `@` position whose list was dismissed with Escape (it stays closed until another `@`). */
  const [dismissed, setDismissed] = useState<number | null>(null);
  const [focused, setFocused] = useState(false);
  const [emojiAnchor, setEmojiAnchor] = useState<HTMLElement | null>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  const linkUrl = useRef<HTMLInputElement>(null);
  const pendingCaret = useRef<number | null>(null);
  const listId = useId();

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

  const mention = useMemo(() => {
    const found = mentionAt(text, caret);
    return found && found.start !== dismissed ? found : null;
  }, [text, caret, dismissed]);
  const matches = useMemo(() => (mention ? matchCandidates(candidates, mention.query) : []), [mention, candidates]);
  const open = focused && matches.length > 0;
  const activeIndex = Math.min(active, Math.max(0, matches.length - 1));

  const pick = (candidate: Candidate) => {
    if (!mention) return;
    const next = insertMention(text, mention, candidate.name);
    pendingCaret.current = next.caret;
    setText(next.text);
    setCaret(next.caret);
    setActive(0);
    area.current?.focus();
  };

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
    if (event.nativeEvent.isComposing) return;
    if (open) {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        const step = event.key === "ArrowDown" ? 1 : -1;
        setActive((activeIndex + step + matches.length) % matches.length);
        return;
      }
      if (event.key === "Enter" || event.key === "Tab") {
        event.preventDefault();
        const chosen = matches[activeIndex];
        if (chosen) pick(chosen);
        return;
      }
      if (event.key === "Escape") {
        event.preventDefault();
        setDismissed(mention?.start ?? null);
        return;
      }
    }
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

  const optionId = (i: number) => `${listId}-${i}`;

  return (
    <div className="composer">
      {open && (
        <div className="mention-list" role="listbox" id={listId} aria-label="People and staff to mention">
          {matches.map((c, i) => (
            <div
              key={c.id}
              id={optionId(i)}
              role="option"
              tabIndex={-1}
              aria-selected={i === activeIndex}
              className={i === activeIndex ? "mention-option active" : "mention-option"}
              onMouseDown={(event) => {
                // Keep the focus in the textarea.
                event.preventDefault();
                pick(c);
              }}
              onMouseEnter={() => setActive(i)}
            >
              <Avatar id={c.id} name={c.name} staff={c.staff} />
              <span>{c.name}</span>
              {c.staff && <span className="badge staff">Staff</span>}
            </div>
          ))}
        </div>
      )}
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
          role="combobox"
          aria-expanded={open}
          aria-controls={open ? listId : undefined}
          aria-autocomplete="list"
          aria-activedescendant={open ? optionId(activeIndex) : undefined}
          onChange={(event) => {
            const value = event.target.value;
            const at = event.target.selectionStart;
            setText(value);
            setCaret(at);
            setActive(0);
            if (dismissed !== null && mentionAt(value, at)?.start !== dismissed) setDismissed(null);
          }}
          onSelect={(event) => setCaret(event.currentTarget.selectionStart)}
          onKeyDown={onKey}
          onFocus={() => setFocused(true)}
          onBlur={() => setFocused(false)}
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
