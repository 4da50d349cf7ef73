/**
 * A space's board: its columns and tasks, adding a task at the bottom of a column, moving tasks by drag and
 * drop or by keyboard (optimistic, rolled back with the API's error when refused), live from the events
 * socket, a filter kept in the address (filter.ts), and the task detail opened by `?task=<id>`.
 */
import {
  type DragEvent,
  type FocusEvent,
  type FormEvent,
  type KeyboardEvent,
  memo,
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import type { Column, Space, Task } from "../../../../src/api-types";
import { ApiError, messageOf } from "../../lib/api";
import { type LiveEvent, useLiveEvents } from "../../lib/events";
import { useAction } from "../../lib/hooks";
import { Link, navigate, useLocation } from "../../lib/router";
import { Avatar, ErrorText, Spinner, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { AssigneeOptions, useAudience } from "./AssigneeOptions";
import { createTask, getBoard, listTasks, moveTask } from "./api";
import { dropPosition, find, type Lanes, lanesOf, place, remove, upsert } from "./board-state";
import { type BoardFilter, type DueChoice, filterLanes, filterOf, fullSlot, isFiltering, withFilter } from "./filter";
import { PaperClip } from "./icons";
import { dueText, isDoneColumn, isOverdue } from "./model";
import { TaskDetail } from "./TaskDetail";

/** The drag data type of a task, so drops of anything else (files, text) are refused. */
const DRAG_TYPE = "application/x-tandem-task";
/** The id of the keyboard hint, which every movable card points to (aria-describedby). */
const HINT_ID = "board-keys-hint";
/** The gap between cards (board.css `.lane-cards`), to centre the drop line in it. */
const GAP = 8;
/** The longest task title the API takes. */
const TITLE_MAX = 500;

/** True when the keyboard is in something that takes text (so "/" is typed there, not a shortcut). */
function typingIn(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
}

// The task being dragged in this tab: dragover cannot read the drag data, only its types.
let dragged: string | null = null;

/** The board's state, loaded and kept live; moves and creations go through here. */
function useBoard(base: string, spaceId: string) {
  const [columns, setColumns] = useState<Column[] | null>(null);
  const [lanes, setLanes] = useState<Lanes>({});
  const [error, setError] = useState<string | null>(null);
  // The ref is the source of truth, so several moves before the next render each see the previous one.
  const current = useRef<Lanes>({});
  const gone = useRef(new Set<string>());
  const loading = useRef(true);
  /** The latest load: an earlier one still under way is dropped when it answers (the latest replays events). */
  const latest = useRef(0);
  const held = useRef<LiveEvent[]>([]);
  const chains = useRef(new Map<string, Promise<void>>());

  const update = useCallback((change: (lanes: Lanes) => Lanes) => {
    const next = change(current.current);
    if (next === current.current) return;
    current.current = next;
    setLanes(next);
  }, []);

  /**
   * Tasks with moves on their way, each with the newest copy the server sent meanwhile (an answer or an
   * event). It is applied when the last move answers: applied earlier, the answer to a first move would
   * put the card back where the second move took it from, and the focused card would lose its focus.
   */
  const pending = useRef(new Map<string, { moves: number; latest: Task | null }>());

  /** Holds `task` back while its moves are on their way; otherwise shows it (the version rule decides). */
  const hear = useCallback(
    (task: Task) => {
      if (gone.current.has(task.id)) return;
      const waiting = pending.current.get(task.id);
      if (!waiting) update((l) => upsert(l, task));
      else if (!waiting.latest || waiting.latest.version < task.version) waiting.latest = task;
    },
    [update],
  );

  const apply = useCallback(
    (event: LiveEvent) => {
      if (event.type === "task.created" || event.type === "task.updated") hear(event.payload as Task);
      else if (event.type === "task.deleted") {
        const id = (event.payload as { id: string }).id;
        gone.current.add(id);
        update((l) => remove(l, id));
      }
    },
    [update, hear],
  );

  const load = useCallback(async () => {
    // Events that arrive while the listing is on its way are held and replayed on top of it (the version rule
    // of `upsert` drops those the listing already holds), so none falls between the two. Held until the latest
    // load answers, when two overlap (a resync while the first is on its way).
    const request = ++latest.current;
    loading.current = true;
    try {
      const [board, tasks] = await Promise.all([getBoard(base, spaceId), listTasks(base, spaceId)]);
      if (request !== latest.current) return;
      const sorted = [...board.columns].sort((a, b) => a.position - b.position);
      current.current = lanesOf(sorted, tasks);
      for (const event of held.current) apply(event);
      setColumns(sorted);
      setLanes(current.current);
      setError(null);
    } catch (err) {
      if (request === latest.current) setError(messageOf(err));
    } finally {
      if (request === latest.current) {
        held.current = [];
        loading.current = false;
      }
    }
  }, [base, spaceId, apply]);

  useEffect(() => {
    current.current = {};
    gone.current = new Set();
    setLanes({});
    setColumns(null);
    setError(null);
    void load();
  }, [load]);

  useLiveEvents((event) => {
    if (event.type === "resync") void load();
    else if (event.space_id !== spaceId || !event.type.startsWith("task.")) return;
    else if (loading.current) held.current.push(event);
    else apply(event);
  });

  /**
   * Moves a task to `index` (after the move) of `columnId`: shown at once, sent, undone if refused, when
   * `onRefused` hears why (a keyboard move keeps its card focused and says so).
   */
  const move = useCallback(
    (id: string, columnId: string, index: number, onRefused?: (message: string) => void) => {
      const before = find(current.current, id);
      if (!before || (before.columnId === columnId && before.index === index)) return;
      update((l) => place(l, before.task, columnId, index));
      const waiting = pending.current.get(id) ?? { moves: 0, latest: null };
      waiting.moves++;
      pending.current.set(id, waiting);
      // One task's moves go out one after the other, so the server applies them in the order they were made.
      const previous = chains.current.get(id) ?? Promise.resolve();
      const next = previous.then(async () => {
        try {
          hear(await moveTask(base, spaceId, id, columnId, index));
        } catch (err) {
          const refused = `Could not move “${before.task.title}”: ${messageOf(err)}`;
          toast(refused, "error");
          onRefused?.(refused);
          if (err instanceof ApiError && err.status === 404) {
            gone.current.add(id);
            update((l) => remove(l, id));
            return;
          }
          update((l) => {
            const now = find(l, id);
            // A newer copy (an edit in the detail) wins over putting it back; one heard from the server
            // meanwhile is shown after this, when the last move answers.
            if (!now || now.task.version !== before.task.version) return l;
            return place(l, before.task, before.columnId, before.index);
          });
        } finally {
          if (--waiting.moves === 0) {
            pending.current.delete(id);
            if (waiting.latest) hear(waiting.latest);
          }
        }
      });
      chains.current.set(id, next);
      void next.finally(() => {
        if (chains.current.get(id) === next) chains.current.delete(id);
      });
    },
    [base, spaceId, update, hear],
  );

  const create = useCallback(
    async (columnId: string, title: string) => {
      const task = await createTask(base, spaceId, { title, column_id: columnId });
      update((l) => upsert(l, task));
      return task;
    },
    [base, spaceId, update],
  );

  /** A task as the server answered it (an edit in the detail). */
  const receive = useCallback((task: Task) => update((l) => upsert(l, task)), [update]);

  const forget = useCallback(
    (id: string) => {
      gone.current.add(id);
      update((l) => remove(l, id));
    },
    [update],
  );

  return { columns, lanes, current, pending, error, load, move, create, receive, forget };
}

/** The board tab of a space. */
export function BoardPage({ space }: { space: Space }) {
  const ws = useWorkspace();
  const { query } = useLocation();
  const openId = query.get("task");
  const board = useBoard(ws.base, space.id);
  const audience = useAudience(space);
  const { columns, lanes, current, move } = board;
  const canWrite = ws.can("tasks.write");
  const root = useRef<HTMLDivElement>(null);
  const filterBox = useRef<HTMLInputElement>(null);
  const filter = filterOf(query);
  const filtering = isFiltering(filter);
  /** The filter part of the address, kept in the cards' links and when the task panel closes. */
  const filterQuery = withFilter(new URLSearchParams(), filter).toString();
  const boardPath = `/spaces/${space.id}/board`;
  const setFilter = (change: Partial<BoardFilter>) => {
    const next = withFilter(query, { ...filter, ...change }).toString();
    // Replaced, not pushed: each letter typed is not a step back; reload and back keep the filter all the same.
    navigate(next ? `${boardPath}?${next}` : boardPath, { replace: true });
  };
  const me = ws.me.id;
  const shown = useMemo(
    () =>
      filterLanes(
        lanes,
        columns ?? [],
        { text: filter.text, assignee: filter.assignee, due: filter.due },
        me,
        Date.now(),
      ),
    [lanes, columns, filter.text, filter.assignee, filter.due, me],
  );
  /** The shown lanes for handlers made once (a drop), which must see the latest filter. */
  const shownRef = useRef(shown);
  shownRef.current = shown;

  // "/" goes to the filter box, as in many tools, unless the keyboard is in a field or a dialog is open.
  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey || typingIn(event.target)) return;
      if (document.querySelector("dialog[open]")) return;
      event.preventDefault();
      filterBox.current?.focus();
      filterBox.current?.select();
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);
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
    const mine = board.pending.current.has(was.id);
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

  const onDrop = useCallback(
    (id: string, columnId: string, slot: number) =>
      move(
        id,
        columnId,
        dropPosition(current.current, id, columnId, fullSlot(current.current, shownRef.current, columnId, slot)),
      ),
    [move, current],
  );

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

  const onDragStart = (event: DragEvent<HTMLDivElement>) => {
    const card = event.target as HTMLElement;
    const id = card.dataset?.taskId;
    if (!id) return;
    dragged = id;
    event.dataTransfer.setData(DRAG_TYPE, id);
    event.dataTransfer.effectAllowed = "move";
    // After the browser took its picture of the card, so the picture is not faded.
    requestAnimationFrame(() => card.classList.add("dragging"));
  };

  const onDragEnd = (event: DragEvent<HTMLDivElement>) => {
    dragged = null;
    (event.target as HTMLElement).classList?.remove("dragging");
  };

  if (board.error && !columns)
    return (
      <div className="page-body">
        <ErrorText error={board.error} />
        <button type="button" onClick={() => void board.load()}>
          Try again
        </button>
      </div>
    );
  if (!columns) return <Spinner label="Loading the board…" />;

  const open = openId ? (find(lanes, openId)?.task ?? null) : null;
  const cardOf = (id: string) => root.current?.querySelector<HTMLElement>(`[data-task-id="${CSS.escape(id)}"]`) ?? null;
  /**
   * The task whose card shows under a point: the board is inert behind the open panel, so the card is found by
   * place, within the scrolling boxes that clip it (a card scrolled out of its column is not there to click).
   */
  const taskAt = (x: number, y: number): string | null => {
    const inside = (el: Element | null | undefined) => {
      if (!el) return true;
      const box = el.getBoundingClientRect();
      return x >= box.left && x <= box.right && y >= box.top && y <= box.bottom;
    };
    if (!inside(root.current)) return null;
    for (const el of root.current?.querySelectorAll<HTMLElement>("[data-task-id]") ?? []) {
      if (inside(el) && inside(el.closest(".lane-scroll"))) return el.dataset.taskId ?? null;
    }
    return null;
  };
  const taskLink = (id: string) => `${boardPath}?${filterQuery ? `${filterQuery}&` : ""}task=${encodeURIComponent(id)}`;
  const total = columns.reduce((n, c) => n + (lanes[c.id]?.length ?? 0), 0);
  const shownTotal = columns.reduce((n, c) => n + (shown[c.id]?.length ?? 0), 0);

  return (
    <div className="board">
      <div className="board-bar">
        <p className="small muted" id={HINT_ID}>
          {canWrite
            ? "Drag tasks to move them. Keyboard: arrows go from task to task; Alt + ← / → moves the focused task to the previous / next column, Alt + ↑ / ↓ moves it up / down."
            : "You can read this board; moving and adding tasks needs the tasks.write permission."}
        </p>
      </div>
      <search className="board-filter" aria-label="Filter tasks">
        <input
          ref={filterBox}
          type="search"
          aria-label="Filter tasks by title or description"
          aria-keyshortcuts="/"
          placeholder="Filter tasks  ( / )"
          value={filter.text}
          onChange={(event) => setFilter({ text: event.target.value })}
          onKeyDown={(event) => {
            if (event.key === "Escape" && filter.text) {
              event.preventDefault();
              setFilter({ text: "" });
            }
          }}
        />
        <label className="board-filter-choice">
          <span>Assignee</span>
          <select value={filter.assignee} onChange={(event) => setFilter({ assignee: event.target.value })}>
            <option value="">Anyone</option>
            <option value="me">Me</option>
            <option value="none">Unassigned</option>
            <AssigneeOptions
              members={audience.members ?? []}
              loading={!audience.members}
              current={["", "me", "none"].includes(filter.assignee) ? null : filter.assignee}
            />
          </select>
        </label>
        <label className="board-filter-choice">
          <span>Due</span>
          <select value={filter.due} onChange={(event) => setFilter({ due: event.target.value as DueChoice })}>
            <option value="">Any time</option>
            <option value="overdue">Overdue</option>
            <option value="week">Due in the next 7 days</option>
            <option value="none">No due date</option>
          </select>
        </label>
        {filtering && (
          <button
            type="button"
            className="link"
            onClick={() => {
              setFilter({ text: "", assignee: "", due: "" });
              filterBox.current?.focus();
            }}
          >
            Clear filters
          </button>
        )}
        <span className="small muted board-filter-count" role="status">
          {filtering
            ? `${shownTotal} of ${total} ${total === 1 ? "task" : "tasks"}`
            : `${total} ${total === 1 ? "task" : "tasks"}`}
        </span>
      </search>
      <ErrorText error={board.error} />
      <ErrorText error={audience.error && `Could not load who can see this space: ${audience.error}`} />
      {/* biome-ignore lint/a11y/noStaticElementInteractions: keyboard and drag events of the cards, delegated to one listener. */}
      <div
        className="board-columns"
        ref={root}
        onKeyDown={onKeyDown}
        onDragStart={onDragStart}
        onDragEnd={onDragEnd}
        onFocus={onFocusIn}
        onBlur={onFocusOut}
      >
        {columns.map((column) => (
          <Lane
            key={column.id}
            column={column}
            tasks={shown[column.id] ?? EMPTY}
            filtering={filtering}
            filterQuery={filterQuery}
            spaceId={space.id}
            canWrite={canWrite}
            onDrop={onDrop}
            onCreate={board.create}
          />
        ))}
      </div>
      <p className="sr-only" role="status" aria-live="polite">
        {announcement}
      </p>
      {openId && (
        <TaskDetail
          key={openId}
          space={space}
          taskId={openId}
          task={open}
          columns={columns}
          audience={audience.members}
          taskAt={taskAt}
          cardOf={cardOf}
          onOpen={(id) => navigate(taskLink(id))}
          onClose={() => navigate(filterQuery ? `${boardPath}?${filterQuery}` : boardPath)}
          onTask={board.receive}
          onMoveTo={(id, columnId) => move(id, columnId, current.current[columnId]?.length ?? 0)}
          onDeleted={board.forget}
        />
      )}
    </div>
  );
}

