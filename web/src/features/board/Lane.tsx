/**
 * One column of the board and its cards: the cards are links to their tasks, dragged between columns (a line
 * shows where a card lands); each column and each card is memoized on its task, so a live event re-renders one
 * card.
 */
import { type DragEvent, memo, useEffect, useRef, useState } from "react";
import type { Column, Label, Task } from "../../../../src/api-types";
import { useWorkspace } from "../../lib/workspace";
import { AddTask } from "./AddTask";
import { LaneHead } from "./LaneHead";
import { isDoneColumn } from "./model";
import { TaskCard } from "./TaskCard";
import type { ColumnOps } from "./use-board";

export { HINT_ID } from "./TaskCard";

/** The drag data type of a task, so drops of anything else (files, text) are refused. */
const DRAG_TYPE = "application/x-tandem-task";
/** The gap between cards (board.css `.lane-cards`), to centre the drop line in it. */
const GAP = 8;

// The task being dragged in this tab: dragover cannot read the drag data, only its types.
let dragged: string | null = null;

/** A card's drag begins (delegated from the board): its task is what a column's drop moves. */
export function startDrag(event: DragEvent<HTMLElement>): void {
  const card = event.target as HTMLElement;
  const id = card.dataset?.taskId;
  if (!id) return;
  dragged = id;
  event.dataTransfer.setData(DRAG_TYPE, id);
  event.dataTransfer.effectAllowed = "move";
  // After the browser took its picture of the card, so the picture is not faded.
  requestAnimationFrame(() => card.classList.add("dragging"));
}

/** A card's drag ends, dropped or not. */
export function endDrag(event: DragEvent<HTMLElement>): void {
  dragged = null;
  (event.target as HTMLElement).classList?.remove("dragging");
}

interface LaneProps {
  column: Column;
  /** The tasks shown (those that pass the filter). */
  tasks: readonly Task[];
  /** How many tasks the column holds, shown or not (what its WIP limit counts). */
  total: number;
  /** How many columns the board has. */
  columns: number;
  /** The space's labels by id. */
  labels: ReadonlyMap<string, Label>;
  ops: ColumnOps;
  filtering: boolean;
  /** The filter part of the address, kept by the cards' links. */
  filterQuery: string;
  spaceId: string;
  canWrite: boolean;
  onDrop: (id: string, columnId: string, slot: number) => void;
  onCreate: (columnId: string, title: string) => Promise<Task>;
}

/** One column: its heading, its cards, the drop line while a task is dragged over it, and "Add task". */
export const Lane = memo(function Lane({
  column,
  tasks,
  total,
  columns,
  labels,
  ops,
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
      <LaneHead column={column} count={total} shown={tasks.length} columns={columns} canWrite={canWrite} ops={ops} />
      <div className="lane-scroll" ref={scroller}>
        <ol className="lane-cards" aria-label={`Tasks in ${column.name}`}>
          {tasks.map((task) => {
            const member = task.assignee_user_id;
            return (
              <TaskCard
                key={task.id}
                task={task}
                spaceId={spaceId}
                filterQuery={filterQuery}
                canWrite={canWrite}
                done={done}
                assignee={member ? ws.nameOf(member) : null}
                assigneeStaff={member ? ws.isStaff(member) : false}
                labels={labels}
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
