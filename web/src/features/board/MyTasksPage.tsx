/**
 * My tasks: the tasks assigned to me across the spaces I can see, grouped by when they are due (overdue
 * first, marked in colour and in words), each linking to its task on its board; live from the events socket.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Column, MyTask, Task } from "../../../../src/api-types";
import { messageOf } from "../../lib/api";
import { loadFresh, useLiveEvents } from "../../lib/events";
import { Link, navigate, useLocation } from "../../lib/router";
import { Empty, ErrorText, Spinner } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { getBoard, listMyTasks } from "./api";
import { matchesText } from "./filter";
import { daysUntil, dueText, isDoneColumn, isOverdue, taskHref } from "./model";

type Group = "overdue" | "today" | "week" | "later" | "none" | "done";

const GROUPS: [Group, string][] = [
  ["overdue", "Overdue"],
  ["today", "Due today"],
  ["week", "Due in the next 7 days"],
  ["later", "Due later"],
  ["none", "No due date"],
  ["done", "Done"],
];

function groupOf(task: MyTask, column: Column | undefined, now: number): Group {
  if (isDoneColumn(column)) return "done";
  if (!task.due_at) return "none";
  if (isOverdue(task.due_at, now)) return "overdue";
  const days = daysUntil(task.due_at, now);
  if (days <= 0) return "today";
  if (days <= 7) return "week";
  return "later";
}

/** The "My tasks" screen. */
export function MyTasksPage() {
  const ws = useWorkspace();
  // The same words filter as the board's, kept in the address (`?q=`) so reload and back keep it.
  const text = useLocation().query.get("q") ?? "";
  const setText = (value: string) =>
    navigate(value ? `/my-tasks?q=${encodeURIComponent(value)}` : "/my-tasks", { replace: true });
  const [tasks, setTasks] = useState<MyTask[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Column names by column id, from each space's board (fetched once per space).
  const [columns, setColumns] = useState<Map<string, Column>>(new Map());
  const asked = useRef(new Set<string>());

  const load = useCallback(async () => {
    try {
      setTasks(await loadFresh(() => listMyTasks(ws.org.id)));
      setError(null);
    } catch (err) {
      setError(messageOf(err));
    }
  }, [ws.org.id]);

  useEffect(() => {
    void load();
  }, [load]);

  useEffect(() => {
    for (const spaceId of new Set(tasks?.map((t) => t.space_id))) {
      if (asked.current.has(spaceId)) continue;
      asked.current.add(spaceId);
      getBoard(ws.base, spaceId)
        .then((board) =>
          setColumns((map) => {
            const next = new Map(map);
            for (const column of board.columns) next.set(column.id, column);
            return next;
          }),
        )
        .catch(() => asked.current.delete(spaceId)); // The list still shows; the column name is only a detail.
    }
  }, [tasks, ws.base]);

  useLiveEvents((event) => {
    if (event.type === "resync") {
      void load();
      return;
    }
    if (event.type === "task.deleted") {
      const id = event.payload.id as string;
      setTasks((list) => list?.filter((t) => t.id !== id) ?? list);
    } else if (event.type === "task.created" || event.type === "task.updated") {
      const task = event.payload as Task;
      setTasks((list) => {
        if (!list) return list;
        const existing = list.find((t) => t.id === task.id);
        if (existing && existing.version > task.version) return list;
        const rest = list.filter((t) => t.id !== task.id);
        if (task.assignee_user_id !== ws.me.id) return existing ? rest : list;
        const spaceName = existing?.space_name ?? ws.spaces.find((s) => s.id === task.space_id)?.name ?? "";
        return [{ ...task, organization_id: ws.org.id, space_name: spaceName }, ...rest];
      });
    }
  });

  // Overdue is a matter of time: regroup every minute even when nothing else changes.
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  const groups = useMemo(() => {
    const by = new Map<Group, MyTask[]>();
    for (const task of tasks ?? []) {
      if (!matchesText(task, text)) continue;
      const group = groupOf(task, columns.get(task.column_id), now);
      by.set(group, [...(by.get(group) ?? []), task]);
    }
    for (const list of by.values())
      list.sort(
        (a, b) =>
          (a.due_at ? Date.parse(a.due_at) : Number.POSITIVE_INFINITY) -
            (b.due_at ? Date.parse(b.due_at) : Number.POSITIVE_INFINITY) || b.updated_at.localeCompare(a.updated_at),
      );
    return by;
  }, [tasks, columns, now, text]);
  const shown = [...groups.values()].reduce((n, list) => n + list.length, 0);

  const open = (tasks ?? []).filter((t) => !isDoneColumn(columns.get(t.column_id))).length;

  return (
    <section className="page-body narrow my-tasks">
      <header className="page-head">
        <h1>My tasks</h1>
        {tasks && (
          <span className="muted">
            {open} open{groups.get("overdue")?.length ? ` · ${groups.get("overdue")?.length} overdue` : ""}
          </span>
        )}
      </header>
      {!!tasks?.length && (
        <search className="board-filter my-filter" aria-label="Filter my tasks">
          <input
            type="search"
            aria-label="Filter my tasks by title or description"
            placeholder="Filter tasks"
            value={text}
            onChange={(event) => setText(event.target.value)}
          />
          {text.trim() && (
            <>
              <button type="button" className="link" onClick={() => setText("")}>
                Clear filter
              </button>
              <span className="small muted board-filter-count" role="status">
                {shown} of {tasks.length} {tasks.length === 1 ? "task" : "tasks"}
              </span>
            </>
          )}
        </search>
      )}
      <ErrorText error={error} />
      {!tasks && !error && <Spinner />}
      {tasks?.length === 0 && (
        <Empty>Nothing is assigned to you. Tasks assigned to you in any space show up here.</Empty>
      )}
      {GROUPS.map(([group, label]) => {
        const list = groups.get(group);
        if (!list?.length) return null;
        return (
          <section key={group} className={`my-group ${group}`} aria-labelledby={`my-${group}`}>
            <h2 id={`my-${group}`}>
              {label} <span className="muted small">{list.length}</span>
            </h2>
            <ul className="my-list">
              {list.map((task) => {
                const column = columns.get(task.column_id);
                const overdue = group === "overdue";
                return (
                  <li key={task.id} className={`my-task${overdue ? " overdue" : ""}`}>
                    <Link href={taskHref(task.space_id, task.id)} className="my-task-title">
                      {task.title}
                    </Link>
                    <span className="small muted">
                      {task.space_name}
                      {column ? ` · ${column.name}` : ""}
                    </span>
                    {task.due_at && (
                      <span
                        className={`due${overdue ? " overdue" : ""}`}
                        title={new Date(task.due_at).toLocaleString()}
                      >
                        {dueText(task.due_at, { overdue, done: group === "done", now })}
                      </span>
                    )}
                  </li>
                );
              })}
            </ul>
          </section>
        );
      })}
    </section>
  );
}
