/**
 * The board's state, loaded and kept live: the columns, the space's labels and the lanes of tasks, moves
 * (optimistic, undone with the API's error when refused, one task's moves sent one after the other), new tasks,
 * and the changes to columns and labels (shown once the server answered, and as others' changes arrive).
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Column, ColumnChanges, Label, LabelBody, LabelChanges, Task } from "../../../../src/api-types";
import { ApiError, messageOf } from "../../lib/api";
import { type LiveEvent, useLiveEvents } from "../../lib/events";
import { toast } from "../../lib/ui";
import {
  addColumn,
  changeColumn,
  changeLabel,
  createLabel,
  createTask,
  deleteColumn,
  deleteLabel,
  getBoard,
  listLabels,
  listTasks,
  moveTask,
} from "./api";
import {
  commented,
  find,
  type Lanes,
  lanesOf,
  place,
  remove,
  upsert,
  withColumn,
  withLabel,
  withLanes,
  withoutColumn,
} from "./board-state";
import { overLimitNotice } from "./model";

/** The live events the board follows. */
const FOLLOWED = /^(task|board\.column|label)\./;

/** The board's state, loaded and kept live; moves and creations go through here. */
export function useBoard(base: string, spaceId: string) {
  const [columns, setColumnsState] = useState<Column[] | null>(null);
  const [labels, setLabelsState] = useState<Label[]>([]);
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

  // The columns and labels as of now, for handlers made once (a move's notice, a held event replayed).
  const columnsRef = useRef<Column[]>([]);
  const labelsRef = useRef<Label[]>([]);
  const setColumns = useCallback(
    (change: (columns: Column[]) => Column[]) => {
      columnsRef.current = change(columnsRef.current);
      setColumnsState(columnsRef.current);
      update((l) => withLanes(l, columnsRef.current));
    },
    [update],
  );
  const setLabels = useCallback((change: (labels: Label[]) => Label[]) => {
    labelsRef.current = change(labelsRef.current);
    setLabelsState(labelsRef.current);
  }, []);

  /** Says so when a task put in `columnId` (by a move or a new task) takes it over its WIP limit. */
  const noticeLimit = useCallback((columnId: string, title: string) => {
    const column = columnsRef.current.find((c) => c.id === columnId);
    const notice = column && overLimitNotice(column, current.current[columnId]?.length ?? 0, title);
    if (notice) toast(notice);
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
      const id = (event.payload as { id: string }).id;
      switch (event.type) {
        case "task.created":
        case "task.updated":
          return hear(event.payload as Task);
        case "task.deleted":
          gone.current.add(id);
          return update((l) => remove(l, id));
        case "task.message.created":
          return update((l) => commented(l, (event.payload as { task_id: string }).task_id));
        case "board.column.created":
        case "board.column.updated":
          return setColumns((c) => withColumn(c, event.payload as Column));
        case "board.column.deleted":
          return setColumns((c) => withoutColumn(c, id));
        case "label.created":
        case "label.updated":
          return setLabels((l) => withLabel(l, event.payload as Label));
        case "label.deleted":
          // Its tasks come as task.updated events of their own, without it.
          return setLabels((l) => l.filter((label) => label.id !== id));
      }
    },
    [update, hear, setColumns, setLabels],
  );

  const load = useCallback(async () => {
    // Events that arrive while the listing is on its way are held and replayed on top of it (the version rule
    // of `upsert` drops those the listing already holds), so none falls between the two. Held until the latest
    // load answers, when two overlap (a resync while the first is on its way).
    const request = ++latest.current;
    loading.current = true;
    try {
      const [board, tasks, spaceLabels] = await Promise.all([
        getBoard(base, spaceId),
        listTasks(base, spaceId),
        listLabels(base, spaceId),
      ]);
      if (request !== latest.current) return;
      const sorted = [...board.columns].sort((a, b) => a.position - b.position);
      current.current = lanesOf(sorted, tasks);
      columnsRef.current = sorted;
      labelsRef.current = spaceLabels;
      // A comment made while the listing was on its way is most likely counted in it already: not counted twice.
      for (const event of held.current) if (event.type !== "task.message.created") apply(event);
      setColumnsState(columnsRef.current);
      setLabelsState(labelsRef.current);
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
    columnsRef.current = [];
    labelsRef.current = [];
    setLanes({});
    setColumnsState(null);
    setLabelsState([]);
    setError(null);
    void load();
  }, [load]);

  useLiveEvents((event) => {
    if (event.type === "resync") void load();
    else if (event.space_id !== spaceId || !FOLLOWED.test(event.type)) return;
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
      if (before.columnId !== columnId) noticeLimit(columnId, before.task.title);
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
    [base, spaceId, update, hear, noticeLimit],
  );

  const create = useCallback(
    async (columnId: string, title: string) => {
      const task = await createTask(base, spaceId, { title, column_id: columnId });
      update((l) => upsert(l, task));
      noticeLimit(columnId, task.title);
      return task;
    },
    [base, spaceId, update, noticeLimit],
  );

  /** Adding, changing and deleting columns: each shown once the server answered (and as others' arrive). */
  const columnOps = useMemo(
    () => ({
      add: async (name: string) => {
        const column = await addColumn(base, spaceId, { name });
        setColumns((c) => withColumn(c, column));
        return column;
      },
      change: async (id: string, changes: ColumnChanges) => {
        const column = await changeColumn(base, spaceId, id, changes);
        setColumns((c) => withColumn(c, column));
        return column;
      },
      remove: async (id: string) => {
        await deleteColumn(base, spaceId, id);
        setColumns((c) => withoutColumn(c, id));
      },
    }),
    [base, spaceId, setColumns],
  );

  /** Creating, changing and deleting the space's labels. */
  const labelOps = useMemo(
    () => ({
      create: async (body: LabelBody) => {
        const label = await createLabel(base, spaceId, body);
        setLabels((l) => withLabel(l, label));
        return label;
      },
      change: async (id: string, changes: LabelChanges) => {
        const label = await changeLabel(base, spaceId, id, changes);
        setLabels((l) => withLabel(l, label));
        return label;
      },
      remove: async (id: string) => {
        await deleteLabel(base, spaceId, id);
        setLabels((l) => l.filter((label) => label.id !== id));
      },
    }),
    [base, spaceId, setLabels],
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

  return {
    columns,
    labels,
    lanes,
    current,
    pending,
    error,
    load,
    move,
    create,
    receive,
    forget,
    columnOps,
    labelOps,
  };
}

/** What the board lets its screens do to columns. */
export type ColumnOps = ReturnType<typeof useBoard>["columnOps"];
/** What the board lets its screens do to labels. */
export type LabelOps = ReturnType<typeof useBoard>["labelOps"];
