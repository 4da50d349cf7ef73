/** What the task panel says when someone else changed a field the user was editing: both values, and a choice. */
import type { Label, Priority, Task } from "../../../../src/api-types";
import { useWorkspace } from "../../lib/workspace";
import { dueText, priorityName } from "./model";
import { type Conflict, type Field, LABELS, wanted } from "./task-save";

/** The conflict `conflict` on `task` (as it is now): "Keep their version" or "Apply my change". */
export function ConflictNotice({
  conflict,
  task,
  labels,
  onKeep,
  onApply,
}: {
  conflict: Conflict;
  task: Task;
  labels: readonly Label[];
  onKeep: () => void;
  onApply: () => void;
}) {
  const ws = useWorkspace();
  const show = (field: Field, value: unknown): string => {
    if (field === "assignee_user_id") return value ? ws.nameOf(String(value)) : "Nobody";
    if (field === "due_at") return value ? dueText(String(value)) : "No due date";
    if (field === "deliverable_required") return value ? "Yes" : "No";
    if (field === "priority") return priorityName(value as Priority);
    if (field === "label_ids") {
      const names = labels.filter((l) => (value as string[]).includes(l.id)).map((l) => l.name);
      return names.join(", ") || "No labels";
    }
    return String(value ?? "") || "(empty)";
  };
  return (
    <div className="conflict" role="alert">
      <p>
        <strong>Someone else changed this task while you were editing it.</strong> Your change was not saved, so nothing
        of theirs was overwritten.
      </p>
      <dl>
        {conflict.fields.map((field) => (
          <div key={field}>
            <dt>{LABELS[field]}</dt>
            <dd>
              <span className="muted">Now: </span>
              <span className="conflict-value">{show(field, task[field])}</span>
            </dd>
            <dd>
              <span className="muted">Yours: </span>
              <span className="conflict-value">{show(field, wanted(conflict.changes, field))}</span>
            </dd>
          </div>
        ))}
      </dl>
      <div className="row">
        <button type="button" onClick={onKeep}>
          Keep their version
        </button>
        <button type="button" className="primary" onClick={onApply}>
          Apply my change
        </button>
      </div>
    </div>
  );
}
