/**
 * The keyboard on the board: arrows walk from card to card (past empty columns), Alt + arrows move the focused
 * task (refused in words without tasks.write), and the keyboard follows a card that a change from elsewhere
 * moves to another column or takes away; what happened is said in a polite live region.
 */
import { type FocusEvent, type KeyboardEvent, type RefObject, useLayoutEffect, useRef, useState } from "react";
import type { Column } from "../../../../src/api-types";
import { toast } from "../../lib/ui";
import { find, type Lanes } from "./board-state";
import { fullSlot } from "./filter";

/** What the keyboard needs of the board. */
interface BoardKeys {
  root: RefObject<HTMLDivElement | null>;
  columns: Column[] | null;
  /** All the tasks, as shown by the last render. */
  lanes: Lanes;
  /** The tasks shown (those the filter lets through), and the latest of them for handlers made earlier. */
  shown: Lanes;
  shownRef: RefObject<Lanes>;
  /** All the tasks as of now (moves made since the last render included). */
  current: RefObject<Lanes>;
  /** Tasks with moves of this user on their way. */
  pending: RefObject<ReadonlyMap<string, unknown>>;
  move: (id: string, columnId: string, index: number, onRefused?: (message: string) => void) => void;
  canWrite: boolean;
}

/** The board's key and focus handlers (delegated to its columns' container), and what to announce. */
export function useBoardKeys({ root, columns, lanes, shown, shownRef, current, pending, move, canWrite }: BoardKeys) {
  /** The card to focus after the next render (a keyboard move re-creates it in another column). */
  const refocus = useRef<string | null>(null);
  /** What a screen reader hears after a keyboard move. */
  const [announcement, setAnnouncement] = useState("");

  // A card moved by keyboard is a new element in its new column: give it the focus back.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs after each change of the lanes, on purpose.
  useLayoutEffect(() => {
    const id = refocus.current;
    if (!id) return;
    refocus.current = null;
    const card = root.current?.querySelector<HTMLElement>(`[data-task-id="${CSS.escape(id)}"]`);
    card?.focus();
    card?.scrollIntoView({ block: "nearest", inline: "nearest" });
  }, [lanes]);

  /**
   * The card that has the keyboard, and the lanes shown when it was last seen there. A card moved to another
   * column by a change from elsewhere (a live event, a reload) is a new element, and a deleted one is gone: the
   * browser drops the focus to the page's top, so the keyboard is handed on here instead.
   */
  const focused = useRef<{ id: string; shown: Lanes } | null>(null);
  const onFocusIn = (event: FocusEvent<HTMLDivElement>) => {
    const id = (event.target as HTMLElement).dataset?.taskId;
    focused.current = id ? { id, shown: shownRef.current } : null;
  };
  const onFocusOut = (event: FocusEvent<HTMLDivElement>) => {
    const card = event.target as HTMLElement;
    // Focus that left a card still on the page was moved by the user (a click elsewhere): nothing to follow.
    // A card taken out of the page (moved or deleted) is what the effect below is for.
    queueMicrotask(() => {
      if (card.isConnected && document.activeElement !== card && focused.current?.id === card.dataset.taskId)
        focused.current = null;
    });
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs after each change of the shown cards, on purpose.
  useLayoutEffect(() => {
    const was = focused.current;
    if (!was) return;
    const active = document.activeElement;
    if (active && active !== document.body) {
      // Still on its card (or the user went on elsewhere): remember where it is now.
      if (active instanceof HTMLElement && active.dataset.taskId === was.id) focused.current = { id: was.id, shown };
      else if (!root.current?.contains(active)) focused.current = null;
      return;
    }
    const before = find(was.shown, was.id);
    const now = find(shown, was.id);
    const cardOf = (id: string) => root.current?.querySelector<HTMLElement>(`[data-task-id="${CSS.escape(id)}"]`);
    // The user's own moves (a drag) are announced by nobody but follow the card too.
    const mine = pending.current.has(was.id);
    if (now) {
      const card = cardOf(was.id);
      card?.focus();
      card?.scrollIntoView({ block: "nearest", inline: "nearest" });
      if (!mine && before && before.columnId !== now.columnId) {
        const column = columns?.find((c) => c.id === now.columnId);
        setAnnouncement(`“${now.task.title}” was moved to ${column?.name ?? "another column"} by someone else.`);
      }
      return;
    }
    // Gone from the shown cards: deleted, or changed so that the filter no longer lets it through. The keyboard
    // goes to the card that took its place, else the one above, else the column's "+ Add task" (or heading).
    focused.current = null;
    if (!before) return;
    const lane = shown[before.columnId] ?? [];
    const next = lane[before.index] ?? lane[before.index - 1];
    const section = root.current?.querySelector<HTMLElement>(`[data-column-id="${CSS.escape(before.columnId)}"]`);
    const target = next
      ? cardOf(next.id)
      : (section?.querySelector<HTMLElement>(".lane-add") ?? section?.querySelector<HTMLElement>("h2") ?? null);
    target?.focus();
    target?.scrollIntoView({ block: "nearest", inline: "nearest" });
    const deleted = !find(lanes, was.id);
    setAnnouncement(
      deleted
        ? `“${before.task.title}” was deleted by someone else.`
        : `“${before.task.title}” was changed by someone else and no longer matches the filter.`,
    );
  }, [shown]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const card = event.target as HTMLElement;
    const id = card.dataset.taskId;
    if (!id || !columns || event.ctrlKey || event.metaKey || event.shiftKey) return;
    // Walking and moving go by the cards shown (all of them, or those the filter lets through).
    const visible = shownRef.current;
    const at = find(visible, id);
    if (!at) return;
    const col = columns.findIndex((c) => c.id === at.columnId);
    const length = (columnId: string) => visible[columnId]?.length ?? 0;
    let target: { columnId: string; index: number } | null = null;
    switch (event.key) {
      case "ArrowUp":
        target = { columnId: at.columnId, index: at.index - 1 };
        break;
      case "ArrowDown":
        target = { columnId: at.columnId, index: at.index + 1 };
        break;
      case "Home":
      case "End":
        if (event.altKey) return;
        target = { columnId: at.columnId, index: event.key === "Home" ? 0 : length(at.columnId) - 1 };
        break;
      case "ArrowLeft":
      case "ArrowRight": {
        // Alt moves the card into the next column, empty or not; plain arrows walk to the next card, past
        // empty columns.
        const step = event.key === "ArrowLeft" ? -1 : 1;
        let next = columns[col + step];
        for (let c = col + step; !event.altKey && next && length(next.id) === 0; c += step) next = columns[c + step];
        if (next) target = { columnId: next.id, index: Math.min(at.index, length(next.id) - (event.altKey ? 0 : 1)) };
        break;
      }
      default:
        return;
    }
    event.preventDefault();
    if (event.altKey && !canWrite) {
      // Said, not silently ignored: the hint says it too, but a keyboard user may not have read it.
      toast("You can't move tasks: moving them needs the tasks.write permission.");
      return;
    }
    if (!target || target.index < 0) return;
    if (!event.altKey) {
      // Plain arrows walk between cards.
      const task = visible[target.columnId]?.[target.index];
      if (task) {
        const el = root.current?.querySelector<HTMLElement>(`[data-task-id="${CSS.escape(task.id)}"]`);
        el?.focus();
        el?.scrollIntoView({ block: "nearest", inline: "nearest" });
      }
      return;
    }
    if (target.index >= length(target.columnId) + (target.columnId === at.columnId ? 0 : 1)) return;
    // The place among the shown cards, as a place in the whole column.
    const neighbour = visible[target.columnId]?.[target.index];
    const index =
      target.columnId === at.columnId
        ? (find(current.current, neighbour?.id ?? id)?.index ?? target.index)
        : fullSlot(current.current, visible, target.columnId, target.index);
    refocus.current = id;
    move(id, target.columnId, index, (refused) => {
      refocus.current = id;
      setAnnouncement(refused);
    });
    const column = columns.find((c) => c.id === target.columnId);
    // Counted after the move, which is already shown (the card is in its new column, once).
    const total = current.current[target.columnId]?.length ?? 0;
    setAnnouncement(`Moved “${at.task.title}” to ${column?.name}, position ${index + 1} of ${total}.`);
  };

  return { announcement, onKeyDown, onFocusIn, onFocusOut };
}
