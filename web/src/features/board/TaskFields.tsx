/**
 * The task panel's status, assignee, due date, priority and labels; a typed due date saves once it has been
 * still a moment.
 */
import { useEffect } from "react";
import type { Column, Label, Member, Priority, Task, TaskChanges } from "../../../../src/api-types";
import { useWorkspace } from "../../lib/workspace";
import { AssigneeOptions } from "./AssigneeOptions";
import { LabelPicker } from "./LabelPicker";
import { dayOf, dueText, endOfDay, isDoneColumn, isOverdue } from "./model";
import { PriorityOptions } from "./TaskCard";
import type { Saved } from "./task-save";
import { type Draft, useDraft } from "./use-draft";

/** The fields under a task's title. Moving (Status) goes through the board; the others are saved here. */
export function TaskFields({
  task,
  columns,
  labels,
  audience,
  canWrite,
  pending,
  save,
  onMoveTo,
}: {
  task: Task;
  columns: Column[];
  labels: readonly Label[];
  /** Who can see the space, so may be assigned (null while a private space's members load). */
  audience: readonly Member[] | null;
  canWrite: boolean;
  /** The change on its way, shown at once. */
  pending: TaskChanges | null;
  save: (changes: TaskChanges, from: Task) => Promise<Saved>;
  onMoveTo: (id: string, columnId: string) => void;
}) {
  const ws = useWorkspace();
  const due = useDraft<Draft>();

  const commitDue = async (draft: Draft) => {
    if (due.latest.current !== draft) return;
    due.latest.current = null;
    const changes: TaskChanges = draft.value ? { due_at: endOfDay(draft.value) } : { clear_due_at: true };
    if (draft.value === dayOf(draft.base.due_at)) {
      due.set(null);
      return;
    }
    if ((await save(changes, draft.base)) !== "failed") due.set(null);
  };

  // A typed date is saved once it has been still for a moment (typing the year goes through 0002, 0020…).
  // biome-ignore lint/correctness/useExhaustiveDependencies: commitDue reads the draft it is given.
  useEffect(() => {
    const draft = due.value;
    if (
      !draft ||
      (draft.value && !(/^\d{4}-\d{2}-\d{2}$/.test(draft.value) && Number(draft.value.slice(0, 4)) >= 1900))
    )
      return;
    const timer = setTimeout(() => void commitDue(draft), 700);
    return () => clearTimeout(timer);
  }, [due.value]);

  const column = columns.find((c) => c.id === task.column_id);
  const overdue = !isDoneColumn(column) && isOverdue(task.due_at);
  return (
    <div className="stack">
      <div className="detail-props">
        <label className="field">
          <span>Status</span>
          <select
            value={task.column_id}
            disabled={!canWrite}
            onChange={(event) => onMoveTo(task.id, event.target.value)}
          >
            {columns.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Assignee</span>
          <select
            value={(pending && "assignee_user_id" in pending ? pending.assignee_user_id : task.assignee_user_id) ?? ""}
            disabled={!canWrite}
            onChange={(event) => void save({ assignee_user_id: event.target.value || null }, task)}
          >
            <option value="">Unassigned</option>
            {/* Someone outside a private space, assigned before, still shows as the current value. */}
            <AssigneeOptions
              members={audience ?? []}
              loading={!audience}
              me={ws.me.id}
              current={task.assignee_user_id}
            />
          </select>
        </label>
        <div className="field">
          <label htmlFor={`due-${task.id}`}>
            <span>Due date</span>
          </label>
          <div className="row">
            <input
              id={`due-${task.id}`}
              type="date"
              readOnly={!canWrite}
              value={due.value ? due.value.value : dayOf(task.due_at)}
              onChange={(event) => due.set({ value: event.target.value, base: due.value?.base ?? task })}
              onBlur={() => {
                if (due.latest.current) void commitDue(due.latest.current);
              }}
              onKeyDown={(event) => {
                if (event.key === "Escape" && due.latest.current) {
                  // A date being typed is put back rather than saved.
                  event.preventDefault();
                  due.set(null);
                }
              }}
            />
            {canWrite && task.due_at && (
              <button
                type="button"
                className="due-clear"
                aria-label="Clear the due date"
                title="Clear the due date"
                onClick={() => {
                  due.set(null);
                  // This button goes away with the date: the keyboard goes to the date field beside it.
                  document.getElementById(`due-${task.id}`)?.focus();
                  void save({ clear_due_at: true }, task);
                }}
              >
                ✕
              </button>
            )}
          </div>
          {overdue && task.due_at && (
            <span className="due overdue wrap">{dueText(task.due_at, { overdue: true })}</span>
          )}
        </div>
        <label className="field">
          <span>Priority</span>
          <select
            value={pending?.priority ?? task.priority}
            disabled={!canWrite}
            onChange={(event) => void save({ priority: event.target.value as Priority }, task)}
          >
            <PriorityOptions />
          </select>
        </label>
      </div>
      <LabelPicker task={task} labels={labels} canWrite={canWrite} pending={pending} save={save} />
    </div>
  );
}
