/**
 * A small emoji popover: a search field and a grid of the curated emoji. Keyboard: type to filter, arrow keys
 * move through the grid (Down from the field enters it), Enter picks, Escape closes and gives focus back to
 * the button that opened it.
 *
 * It is placed with fixed coordinates beside its anchor and rendered outside the message list, so the list's
 * scrolling box never clips it.
 */
import { type KeyboardEvent, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { EMOJI } from "./emoji";

const COLUMNS = 8;

/** The picker, open beside `anchor`; `onPick` gets the chosen emoji. */
export function EmojiPicker({
  anchor,
  label,
  onPick,
  onClose,
}: {
  anchor: HTMLElement;
  label: string;
  onPick: (emoji: string) => void;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const [place, setPlace] = useState<{ top: number; left: number } | null>(null);

  const choices = useMemo(() => {
    const q = query.trim().toLowerCase();
    if (!q) return EMOJI;
    // Every word typed must begin a word of the emoji ("thu up" finds 👍).
    const typed = q.split(/\s+/);
    return EMOJI.filter((e) => {
      if (e.emoji === q) return true;
      const words = `${e.name} ${e.words}`.toLowerCase().split(/[\s-]+/);
      return typed.every((t) => words.some((w) => w.startsWith(t)));
    });
  }, [query]);

  // Beside the anchor: below it when there is room, else above; kept inside the window.
  useLayoutEffect(() => {
    const box = ref.current;
    if (!box) return;
    const a = anchor.getBoundingClientRect();
    const width = box.offsetWidth;
    const height = box.offsetHeight;
    const below = a.bottom + 6 + height <= window.innerHeight;
    const top = below ? a.bottom + 6 : Math.max(8, a.top - 6 - height);
    const left = Math.min(Math.max(8, a.right - width), window.innerWidth - width - 8);
    setPlace({ top, left });
  }, [anchor]);

  // Focus once placed: a hidden element cannot take it.
  const placed = place !== null;
  useEffect(() => {
    if (placed) searchRef.current?.focus();
  }, [placed]);

  // A click anywhere else closes it; so does scrolling the list under it away.
  useEffect(() => {
    const down = (event: MouseEvent) => {
      const target = event.target as Node;
      if (!ref.current?.contains(target) && !anchor.contains(target)) onClose();
    };
    document.addEventListener("mousedown", down);
    return () => document.removeEventListener("mousedown", down);
  }, [anchor, onClose]);

  const close = () => {
    onClose();
    anchor.focus();
  };

  const focusAt = (index: number) => {
    const next = Math.max(0, Math.min(choices.length - 1, index));
    setActive(next);
    ref.current?.querySelectorAll<HTMLButtonElement>(".emoji-grid button")[next]?.focus();
  };

  const onGridKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const moves: Record<string, number> = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: COLUMNS, ArrowUp: -COLUMNS };
    const move = moves[event.key];
    if (move !== undefined) {
      event.preventDefault();
      if (event.key === "ArrowUp" && active < COLUMNS) searchRef.current?.focus();
      else focusAt(active + move);
    } else if (event.key === "Home") {
      event.preventDefault();
      focusAt(0);
    } else if (event.key === "End") {
      event.preventDefault();
      focusAt(choices.length - 1);
    }
  };

  return (
    <div
      ref={ref}
      className="emoji-picker"
      role="dialog"
      aria-label={label}
      style={place ? { top: place.top, left: place.left } : { visibility: "hidden" }}
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          event.preventDefault();
          event.stopPropagation();
          close();
        }
      }}
    >
      <input
        ref={searchRef}
        type="search"
        aria-label="Search emoji"
        placeholder="Search emoji"
        value={query}
        onChange={(event) => {
          setQuery(event.target.value);
          setActive(0);
        }}
        onKeyDown={(event) => {
          if (event.key === "ArrowDown") {
            event.preventDefault();
            focusAt(0);
          } else if (event.key === "Enter") {
            event.preventDefault();
            const first = choices[0];
            if (first) onPick(first.emoji);
          }
        }}
      />
      {/* biome-ignore lint/a11y/noStaticElementInteractions: arrow keys move the focus among the buttons inside. */}
      <div className="emoji-grid" onKeyDown={onGridKey}>
        {choices.map((choice, i) => (
          <button
            key={choice.emoji}
            type="button"
            tabIndex={i === active ? 0 : -1}
            aria-label={choice.name}
            title={choice.name}
            onFocus={() => setActive(i)}
            onClick={() => onPick(choice.emoji)}
          >
            {choice.emoji}
          </button>
        ))}
        {choices.length === 0 && <p className="emoji-empty muted small">No emoji match “{query}”.</p>}
      </div>
    </div>
  );
}
