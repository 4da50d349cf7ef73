/**
 * The command palette: one field that jumps to a space, room, person, staff member, task or file by name, and
 * finds the messages, tasks, comments and files holding the words typed, across every space the user sees
 * (the API leaves out what they cannot). ↑/↓ move through the entries, Enter opens one, Escape closes; the
 * last entry opens the results page. A combobox over a listbox, the keyboard staying in the field.
 */
import { useEffect, useMemo, useRef, useState } from "react";
import type { SearchResult } from "../../../../src/api-types";
import { navigate, useLocation } from "../../lib/router";
import { timeAgo } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { SearchIcon } from "./icons";
import { type JumpEntry, jumpEntries, matchEntries, nameScore, wordsOf } from "./jump";
import { Snippet } from "./snippet";
import { KIND_NAMES, resultHref, searchPageHref, spaceOfPath } from "./targets";
import { useAllRooms } from "./use-all-rooms";
import { usePaletteSearch } from "./use-palette-search";

/** How many places and people "Jump to" lists. */
const JUMPS = 6;

/** One entry of the list. */
interface Item {
  key: string;
  section: "jump" | "results" | "all";
  /** The kind in words ("Room", "Message"). */
  kind: string;
  title: string;
  detail: string;
  snippet?: string;
  href: string;
}

const JUMP_KINDS: Record<JumpEntry["kind"], string> = {
  space: "Space",
  room: "Room",
  person: "Person",
  staff: "Staff",
  task: "Task",
  file: "File",
};

/** A search result as an entry. */
function resultItem(result: SearchResult, section: Item["section"], spaceName: string): Item {
  const title =
    result.type === "message"
      ? `#${result.title}`
      : result.type === "task_message"
        ? `Comment on “${result.title}”`
        : result.title;
  return {
    key: `${result.type}:${result.id}`,
    section,
    kind: KIND_NAMES[result.type].one,
    title,
    detail: `${spaceName} · ${timeAgo(result.created_at)}`,
    snippet: section === "results" ? result.snippet : undefined,
    href: resultHref(result),
  };
}

