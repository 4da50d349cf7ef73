/** What the board screens share: the Done column, WIP limits, priorities, a task's link, and the due-date rules. */
import type { Column, Priority } from "../../../../src/api-types";

/** True for the column that means finished (overdue no longer applies there). */
export function isDoneColumn(column: Pick<Column, "name"> | undefined): boolean {
  return column?.name.trim().toLowerCase() === "done";
}

/** True when a column holds more tasks than its WIP limit. */
export function isOverLimit(column: Pick<Column, "wip_limit">, count: number): boolean {
  return column.wip_limit !== null && count > column.wip_limit;
}

/** What a column's count says: "4/3" against its WIP limit, else the count alone. */
export function countText(column: Pick<Column, "wip_limit">, count: number): string {
  return column.wip_limit === null ? String(count) : `${count}/${column.wip_limit}`;
}

/** The count in words, for a screen reader and a tooltip. */
export function countTitle(column: Pick<Column, "wip_limit">, count: number): string {
  const tasks = `${count} ${count === 1 ? "task" : "tasks"}`;
  if (column.wip_limit === null) return tasks;
  return `${tasks}, limit ${column.wip_limit}${isOverLimit(column, count) ? ": over the limit" : ""}`;
}

/** The notice when a task put into `column` (now holding `count`) takes it over its WIP limit, else null. */
export function overLimitNotice(
  column: Pick<Column, "name" | "wip_limit">,
  count: number,
  title: string,
): string | null {
  if (!isOverLimit(column, count)) return null;
  return `“${title}” is in ${column.name}, which now holds ${count} tasks: over its limit of ${column.wip_limit}.`;
}

/** The priorities from the most urgent, with their names for people. */
export const PRIORITIES: readonly { value: Priority; name: string }[] = [
  { value: "urgent", name: "Urgent" },
  { value: "high", name: "High" },
  { value: "medium", name: "Medium" },
  { value: "low", name: "Low" },
  { value: "none", name: "No priority" },
];

/** A priority's name for people. */
export function priorityName(priority: Priority): string {
  return PRIORITIES.find((p) => p.value === priority)?.name ?? priority;
}

/** The board URL that opens the task, so it can be linked. */
export function taskHref(spaceId: string, taskId: string): string {
  return `/spaces/${spaceId}/board?task=${encodeURIComponent(taskId)}`;
}

/**
 * A due date is a day: it is stored as the last millisecond of that day in the browser's time zone, so a task
 * due today is not overdue until the day is over.
 */
export function endOfDay(day: string): string {
  const [y, m, d] = day.split("-").map(Number);
  return new Date(y as number, (m as number) - 1, d as number, 23, 59, 59, 999).toISOString();
}

/** The `<input type="date">` value of a due date, in local time ("" for none). */
export function dayOf(iso: string | null): string {
  if (!iso) return "";
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** True when the due date has passed. */
export function isOverdue(iso: string | null, now = Date.now()): boolean {
  return iso !== null && Date.parse(iso) < now;
}

function startOfToday(now: number): number {
  const date = new Date(now);
  return new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
}

/** Whole days from today to the due date (0 today, 1 tomorrow, -1 yesterday). */
export function daysUntil(iso: string, now = Date.now()): number {
  const due = new Date(iso);
  const dueDay = new Date(due.getFullYear(), due.getMonth(), due.getDate()).getTime();
  return Math.round((dueDay - startOfToday(now)) / 86_400_000);
}

/**
 * A due date in words, to follow "Due", "Overdue since" or "Was due": "today", "tomorrow", "yesterday",
 * "Wed, Nov 25" (as the browser's locale writes a date); the year only when it is another year. A due date is a
 * day, so a time (dates set over the API may carry one) is never written: the same task reads the same on every
 * screen. `dueText` makes the whole label.
 */
export function dueLabel(iso: string, now = Date.now()): string {
  const due = new Date(iso);
  const days = daysUntil(iso, now);
  if (days === 0) return "today";
  if (days === 1) return "tomorrow";
  if (days === -1) return "yesterday";
  const sameYear = due.getFullYear() === new Date(now).getFullYear();
  return due.toLocaleDateString(undefined, {
    weekday: Math.abs(days) < 7 ? "short" : undefined,
    day: "numeric",
    month: "short",
    year: sameYear ? undefined : "numeric",
  });
}

/**
 * The label of a due date, written one way on every screen (the board, the task panel, My tasks): "Due today",
 * "Due Wed, Nov 25", for a task past its date "Overdue since yesterday", and for a finished task (`done`, in
 * the Done column) whose date has passed "Was due Aug 29", so it does not read as a date to come.
 */
export function dueText(
  iso: string,
  { overdue = false, done = false, now = Date.now() }: { overdue?: boolean; done?: boolean; now?: number } = {},
): string {
  if (done && isOverdue(iso, now)) return `Was due ${dueLabel(iso, now)}`;
  return `${overdue ? "Overdue since" : "Due"} ${dueLabel(iso, now)}`;
}
