/** The foot of the task panel: who made the task and when it changed, and deleting it after asking in place. */
import { useEffect, useRef, useState } from "react";
import type { Space, Task } from "../../../../src/api-types";
import { useAction } from "../../lib/hooks";
import { dateTime, ErrorText, timeAgo, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { deleteTask } from "./api";

/** The footer of `task`'s panel; `onDeleted` hears of the deletion before the panel closes. */
export function TaskFooter({
  space,
  task,
  canWrite,
  onDeleted,
  onClose,
}: {
  space: Space;
  task: Task;
  canWrite: boolean;
  onDeleted: (id: string) => void;
  onClose: () => void;
}) {
  const ws = useWorkspace();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const deleteButton = useRef<HTMLButtonElement>(null);
  const keepButton = useRef<HTMLButtonElement>(null);
  /** Set when the delete question closes without deleting: the keyboard goes back to "Delete task". */
  const backToDelete = useRef(false);
  const keepTask = () => {
    backToDelete.current = true;
    setConfirmDelete(false);
  };
  // The question replaces "Delete task", which had the keyboard: the keyboard goes to the safer answer.
  useEffect(() => {
    if (confirmDelete) keepButton.current?.focus();
    else if (backToDelete.current) {
      backToDelete.current = false;
      deleteButton.current?.focus();
    }
  }, [confirmDelete]);

  const remove = useAction(async () => {
    await deleteTask(ws.base, space.id, task.id);
    onDeleted(task.id);
    toast("Task deleted");
    onClose();
  });

  return (
    <>
      <footer className="detail-foot">
        <span className="small muted" title={dateTime(task.created_at)}>
          Created by {ws.nameOf(task.created_by)} {timeAgo(task.created_at)} · updated{" "}
          <time dateTime={task.updated_at} title={dateTime(task.updated_at)}>
            {timeAgo(task.updated_at)}
          </time>
        </span>
        {canWrite &&
          (confirmDelete ? (
            // An inline question: announced when it takes the keyboard; Escape answers "Keep it" (and leaves
            // the panel open, as the dialog's own Escape would not).
            <div
              className="row delete-question"
              role="alertdialog"
              aria-labelledby={`delete-question-${task.id}`}
              onKeyDown={(event) => {
                if (event.key !== "Escape") return;
                event.preventDefault();
                event.stopPropagation();
                keepTask();
              }}
            >
              <span className="small" id={`delete-question-${task.id}`}>
                Delete this task for good?
              </span>
              <button type="button" className="danger" disabled={remove.busy} onClick={() => void remove.run()}>
                Delete for good
              </button>
              <button ref={keepButton} type="button" onClick={keepTask}>
                Keep it
              </button>
            </div>
          ) : (
            <button ref={deleteButton} type="button" className="danger" onClick={() => setConfirmDelete(true)}>
              Delete task
            </button>
          ))}
      </footer>
      <ErrorText error={remove.error} />
    </>
  );
}
