/**
 * A space's board: its columns and tasks, adding a task at the bottom of a column, moving tasks by drag and
 * drop or by keyboard (optimistic, rolled back with the API's error when refused), live from the events
 * socket, a filter kept in the address (filter.ts), the task detail opened by `?task=<id>`, and the columns'
 * and labels' own changes (a column's menu, "+ Add column", the Labels dialog).
 */
import { useCallback, useMemo, useRef, useState } from "react";
import type { Space, Task } from "../../../../src/api-types";
import { navigate, useLocation } from "../../lib/router";
import { ErrorText, Spinner } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { AddColumn } from "./AddColumn";
import { useAudience } from "./AssigneeOptions";
import { dropPosition, find } from "./board-state";
import { FilterBar } from "./FilterBar";
import { type BoardFilter, filterLanes, filterOf, fullSlot, isFiltering, withFilter } from "./filter";
import { LabelsDialog } from "./LabelsDialog";
import { endDrag, HINT_ID, Lane, startDrag } from "./Lane";
import { TaskDetail } from "./TaskDetail";
import { useBoard } from "./use-board";
import { useBoardKeys } from "./use-board-keys";

/** The board tab of a space. */
export function BoardPage({ space }: { space: Space }) {
  const ws = useWorkspace();
  const { query } = useLocation();
  const openId = query.get("task");
  const board = useBoard(ws.base, space.id);
  const audience = useAudience(space);
  const { columns, lanes, current, move, labels } = board;
  const [labelsOpen, setLabelsOpen] = useState(false);
  const labelsById = useMemo(() => new Map(labels.map((label) => [label.id, label])), [labels]);
  const canWrite = ws.can("tasks.write");
  const root = useRef<HTMLDivElement>(null);
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
        {
          text: filter.text,
          assignee: filter.assignee,
          due: filter.due,
          label: filter.label,
          priority: filter.priority,
        },
        me,
        Date.now(),
      ),
    [lanes, columns, filter.text, filter.assignee, filter.due, filter.label, filter.priority, me],
  );
  /** The shown lanes for handlers made once (a drop), which must see the latest filter. */
  const shownRef = useRef(shown);
  shownRef.current = shown;
  const { announcement, onKeyDown, onFocusIn, onFocusOut } = useBoardKeys({
    root,
    columns,
    lanes,
    shown,
    shownRef,
    current,
    pending: board.pending,
    move,
    canWrite,
  });

  const onDrop = useCallback(
    (id: string, columnId: string, slot: number) =>
      move(
        id,
        columnId,
        dropPosition(current.current, id, columnId, fullSlot(current.current, shownRef.current, columnId, slot)),
      ),
    [move, current],
  );

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
        <p className={canWrite ? "sr-only" : "small muted"} id={HINT_ID}>
          {canWrite
            ? "Drag tasks to move them. Keyboard: arrows go from task to task; Alt + ← / → moves the focused task to the previous / next column, Alt + ↑ / ↓ moves it up / down."
            : "You can read this board; moving and adding tasks needs the tasks.write permission."}
        </p>
      </div>
      <FilterBar
        filter={filter}
        setFilter={setFilter}
        filtering={filtering}
        audience={audience.members}
        labels={labels}
        shownTotal={shownTotal}
        total={total}
      >
        <button type="button" onClick={() => setLabelsOpen(true)}>
          Labels
        </button>
      </FilterBar>
      {labelsOpen && (
        <LabelsDialog
          labels={labels}
          ops={board.labelOps}
          canWrite={canWrite}
          usage={(id) =>
            Object.values(current.current).reduce((n, l) => n + l.filter((t) => t.label_ids.includes(id)).length, 0)
          }
          onClose={() => setLabelsOpen(false)}
        />
      )}
      <ErrorText error={board.error} />
      <ErrorText error={audience.error && `Could not load who can see this space: ${audience.error}`} />
      {/* biome-ignore lint/a11y/noStaticElementInteractions: keyboard and drag events of the cards, delegated to one listener. */}
      <div
        className="board-columns"
        ref={root}
        onKeyDown={onKeyDown}
        onDragStart={startDrag}
        onDragEnd={endDrag}
        onFocus={onFocusIn}
        onBlur={onFocusOut}
      >
        {columns.map((column) => (
          <Lane
            key={column.id}
            column={column}
            tasks={shown[column.id] ?? EMPTY}
            total={lanes[column.id]?.length ?? 0}
            columns={columns.length}
            labels={labelsById}
            ops={board.columnOps}
            filtering={filtering}
            filterQuery={filterQuery}
            spaceId={space.id}
            canWrite={canWrite}
            onDrop={onDrop}
            onCreate={board.create}
          />
        ))}
        {canWrite && <AddColumn onAdd={board.columnOps.add} />}
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
          labels={labels}
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