const EMPTY: readonly Task[] = [];

interface LaneProps {
  column: Column;
  /** The tasks shown (those that pass the filter). */
  tasks: readonly Task[];
  filtering: boolean;
  /** The filter part of the address, kept by the cards' links. */
  filterQuery: string;
  spaceId: string;
  canWrite: boolean;
  onDrop: (id: string, columnId: string, slot: number) => void;
  onCreate: (columnId: string, title: string) => Promise<Task>;
}

/** One column: its heading, its cards, the drop line while a task is dragged over it, and "Add task". */
const Lane = memo(function Lane({
  column,
  tasks,
  filtering,
  filterQuery,
  spaceId,
  canWrite,
  onDrop,
  onCreate,
}: LaneProps) {
  const ws = useWorkspace();
  const scroller = useRef<HTMLDivElement>(null);
  const [drop, setDrop] = useState<{ slot: number; top: number } | null>(null);
  const done = isDoneColumn(column);

  const cards = () =>
    scroller.current?.querySelectorAll<HTMLElement>("[data-task-id]") ?? ([] as unknown as NodeListOf<HTMLElement>);

  /** The slot (0..n) under the pointer: before the first card whose middle is below it. Cards are in order. */
  const slotAt = (y: number): { slot: number; top: number } => {
    const list = cards();
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const rect = (list[mid] as HTMLElement).getBoundingClientRect();
      if (y < rect.top + rect.height / 2) hi = mid;
      else lo = mid + 1;
    }
    const at = list[lo];
    const last = list[list.length - 1];
    const top = at ? at.offsetTop - GAP / 2 : last ? last.offsetTop + last.offsetHeight + GAP / 2 : 0;
    return { slot: lo, top };
  };

  // A drag cancelled (Escape) or dropped elsewhere leaves no line behind.
  useEffect(() => {
    if (!drop) return;
    const clear = () => setDrop(null);
    addEventListener("dragend", clear);
    return () => removeEventListener("dragend", clear);
  }, [drop]);

  const onDragOver = (event: DragEvent<HTMLElement>) => {
    if (!canWrite || !event.dataTransfer.types.includes(DRAG_TYPE)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "move";
    const next = slotAt(event.clientY);
    if (next.slot !== drop?.slot || next.top !== drop.top) setDrop(next);
  };

  const onDragLeave = (event: DragEvent<HTMLElement>) => {
    if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDrop(null);
  };

  const onDropHere = (event: DragEvent<HTMLElement>) => {
    if (!event.dataTransfer.types.includes(DRAG_TYPE)) return;
    event.preventDefault();
    const id = dragged ?? event.dataTransfer.getData(DRAG_TYPE);
    const { slot } = slotAt(event.clientY);
    setDrop(null);
    if (id) onDrop(id, column.id, slot);
  };

  const created = async (title: string) => {
    await onCreate(column.id, title);
    requestAnimationFrame(() => scroller.current?.scrollTo({ top: scroller.current.scrollHeight }));
  };

  return (
    <section
      className={`lane${drop ? " drop-target" : ""}`}
      aria-labelledby={`lane-${column.id}`}
      data-column-id={column.id}
      onDragOver={onDragOver}
      onDragLeave={onDragLeave}
      onDrop={onDropHere}
    >
      <header className="lane-head">
        {/* Focusable by script only: where the keyboard goes when the last card of a read-only column is deleted. */}
        <h2 id={`lane-${column.id}`} tabIndex={-1}>
          {column.name}
        </h2>
        <span className="lane-count" title={`${tasks.length} tasks`}>
          {tasks.length}
        </span>
      </header>
      <div className="lane-scroll" ref={scroller}>
        <ol className="lane-cards" aria-label={`Tasks in ${column.name}`}>
          {tasks.map((task) => {
            const member = task.assignee_user_id;
            return (
              <Card
                key={task.id}
                task={task}
                spaceId={spaceId}
                filterQuery={filterQuery}
                canWrite={canWrite}
                done={done}
                assignee={member ? ws.nameOf(member) : null}
                assigneeStaff={member ? ws.isStaff(member) : false}
              />
            );
          })}
        </ol>
        {drop && <div className="drop-line" style={{ top: drop.top }} aria-hidden="true" />}
        {tasks.length === 0 && !drop && (
          <p className="lane-empty small muted">{filtering ? "No matching tasks" : "No tasks"}</p>
        )}
      </div>
      {canWrite && <AddTask column={column} onCreate={created} />}
    </section>
  );
});

