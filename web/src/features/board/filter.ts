/**
 * The board's filter: words in the title or description, an assignee, a due date, a label and a priority, kept
 * in the address (`?q=…&assignee=me|none|<userId>&due=overdue|week|none&label=<labelId>&priority=<priority>`)
 * so a reload, back and a shared link keep it. The
 * board shows the lanes filtered; moves are worked out on the shown cards and sent as places in the whole
 * column, so a task moved between two shown cards lands between them.
 */
import type { Column, Priority, Task } from "../../../../src/api-types";
import type { Lanes } from "./board-state";
import { daysUntil, isDoneColumn, isOverdue } from "./model";

/** A due-date choice of the filter. */
export type DueChoice = "" | "overdue" | "week" | "none";

/** What the board is filtered by; empty strings mean "any". */
export interface BoardFilter {
  text: string;
  /** "" anyone, "me", "none" (unassigned), or a user id. */
  assignee: string;
  due: DueChoice;
  /** "" any, or a label's id. */
  label: string;
  priority: "" | Priority;
}

const DUE: readonly DueChoice[] = ["", "overdue", "week", "none"];
const PRIORITY: readonly string[] = ["none", "low", "medium", "high", "urgent"];

/** The filter in an address's query. */
export function filterOf(query: URLSearchParams): BoardFilter {
  const due = query.get("due") ?? "";
  const priority = query.get("priority") ?? "";
  return {
    text: query.get("q") ?? "",
    assignee: query.get("assignee") ?? "",
    due: (DUE as readonly string[]).includes(due) ? (due as DueChoice) : "",
    label: query.get("label") ?? "",
    priority: PRIORITY.includes(priority) ? (priority as Priority) : "",
  };
}

/** True when the filter hides anything. */
export function isFiltering(filter: BoardFilter): boolean {
  return (
    filter.text.trim() !== "" ||
    filter.assignee !== "" ||
    filter.due !== "" ||
    filter.label !== "" ||
    filter.priority !== ""
  );
}

/** `query` with the filter written in (empty parts left out), other parameters (`task`) kept. */
export function withFilter(query: URLSearchParams, filter: BoardFilter): URLSearchParams {
  const next = new URLSearchParams(query);
  const set = (key: string, value: string) => (value ? next.set(key, value) : next.delete(key));
  set("q", filter.text);
  set("assignee", filter.assignee);
  set("due", filter.due);
  set("label", filter.label);
  set("priority", filter.priority);
  return next;
}

/** True when `text` (trimmed, any case) is in the title or the description; an empty text matches all. */
export function matchesText(task: Pick<Task, "title" | "description">, text: string): boolean {
  const words = text.trim().toLocaleLowerCase();
  if (!words) return true;
  return task.title.toLocaleLowerCase().includes(words) || task.description.toLocaleLowerCase().includes(words);
}

/** True when the task passes the filter (`me` is the viewer's id; a task in Done is never overdue). */
export function matchesFilter(task: Task, filter: BoardFilter, me: string, done: boolean, now: number): boolean {
  if (!matchesText(task, filter.text)) return false;
  if (filter.label && !task.label_ids.includes(filter.label)) return false;
  if (filter.priority && task.priority !== filter.priority) return false;
  if (filter.assignee === "me" && task.assignee_user_id !== me) return false;
  if (filter.assignee === "none" && task.assignee_user_id !== null) return false;
  if (!["", "me", "none"].includes(filter.assignee) && task.assignee_user_id !== filter.assignee) return false;
  if (filter.due === "none") return task.due_at === null;
  if (filter.due === "overdue") return !done && isOverdue(task.due_at, now);
  if (filter.due === "week")
    return task.due_at !== null && !isOverdue(task.due_at, now) && daysUntil(task.due_at, now) <= 7;
  return true;
}

/** The lanes with only the tasks that pass; the same object when nothing is filtered. */
export function filterLanes(
  lanes: Lanes,
  columns: readonly Column[],
  filter: BoardFilter,
  me: string,
  now: number,
): Lanes {
  if (!isFiltering(filter)) return lanes;
  const out: Record<string, readonly Task[]> = {};
  for (const column of columns) {
    const done = isDoneColumn(column);
    out[column.id] = (lanes[column.id] ?? []).filter((t) => matchesFilter(t, filter, me, done, now));
  }
  return out;
}

/**
 * The slot in the whole column `columnId` (0..length) of `slot` among the shown cards: before the shown card
 * there, or just after the last shown card when past them (the end of the column when none shows).
 */
export function fullSlot(full: Lanes, shown: Lanes, columnId: string, slot: number): number {
  const all = full[columnId] ?? [];
  const some = shown[columnId] ?? [];
  if (some === all) return slot;
  const before = some[slot];
  if (before) return all.findIndex((t) => t.id === before.id);
  const last = some[some.length - 1];
  return last ? all.findIndex((t) => t.id === last.id) + 1 : all.length;
}
