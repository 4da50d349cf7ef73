/**
 * Opening a room at one message (`?message=<id>`, as a search result links it): older pages are loaded until
 * the message is among them (pages of the API's largest size, so a deep message costs few requests), then it
 * is scrolled to the middle of the list, highlighted and given the keyboard. A message that is not in the room
 * (any more) is said in words instead.
 */
import { type RefObject, useEffect, useRef, useState } from "react";
import type { RoomData } from "./room-state";
import type { Selection } from "./row-context";
import { laidOut } from "./scroll";

/** The page size while looking for the message: the API's maximum. */
export const JUMP_PAGE = 200;

/** Looks for `target` in the room as pages come in; returns the notice to show when it is not there. */
export function useRoomJump({
  target,
  data,
  loaded,
  loadOlder,
  scroller,
  stick,
  jumped,
  current,
}: {
  target: string | null;
  data: RoomData;
  loaded: boolean;
  loadOlder: (limit: number) => Promise<void>;
  scroller: RefObject<HTMLDivElement | null>;
  stick: RefObject<boolean>;
  jumped: Selection;
  current: Selection;
}): { notice: string | null; dismiss: () => void } {
  const [notice, setNotice] = useState<string | null>(null);
  /** The message still to be reached; null once it is on screen (or known to be missing). */
  const pending = useRef<string | null>(null);
  const asked = useRef<string | null | undefined>(undefined);

  useEffect(() => {
    if (asked.current !== target) {
      asked.current = target;
      pending.current = target;
      setNotice(null);
    }
    const id = pending.current;
    if (!id || !loaded) return;
    if (data.messages.some((m) => m.id === id)) {
      const el = scroller.current;
      const row = el?.querySelector<HTMLElement>(`article[data-id="${CSS.escape(id)}"]`);
      if (!el || !row) return;
      pending.current = null;
      stick.current = false;
      laidOut(row, () => {
        const top = row.getBoundingClientRect().top - el.getBoundingClientRect().top;
        el.scrollTop += top - Math.max(0, (el.clientHeight - row.offsetHeight) / 2);
      });
      jumped.set(id);
      current.set(id);
      if (!row.hasAttribute("tabindex")) row.tabIndex = -1;
      row.focus({ preventScroll: true });
    } else if (data.hasMore) {
      void loadOlder(JUMP_PAGE);
    } else {
      pending.current = null;
      setNotice("That message is not in this room any more: it may have been deleted.");
    }
  }, [target, data, loaded, loadOlder, scroller, stick, jumped, current]);

  return { notice, dismiss: () => setNotice(null) };
}
