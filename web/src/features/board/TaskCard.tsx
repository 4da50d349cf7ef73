/**
 * One task on the board: a link to its detail, draggable, with what a card shows (Linear's card): its
 * priority, labels as coloured chips, due date, deliverable, comment count and assignee. Memoized, so a live
 * event re-renders only the card it changes.
 */
import { type CSSProperties, memo } from "react";
import type { Label, Priority, Task } from "../../../../src/api-types";
import { Link } from "../../lib/router";
import { Avatar } from "../../lib/ui";
import { CommentIcon, PaperClip, PriorityIcon } from "./icons";
import { dueText, isOverdue, PRIORITIES, priorityName } from "./model";

/** The id of the keyboard hint, which every movable card points to (aria-describedby). */
export const HINT_ID = "board-keys-hint";

/** A label as a coloured chip (its colour tints it, so the name reads in light and dark mode alike). */
export function LabelChip({ label }: { label: Pick<Label, "name" | "color"> }) {
  return (
    <span className="label-chip" style={{ "--label": label.color } as CSSProperties}>
      {label.name}
    </span>
  );
}

/** A priority's icon with its name for screen readers and as a tooltip. */
export function PriorityMark({ priority }: { priority: Priority }) {
  if (priority === "none") return null;
  return (
    <span className={`priority priority-${priority}`} title={`Priority: ${priorityName(priority)}`}>
      <PriorityIcon priority={priority} />
      <span className="sr-only">Priority: {priorityName(priority)}</span>
    </span>
  );
}

/** The priorities as the options of a select, the most urgent first. */
export function PriorityOptions() {
  return PRIORITIES.map((p) => (
    <option key={p.value} value={p.value}>
      {p.name}
    </option>
  ));
}

interface CardProps {
  task: Task;
  spaceId: string;
  filterQuery: string;
  canWrite: boolean;
  done: boolean;
  assignee: string | null;
  assigneeStaff: boolean;
  /** The space's labels by id (a task's label that is gone meanwhile is not shown). */
  labels: ReadonlyMap<string, Label>;
}

/** One task on the board: a link to its detail, draggable; re-renders only when its own props change. */
export const TaskCard = memo(function TaskCard({
  task,
  spaceId,
  filterQuery,
  canWrite,
  done,
  assignee,
  assigneeStaff,
  labels,
}: CardProps) {
  const overdue = !done && isOverdue(task.due_at);
  const chips = task.label_ids.flatMap((id) => labels.get(id) ?? []);
  const comments = task.comment_count;
  const hasMeta = task.due_at || task.deliverable_required || assignee || task.priority !== "none" || comments > 0;
  return (
    <li>
      <Link
        href={`/spaces/${spaceId}/board?${filterQuery ? `${filterQuery}&` : ""}task=${encodeURIComponent(task.id)}`}
        className={`task-card${overdue ? " overdue" : ""}`}
        data-task-id={task.id}
        draggable={canWrite}
        aria-describedby={canWrite ? HINT_ID : undefined}
      >
        <span className="task-card-title">{task.title}</span>
        {chips.length > 0 && (
          <span className="task-card-labels">
            <span className="sr-only">Labels: </span>
            {chips.map((label) => (
              <LabelChip key={label.id} label={label} />
            ))}
          </span>
        )}
        {hasMeta && (
          <span className="task-card-meta">
            <PriorityMark priority={task.priority} />
            {task.due_at && (
              <span className={`due${overdue ? " overdue" : ""}`} title={new Date(task.due_at).toLocaleString()}>
                {dueText(task.due_at, { overdue, done })}
              </span>
            )}
            {task.deliverable_required && (
              <span className="deliverable-flag" title="A deliverable is required">
                <PaperClip />
                <span className="sr-only">Deliverable required</span>
              </span>
            )}
            {comments > 0 && (
              <span className="comment-count" title={`${comments} ${comments === 1 ? "comment" : "comments"}`}>
                <CommentIcon />
                {comments}
                <span className="sr-only"> {comments === 1 ? "comment" : "comments"}</span>
              </span>
            )}
            {assignee && task.assignee_user_id && (
              <span className="task-card-assignee">
                <Avatar id={task.assignee_user_id} name={assignee} staff={assigneeStaff} />
                <span className="sr-only">
                  Assigned to {assignee}
                  {assigneeStaff ? " (AI staff)" : ""}
                </span>
              </span>
            )}
          </span>
        )}
      </Link>
    </li>
  );
});