interface CardProps {
  task: Task;
  spaceId: string;
  filterQuery: string;
  canWrite: boolean;
  done: boolean;
  assignee: string | null;
  assigneeStaff: boolean;
}

/** One task on the board: a link to its detail, draggable; re-renders only when its own props change. */
const Card = memo(function Card({ task, spaceId, filterQuery, canWrite, done, assignee, assigneeStaff }: CardProps) {
  const overdue = !done && isOverdue(task.due_at);
  const hasMeta = task.due_at || task.deliverable_required || assignee;
  return (
    <li>
      <Link
        href={`/spaces/${spaceId}/board?${filterQuery ? `${filterQuery}&` : ""}task=${encodeURIComponent(task.id)}`}
        className={`task-card${overdue ? " overdue" : ""}`}
        data-task-id={task.id}
        draggable={canWrite}
        aria-describedby={canWrite ? HINT_ID : undefined}
      >
        <span className="task-card-title">{task.title}</span>
        {hasMeta && (
          <span className="task-card-meta">
            {task.due_at && (
              <span className={`due${overdue ? " overdue" : ""}`} title={new Date(task.due_at).toLocaleString()}>
                {dueText(task.due_at, { overdue, done })}
              </span>
            )}
            {task.deliverable_required && (
              <span className="deliverable-flag" title="A deliverable is required">
                <PaperClip />
                <span className="sr-only">Deliverable required</span>
              </span>
            )}
            {assignee && task.assignee_user_id && (
              <span className="task-card-assignee">
                <Avatar id={task.assignee_user_id} name={assignee} staff={assigneeStaff} />
                <span className="sr-only">
                  Assigned to {assignee}
                  {assigneeStaff ? " (AI staff)" : ""}
                </span>
              </span>
            )}
          </span>
        )}
      </Link>
    </li>
  );
});