export default function CommandPalette({ onClose }: { onClose: () => void }) {
  const ws = useWorkspace();
  const { path } = useLocation();
  const [q, setQ] = useState("");
  const [active, setActive] = useState(0);
  const dialog = useRef<HTMLDialogElement>(null);
  const list = useRef<HTMLDivElement>(null);
  /** Set when an entry was opened: the keyboard goes to the new screen, not back to what opened the palette. */
  const chosen = useRef(false);
  const rooms = useAllRooms(ws.base, ws.spaces);
  const { found, busy, error } = usePaletteSearch(ws.base, q);

  useEffect(() => {
    const el = dialog.current;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (el && !el.open) el.showModal();
    return () => {
      if (chosen.current) {
        const active = document.activeElement;
        if (!active || active === document.body || el?.contains(active))
          document.getElementById("main")?.focus({ preventScroll: true });
      } else if (opener?.isConnected) opener.focus();
    };
  }, []);

  const spaceName = useMemo(() => {
    const names = new Map(ws.spaces.map((s) => [s.id, s.name]));
    return (id: string) => names.get(id) ?? "";
  }, [ws.spaces]);

  const entries = useMemo(() => {
    const here = spaceOfPath(path);
    const homeSpace = ws.spaces.find((s) => s.id === here) ?? ws.spaces[0] ?? null;
    return jumpEntries({ spaces: ws.spaces, rooms, members: ws.members, homeSpace });
  }, [path, ws.spaces, ws.members, rooms]);

  const words = q.trim();
  const items = useMemo<Item[]>(() => {
    if (!words) {
      return entries
        .filter((e) => e.kind === "space")
        .slice(0, JUMPS)
        .map((e) => ({ key: e.key, section: "jump", kind: "Space", title: e.label, detail: e.detail, href: e.href }));
    }
    const jumps: Item[] = matchEntries(entries, words, JUMPS).map((e) => ({
      key: e.key,
      section: "jump",
      kind: JUMP_KINDS[e.kind],
      title: e.label,
      detail: e.detail,
      href: e.href,
    }));
    const results: Item[] = [];
    if (found?.q === words) {
      // Tasks and files named by the words are places to go; those found by their text are results.
      const folded = wordsOf(words);
      for (const r of found.tasksAndFiles) {
        if (nameScore(r.title, folded) > 0) jumps.push(resultItem(r, "jump", spaceName(r.space_id)));
        else results.push(resultItem(r, "results", spaceName(r.space_id)));
      }
      results.unshift(...found.messages.map((r) => resultItem(r, "results", spaceName(r.space_id))));
    }
    const all: Item = {
      key: "all",
      section: "all",
      kind: "",
      title: `See all results for “${words}”`,
      detail: "",
      href: searchPageHref(words),
    };
    return [...jumps, ...results, all];
  }, [words, entries, found, spaceName]);

  // The first entry is the one Enter opens as the list changes.
  // biome-ignore lint/correctness/useExhaustiveDependencies: back to the first entry whenever the words change.
  useEffect(() => setActive(0), [words]);
  const current = Math.min(active, items.length - 1);
  const activeItem = items[current];

  useEffect(() => {
    if (!activeItem) return;
    list.current?.querySelector(`#${CSS.escape(optionId(activeItem.key))}`)?.scrollIntoView({ block: "nearest" });
  }, [activeItem]);

  const open = (item: Item) => {
    chosen.current = true;
    onClose();
    navigate(item.href);
  };

  const onKeyDown = (event: React.KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((current + step + items.length) % items.length);
    } else if (event.key === "Enter" && !event.nativeEvent.isComposing) {
      event.preventDefault();
      if (activeItem) open(activeItem);
    }
  };

  const sections: [Item["section"], string][] = [
    ["jump", "Jump to"],
    ["results", "Search results"],
    ["all", ""],
  ];
  const count = (section: Item["section"], one: string, many: string) => {
    const n = items.filter((i) => i.section === section).length;
    return n ? `${n} ${n === 1 ? one : many}` : "";
  };
  const counts = [count("jump", "place", "places"), count("results", "result", "results")].filter(Boolean);
  const status = error
    ? error
    : busy
      ? "Searching…"
      : words && found?.q === words
        ? counts.join(", ") || `Nothing found for “${words}”`
        : "";

  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: a click on the backdrop; Escape closes through onCancel.
    <dialog
      ref={dialog}
      className="palette"
      aria-label="Search and jump to"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        if (event.target === dialog.current) onClose();
      }}
    >
      <div className="palette-head">
        <span className="palette-glass">
          <SearchIcon />
        </span>
        <input
          autoFocus
          type="text"
          role="combobox"
          aria-label="Jump to or search"
          aria-expanded="true"
          aria-controls="palette-list"
          aria-autocomplete="list"
          aria-activedescendant={activeItem ? optionId(activeItem.key) : undefined}
          placeholder="Jump to or search messages, tasks, files…"
          autoComplete="off"
          spellCheck={false}
          value={q}
          onChange={(event) => setQ(event.target.value)}
          onKeyDown={onKeyDown}
        />
        <button type="button" className="link palette-close" onClick={onClose}>
          Cancel
        </button>
      </div>
      <div ref={list} id="palette-list" role="listbox" aria-label="Places and results" className="palette-list">
        {sections.map(([section, heading]) => {
          const shown = items.filter((i) => i.section === section);
          if (shown.length === 0) return null;
          const headingId = `palette-${section}`;
          return (
            // biome-ignore lint/a11y/useSemanticElements: a group of a listbox's options (a fieldset cannot be one).
            <div key={section} role="group" aria-labelledby={heading ? headingId : undefined}>
              {heading && (
                <div id={headingId} className="palette-section" role="presentation">
                  {heading}
                </div>
              )}
              {shown.map((item) => (
                // biome-ignore lint/a11y/useKeyWithClickEvents: the keyboard stays in the field (aria-activedescendant).
                <div
                  key={item.key}
                  id={optionId(item.key)}
                  role="option"
                  aria-selected={item === activeItem}
                  tabIndex={-1}
                  className={`palette-option ${item.section}`}
                  onMouseMove={() => {
                    if (item !== activeItem) setActive(items.indexOf(item));
                  }}
                  // The keyboard stays in the field, as a click on an option leaves it.
                  onMouseDown={(event) => event.preventDefault()}
                  onClick={() => open(item)}
                >
                  {item.kind && <span className="palette-kind">{item.kind}</span>}
                  <span className="palette-main">
                    <span className="palette-title">{item.title}</span>
                    {item.snippet && <Snippet snippet={item.snippet} className="palette-snippet" />}
                  </span>
                  {item.detail && <span className="palette-detail">{item.detail}</span>}
                </div>
              ))}
            </div>
          );
        })}
      </div>
      <p className="palette-foot" role="status">
        <span className={error ? "error" : undefined}>{status}</span>
        <span className="palette-keys" aria-hidden="true">
          <kbd>↑</kbd>
          <kbd>↓</kbd> to move · <kbd>Enter</kbd> to open · <kbd>Esc</kbd> to close
        </span>
      </p>
    </dialog>
  );
}

/** An option's element id, from its entry's key. */
function optionId(key: string): string {
  return `palette-${key.replace(/[^a-zA-Z0-9_-]/g, "-")}`;
}
