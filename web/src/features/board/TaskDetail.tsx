/**
 * A task's detail, in a side panel: title, status, assignee, due date, priority, labels, deliverable
 * requirement, description (markdown), deliverables and comments. Saving and its conflicts are task-save.ts's; leaving the task (closing
 * the panel, clicking another card beside it) asks first when a description or a comment being typed would be
 * lost.
 */
import { useRef, useState } from "react";
import type { Column, Label, Member, Space, Task } from "../../../../src/api-types";
import { copy, ErrorText } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { ConflictNotice } from "./ConflictNotice";
import { DeliverableSection } from "./DeliverableSection";
import { Drawer } from "./Drawer";
import { taskHref } from "./model";
import { TaskComments } from "./TaskComments";
import { type DescriptionDraft, TaskDescription } from "./TaskDescription";
import { TaskFields } from "./TaskFields";
import { TaskFooter } from "./TaskFooter";
import { useTaskSave } from "./task-save";
import { type Draft, useDraft } from "./use-draft";

/** The detail panel of the task `taskId` (`task` is null when the board has no such task). */
export function TaskDetail({
  space,
  taskId,
  task,
  columns,
  labels,
  audience,
  taskAt,
  cardOf,
  onOpen,
  onClose,
  onTask,
  onMoveTo,
  onDeleted,
}: {
  space: Space;
  taskId: string;
  task: Task | null;
  columns: Column[];
  labels: readonly Label[];
  /** Who can see the space, so may be assigned (null while a private space's members load). */
  audience: readonly Member[] | null;
  /** The task whose card is at a point of the window (a click beside the panel), if any. */
  taskAt: (x: number, y: number) => string | null;
  /** The card of a task on the board, where the focus goes back when the panel closes. */
  cardOf: (id: string) => HTMLElement | null;
  /** Shows another task in the panel. */
  onOpen: (id: string) => void;
  onClose: () => void;
  onTask: (task: Task) => void;
  onMoveTo: (id: string, columnId: string) => void;
  onDeleted: (id: string) => void;
}) {
  const ws = useWorkspace();
  const canWrite = ws.can("tasks.write");
  const { save, pending, error, setError, conflict, setConflict } = useTaskSave(ws.base, space.id, taskId, onTask);
  const title = useDraft<Draft>();
  const [description, setDescription] = useState<DescriptionDraft | null>(null);
  /** A comment being typed: kept here, so that leaving the task asks about it as it does about the description. */
  const [comment, setComment] = useState("");
  const panel = useRef<HTMLDivElement>(null);

  /** True when nothing typed would be lost by leaving this task, or the user agreed to lose it. */
  const mayLeave = () => {
    const describing = !!(description && task && description.value !== description.base.description);
    const commenting = comment.trim() !== "";
    if (!describing && !commenting) return true;
    return confirm(
      describing && commenting
        ? "Discard your comment and your changes to the description?"
        : describing
          ? "Discard your changes to the description?"
          : "Discard the comment you are writing?",
    );
  };

  const close = () => {
    if (mayLeave()) onClose();
  };

  // A click on another card beside the panel switches to that task, as in Linear: the dialog stays modal
  // (focus kept inside, Escape closes) and the board behind it is inert, so the click lands on the backdrop.
  const backdrop = (x: number, y: number) => {
    const id = taskAt(x, y);
    if (!id) return false;
    if (id !== taskId && mayLeave()) onOpen(id);
    return true;
  };
  const returnFocus = () => cardOf(taskId);

  const commitTitle = async () => {
    const draft = title.latest.current;
    if (!draft) return;
    const value = draft.value.trim();
    if (!value || value === draft.base.title) {
      if (!value) setError("A task needs a title: the previous one is kept.");
      title.set(null);
      return;
    }
    if ((await save({ title: value }, draft.base)) !== "failed") title.set(null);
  };

  if (!task)
    return (
      <Drawer label="Task" onClose={onClose} onBackdrop={backdrop}>
        <div className="detail" tabIndex={-1}>
          <header className="detail-head">
            <span className="muted">Task</span>
            <button type="button" className="icon" onClick={onClose} aria-label="Close">
              ✕
            </button>
          </header>
          <p className="empty">This task does not exist, or it was deleted.</p>
        </div>
      </Drawer>
    );

  const column = columns.find((c) => c.id === task.column_id);

  return (
    <Drawer label={task.title} onClose={close} onBackdrop={backdrop} returnFocus={returnFocus}>
      <div className="detail" tabIndex={-1} ref={panel}>
        <header className="detail-head">
          <span className="muted small">
            {space.name} · {column?.name}
          </span>
          <span className="row">
            <button
              type="button"
              className="link"
              onClick={() => void copy(location.origin + taskHref(space.id, task.id), "Link copied")}
            >
              Copy link
            </button>
            <button type="button" className="icon" onClick={close} aria-label="Close">
              ✕
            </button>
          </span>
        </header>
        {conflict && (
          <ConflictNotice
            conflict={conflict}
            task={task}
            labels={labels}
            onKeep={() => setConflict(null)}
            onApply={() => {
              const changes = conflict.changes;
              setConflict(null);
              void save(changes, task);
            }}
          />
        )}
        <ErrorText error={error} />

        <textarea
          className="detail-title"
          aria-label="Title"
          rows={1}
          maxLength={500}
          readOnly={!canWrite}
          value={title.value ? title.value.value : task.title}
          onFocus={() => {
            if (!title.latest.current) title.set({ value: task.title, base: task });
          }}
          onChange={(event) =>
            title.set({ value: event.target.value.replace(/\n/g, " "), base: title.value?.base ?? task })
          }
          onBlur={() => void commitTitle()}
          onKeyDown={(event) => {
            if (event.key === "Enter") {
              event.preventDefault();
              void commitTitle();
            } else if (event.key === "Escape" && title.value && title.value.value !== title.value.base.title) {
              // Escape throws the edit away and leaves the cursor in the title; a second Escape closes the panel.
              event.preventDefault();
              title.set(null);
            }
          }}
        />

        <TaskFields
          task={task}
          columns={columns}
          labels={labels}
          audience={audience}
          canWrite={canWrite}
          pending={pending}
          save={save}
          onMoveTo={onMoveTo}
        />

        {task.assignee_user_id && ws.isStaff(task.assignee_user_id) && (
          <p className="small muted">
            {ws.nameOf(task.assignee_user_id)} is AI staff: when assigned, it answers in the comments below.
          </p>
        )}

        <TaskDescription task={task} canWrite={canWrite} draft={description} onDraft={setDescription} save={save} />

        <DeliverableSection space={space} task={task} canWrite={canWrite} pending={pending} save={save} />

        <TaskComments
          space={space}
          task={task}
          canWrite={canWrite}
          audience={audience}
          draft={comment}
          onDraft={setComment}
          onStepOut={() => panel.current?.focus()}
        />

        <TaskFooter space={space} task={task} canWrite={canWrite} onDeleted={onDeleted} onClose={onClose} />
      </div>
    </Drawer>
  );
}