/** "Add task" at the bottom of a column: stays open after adding, for the next one; Escape closes it. */
function AddTask({ column, onCreate }: { column: Column; onCreate: (title: string) => Promise<void> }) {
  const [open, setOpen] = useState(false);
  const [title, setTitle] = useState("");
  const input = useRef<HTMLInputElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  /** Closed by the user: the keyboard goes back to "+ Add task" (the form it was in is gone). */
  const reopen = useRef(false);
  useEffect(() => {
    if (open || !reopen.current) return;
    reopen.current = false;
    button.current?.focus();
  }, [open]);
  const tooLong = title.length > TITLE_MAX;
  const noteId = `lane-note-${column.id}`;
  // Emptied at once, so the next title can be typed while this one is stored; given back if refused (unless
  // something new was typed meanwhile).
  const { run, busy, error, clear } = useAction(async (value: string) => {
    setTitle("");
    try {
      await onCreate(value);
    } catch (err) {
      setTitle((current) => current || value);
      throw err;
    }
  });

  const close = () => {
    reopen.current = true;
    setOpen(false);
    setTitle("");
    clear();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const value = title.trim();
    if (value && !tooLong) void run(value).then(() => input.current?.focus());
  };

  if (!open)
    return (
      <button
        ref={button}
        type="button"
        className="lane-add"
        aria-label={`Add task to ${column.name}`}
        onClick={() => setOpen(true)}
      >
        + Add task
      </button>
    );
  return (
    <form className="lane-form" onSubmit={submit}>
      <input
        ref={input}
        // biome-ignore lint/a11y/noAutofocus: the form opens on purpose, to type the title at once.
        autoFocus
        aria-label={`Title of the new task in ${column.name}`}
        placeholder="Task title"
        value={title}
        // Not maxLength: a pasted title would be cut without a word. The note says so and Add waits.
        aria-invalid={tooLong || undefined}
        aria-describedby={tooLong ? noteId : undefined}
        onChange={(event) => setTitle(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Escape") {
            event.preventDefault();
            close();
          }
        }}
      />
      <div className="row">
        <button type="submit" className="primary" disabled={busy || !title.trim() || tooLong}>
          Add
        </button>
        <button type="button" onClick={close}>
          Cancel
        </button>
      </div>
      {tooLong && (
        <p className="small error" id={noteId} role="status">
          A title can have at most {TITLE_MAX} characters; this one has {title.length.toLocaleString()}. Shorten it, and
          put the rest in the description.
        </p>
      )}
      <ErrorText error={error} />
    </form>
  );
}
