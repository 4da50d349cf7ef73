/**
 * The board's tasks as state: one array per column, in board order. Every change makes a new array only for
 * the columns it touches and a new object only for the task it touches, so memoized columns and cards that
 * did not change skip rendering (a 500-task board re-renders one card per event, not 500).
 *
 * Positions are the index in the column's array, never the `position` field of the stored objects: a move
 * shifts its neighbours without an event for each of them (the server sends one `task.updated`, for the task
 * that moved), and copying new positions into every neighbour would re-render them all.
 */
import type { Column, Label, Task } from "../../../../src/api-types";

/** Tasks by column id, each array in board order. */
export type Lanes = Readonly<Record<string, readonly Task[]>>;

/** Where a task is: its column and its index there. */
export interface Place {
  columnId: string;
  index: number;
}

/** The lanes of a task listing (the API lists by column, then position). */
export function lanesOf(columns: readonly Column[], tasks: readonly Task[]): Lanes {
  const lanes: Record<string, Task[]> = {};
  for (const column of columns) lanes[column.id] = [];
  for (const task of tasks) lanes[task.column_id]?.push(task);
  for (const lane of Object.values(lanes)) lane.sort((a, b) => a.position - b.position);
  return lanes;
}

/** Where the task `id` is, or null. */
export function find(lanes: Lanes, id: string): (Place & { task: Task }) | null {
  for (const [columnId, lane] of Object.entries(lanes)) {
    const index = lane.findIndex((t) => t.id === id);
    if (index >= 0) return { columnId, index, task: lane[index] as Task };
  }
  return null;
}

/** The lanes without the task `id`. */
export function remove(lanes: Lanes, id: string): Lanes {
  const at = find(lanes, id);
  if (!at) return lanes;
  const lane = lanes[at.columnId] as readonly Task[];
  return { ...lanes, [at.columnId]: [...lane.slice(0, at.index), ...lane.slice(at.index + 1)] };
}

/**
 * `task` placed at `index` of `columnId` (clamped, so past the end means last), taken out of wherever it was.
 * Answers the same lanes when nothing changes, so React skips the render.
 */
export function place(lanes: Lanes, task: Task, columnId: string, index: number): Lanes {
  const at = find(lanes, task.id);
  if (at && at.columnId === columnId && at.index === index && at.task === task) return lanes;
  const without = at ? remove(lanes, task.id) : lanes;
  const target = without[columnId];
  if (!target) return lanes;
  const clamped = Math.max(0, Math.min(index, target.length));
  const moved = task.column_id === columnId ? task : { ...task, column_id: columnId };
  return { ...without, [columnId]: [...target.slice(0, clamped), moved, ...target.slice(clamped)] };
}

/**
 * A task as the server answered it (REST answer or live event), at its `position` in its column. An answer
 * older than what the board holds (a lower `version`, or the same one: the server's answer to our own move
 * can arrive after the events of later moves) is ignored, so late answers never undo newer state.
 */
export function upsert(lanes: Lanes, task: Task): Lanes {
  const at = find(lanes, task.id);
  if (at && at.task.version >= task.version) return lanes;
  return place(lanes, task, task.column_id, task.position);
}

/** The total number of tasks. */
export function count(lanes: Lanes): number {
  let n = 0;
  for (const lane of Object.values(lanes)) n += lane.length;
  return n;
}

/**
 * The `position` to send for a drop in `columnId` before the card at `slot` (0..length, length = after the
 * last): the 0-based index after the move, so a task moved down its own column lands one slot higher.
 */
export function dropPosition(lanes: Lanes, id: string, columnId: string, slot: number): number {
  const at = find(lanes, id);
  if (at && at.columnId === columnId && at.index < slot) return slot - 1;
  return slot;
}

/** The task `id` with one comment more (a `task.message.created`): not an update, so its version stays. */
export function commented(lanes: Lanes, id: string): Lanes {
  const at = find(lanes, id);
  if (!at) return lanes;
  const lane = lanes[at.columnId] as readonly Task[];
  const task = { ...at.task, comment_count: at.task.comment_count + 1 };
  return { ...lanes, [at.columnId]: [...lane.slice(0, at.index), task, ...lane.slice(at.index + 1)] };
}

/**
 * The board's columns with `column` at its `position` (taken out of where it was), positions made dense again:
 * what the server did for a column added, moved or renamed (one event, for that column; the others follow).
 */
export function withColumn(columns: readonly Column[], column: Column): Column[] {
  const others = columns.filter((c) => c.id !== column.id);
  const at = Math.max(0, Math.min(column.position, others.length));
  return [...others.slice(0, at), column, ...others.slice(at)].map((c, position) =>
    c.position === position ? c : { ...c, position },
  );
}

/** The board's columns without `id`, those after it one place back. */
export function withoutColumn(columns: readonly Column[], id: string): Column[] {
  return columns.filter((c) => c.id !== id).map((c, position) => (c.position === position ? c : { ...c, position }));
}

/** The lanes with an empty lane for each column that has none (a column added). */
export function withLanes(lanes: Lanes, columns: readonly Column[]): Lanes {
  const missing = columns.filter((c) => !lanes[c.id]);
  if (missing.length === 0) return lanes;
  return { ...lanes, ...Object.fromEntries(missing.map((c) => [c.id, []])) };
}

/** The space's labels with `label` added or changed, oldest first (as the API lists them). */
export function withLabel(labels: readonly Label[], label: Label): Label[] {
  const others = labels.filter((l) => l.id !== label.id);
  const at = others.findIndex(
    (l) => l.created_at > label.created_at || (l.created_at === label.created_at && l.id > label.id),
  );
  return at === -1 ? [...others, label] : [...others.slice(0, at), label, ...others.slice(at)];
}
