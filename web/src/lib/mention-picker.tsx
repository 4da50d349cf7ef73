/**
 * The `@` picker of a textarea, as the chat composer and task comments use it: typing `@` (or `@Ad`) lists the
 * people and staff who may be mentioned; arrows move, Enter or Tab insert `@Display Name `, Escape closes the
 * list until the next `@`. The textarea is a combobox pointing at the list (aria-activedescendant), so the
 * focus never leaves the text. The list is drawn by `.mention-list` (absolute, above its positioned parent).
 */
import {
  type KeyboardEvent,
  type ReactNode,
  type RefObject,
  useId,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import { type Candidate, insertMention, matchCandidates, mentionAt } from "./mentions";
import { Avatar } from "./ui";

/** What a textarea needs to offer mentions: props to spread on it, handlers to call, and the list to render. */
export interface MentionPicker {
  /** True while the list shows (Enter and Tab then pick, so the field's own Enter must wait). */
  open: boolean;
  /** The combobox attributes and the caret and focus handlers of the textarea. */
  fieldProps: {
    role: "combobox";
    "aria-expanded": boolean;
    "aria-controls": string | undefined;
    "aria-autocomplete": "list";
    "aria-activedescendant": string | undefined;
    onSelect: (event: { currentTarget: HTMLTextAreaElement }) => void;
    onFocus: () => void;
    onBlur: () => void;
  };
  /** Call from the textarea's onChange with the new value and caret (after setting the text). */
  changed: (value: string, caret: number) => void;
  /** Call first in the textarea's onKeyDown: true when the key was the picker's (the event is then handled). */
  keyDown: (event: KeyboardEvent<HTMLTextAreaElement>) => boolean;
  /** The list of candidates, or null when closed. */
  list: ReactNode;
}

/** The `@` picker over `area`, whose text is `text` and which `setText` changes. */
export function useMentionPicker(
  text: string,
  setText: (text: string) => void,
  candidates: readonly Candidate[],
  area: RefObject<HTMLTextAreaElement | null>,
): MentionPicker {
  const [caret, setCaret] = useState(0);
  const [active, setActive] = useState(0);
  /** The `@` position whose list was dismissed with Escape (it stays closed until another `@`). */
  const [dismissed, setDismissed] = useState<number | null>(null);
  const [focused, setFocused] = useState(false);
  const pendingCaret = useRef<number | null>(null);
  const listId = useId();

  // After a pick, the caret goes after the inserted name once the new text is in the field.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the text changes, on purpose.
  useLayoutEffect(() => {
    if (pendingCaret.current === null) return;
    area.current?.setSelectionRange(pendingCaret.current, pendingCaret.current);
    pendingCaret.current = null;
  }, [text]);

  const mention = useMemo(() => {
    const found = mentionAt(text, caret);
    return found && found.start !== dismissed ? found : null;
  }, [text, caret, dismissed]);
  const matches = useMemo(() => (mention ? matchCandidates(candidates, mention.query) : []), [mention, candidates]);
  const open = focused && matches.length > 0;
  const activeIndex = Math.min(active, Math.max(0, matches.length - 1));
  const optionId = (i: number) => `${listId}-${i}`;

  const pick = (candidate: Candidate) => {
    if (!mention) return;
    const next = insertMention(text, mention, candidate.name);
    pendingCaret.current = next.caret;
    setText(next.text);
    setCaret(next.caret);
    setActive(0);
    area.current?.focus();
  };

  const keyDown = (event: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open || event.nativeEvent.isComposing) return false;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((activeIndex + step + matches.length) % matches.length);
    } else if (event.key === "Enter" || event.key === "Tab") {
      const chosen = matches[activeIndex];
      if (chosen) pick(chosen);
    } else if (event.key === "Escape") {
      // Closes the list only: whatever holds the field (a panel, a dialog) stays open.
      event.stopPropagation();
      setDismissed(mention?.start ?? null);
    } else return false;
    event.preventDefault();
    return true;
  };

  const changed = (value: string, at: number) => {
    setCaret(at);
    setActive(0);
    if (dismissed !== null && mentionAt(value, at)?.start !== dismissed) setDismissed(null);
  };

  const list = open ? (
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
  ) : null;

  return {
    open,
    fieldProps: {
      role: "combobox",
      "aria-expanded": open,
      "aria-controls": open ? listId : undefined,
      "aria-autocomplete": "list",
      "aria-activedescendant": open ? optionId(activeIndex) : undefined,
      onSelect: (event) => setCaret(event.currentTarget.selectionStart),
      onFocus: () => setFocused(true),
      onBlur: () => setFocused(false),
    },
    changed,
    keyDown,
    list,
  };
}
