/**
 * Scrolling an open room's list: it stays pinned to the bottom while the reader is there (new messages and
 * images that load keep it there); once they scroll up, nothing moves under them and "N new messages ↓"
 * offers the newest. A row is held in place while older messages go in front of it, and older pages load while
 * the top is in sight.
 */
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import type { Message } from "../../../../src/api-types";
import { laidOut } from "./scroll";

/** Older messages are fetched when the reader comes this close to the top. */
const NEAR_TOP_PX = 600;
/** Within this of the bottom counts as "at the bottom". */
const NEAR_BOTTOM_PX = 48;

/** The list's scrolling, laid out again after each change of what it shows. */
export function useRoomScroll({
  messages,
  pending,
  loaded,
  hasMore,
  olderError,
  loadOlder,
}: {
  messages: readonly Message[];
  /** Messages on their way, shown under the others. */
  pending: readonly unknown[];
  loaded: boolean;
  /** Whether older messages may exist. */
  hasMore: boolean;
  olderError: string | null;
  loadOlder: () => void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const list = useRef<HTMLDivElement>(null);
  /** Pinned to the bottom: new content scrolls into view. */
  const stick = useRef(true);
  /** The row to hold in place while an older page is put in front. */
  const anchor = useRef<{ id: string; offset: number } | null>(null);
  /** The oldest message of the last page, to focus when that page took away "Load older messages" focused. */
  const focusAfterOlder = useRef<string | null>(null);
  const firstLayout = useRef(true);
  const [newBelow, setNewBelow] = useState(0);

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
    if (el.scrollTop < NEAR_TOP_PX && hasMore && !olderError) setTimeout(() => void loadOlder(), 0);
  }, [messages, pending, loaded]);

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

  return { scroller, list, stick, anchor, focusAfterOlder, newBelow, setNewBelow, onScroll, toBottom };
}
