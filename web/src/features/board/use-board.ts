/**
 * The board's state, loaded and kept live: the columns and the lanes of tasks, moves (optimistic, undone with
 * the API's error when refused, one task's moves sent one after the other) and new tasks.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import type { Column, Task } from "../../../../src/api-types";
import { ApiError, messageOf } from "../../lib/api";
import { type LiveEvent, useLiveEvents } from "../../lib/events";
import { toast } from "../../lib/ui";
import { createTask, getBoard, listTasks, moveTask } from "./api";
import { find, type Lanes, lanesOf, place, remove, upsert } from "./board-state";

/** The board's state, loaded and kept live; moves and creations go through here. */
export function useBoard(base: string, spaceId: string) {
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
