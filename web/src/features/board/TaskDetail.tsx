/**
 * A task's detail, in a side panel: title, status, assignee, due date, deliverable requirement, description
 * (markdown), deliverables and comments. Each save is a PATCH with the `version` the edit started from; when
 * someone else changed the same field meanwhile (409 `version conflict`), the panel shows both values and lets
 * the user keep theirs or apply their own again, never overwriting silently. A 409 caused by a change to
 * other fields only (a move, another field) is retried with the new version, since nothing is lost.
 */
import { useEffect, useRef, useState } from "react";
import type { Column, Member, Space, Task, TaskChanges } from "../../../../src/api-types";
import { ApiError, messageOf } from "../../lib/api";
import { useAction } from "../../lib/hooks";
import { Markdown } from "../../lib/markdown";
import { copy, dateTime, ErrorText, timeAgo, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { AssigneeOptions } from "./AssigneeOptions";
import { deleteTask, patchTask } from "./api";
import { Drawer } from "./Drawer";
import { dayOf, dueText, endOfDay, isDoneColumn, isOverdue, taskHref } from "./model";
import { TaskComments } from "./TaskComments";
import { TaskDeliverables } from "./TaskDeliverables";

/** The fields an edit can conflict on. */
type Field =
  | "title"
  | "description"
  | "assignee_user_id"
  | "due_at"
  | "deliverable_required"
  | "deliverable_instructions";

const LABELS: Record<Field, string> = {
  title: "Title",
  description: "Description",
  assignee_user_id: "Assignee",
  due_at: "Due date",
  deliverable_required: "Deliverable required",
  deliverable_instructions: "Deliverable instructions",
};

function fieldsOf(changes: TaskChanges): Field[] {
  const fields = new Set<Field>();
  for (const key of Object.keys(changes)) {
    if (key === "clear_due_at") fields.add("due_at");
    else if (key in LABELS) fields.add(key as Field);
  }
  return [...fields];
}

/** The value `changes` gives `field` (a cleared due date is null). */
function wanted(changes: TaskChanges, field: Field): unknown {
  if (field === "due_at" && changes.clear_due_at) return null;
  return changes[field];
}

function same(field: Field, a: unknown, b: unknown): boolean {
  if (field === "due_at")
    return (
      (a === null || a === undefined ? null : Date.parse(String(a))) ===
      (b === null || b === undefined ? null : Date.parse(String(b)))
    );
  return a === b;
}

/** Someone else's change that collided with the user's. */
interface Conflict {
  changes: TaskChanges;
  fields: Field[];
}

type Saved = "saved" | "conflict" | "failed";

/** An edit in progress: the value typed so far and the task as it was when the edit began. */
interface Draft {
  value: string;
  base: Task;
}

/** The detail panel of the task `taskId` (`task` is null when the board has no such task). */
export function TaskDetail({
  space,
  taskId,
  task,
  columns,
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
  const [title, setTitleState] = useState<Draft | null>(null);
  // The draft as of now: a commit may run from a handler of an older render (a blur right after Escape threw the
  // edit away), which must see the cancelled draft, not the one its render held.
  const titleRef = useRef<Draft | null>(null);
  const setTitle = (draft: Draft | null) => {
    titleRef.current = draft;
    setTitleState(draft);
  };
  const [description, setDescription] = useState<(Draft & { preview: boolean }) | null>(null);
  const [instructions, setInstructionsState] = useState<Draft | null>(null);
  const instructionsRef = useRef<Draft | null>(null);
  const setInstructions = (draft: Draft | null) => {
    instructionsRef.current = draft;
    setInstructionsState(draft);
  };
  const [due, setDue] = useState<Draft | null>(null);
  const dueRef = useRef<Draft | null>(null);
  dueRef.current = due;
  const [conflict, setConflict] = useState<Conflict | null>(null);
  // The change on its way, shown at once (a checkbox or a select must not flip back while it is saved).
  const [pending, setPending] = useState<TaskChanges | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const deleteButton = useRef<HTMLButtonElement>(null);
  const keepButton = useRef<HTMLButtonElement>(null);
  const editDescription = useRef<HTMLButtonElement>(null);
  /** Set when the description editor closes: the keyboard goes back to "Edit description" (its form is gone). */
  const backToEdit = useRef(false);
  /** Set when the delete question closes without deleting: the keyboard goes back to "Delete task". */
  const backToDelete = useRef(false);
  const closeDescription = () => {
    backToEdit.current = true;
    setDescription(null);
  };
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
  useEffect(() => {
    if (description || !backToEdit.current) return;
    backToEdit.current = false;
    editDescription.current?.focus();
  }, [description]);

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

  /** PATCHes `changes` as of `base`; see the module comment for what a 409 does. */
  const save = async (changes: TaskChanges, base: Task): Promise<Saved> => {
    setError(null);
    setPending(changes);
    try {
      return await send(changes, base);
    } finally {
      setPending((p) => (p === changes ? null : p));
    }
  };

  const send = async (changes: TaskChanges, base: Task): Promise<Saved> => {
    let version = base.version;
    for (let attempt = 0; attempt < 4; attempt++) {
      try {
        onTask(await patchTask(ws.base, space.id, taskId, { ...changes, version }));
        return "saved";
      } catch (err) {
        const theirs =
          err instanceof ApiError && err.status === 409 ? (err.body as { task?: Task } | null)?.task : null;
        if (!theirs) {
          setError(messageOf(err));
          return "failed";
        }
        onTask(theirs);
        const fields = fieldsOf(changes).filter(
          (f) => !same(f, theirs[f], base[f]) && !same(f, theirs[f], wanted(changes, f)),
        );
        if (fields.length === 0) {
          version = theirs.version;
          continue;
        }
        setConflict({ changes, fields });
        return "conflict";
      }
    }
    setError("This task keeps changing under you: try again in a moment.");
    return "failed";
  };

  const commitTitle = async () => {
    const title = titleRef.current;
    if (!title) return;
    const value = title.value.trim();
    if (!value || value === title.base.title) {
      if (!value) setError("A task needs a title: the previous one is kept.");
      setTitle(null);
      return;
    }
    if ((await save({ title: value }, title.base)) !== "failed") setTitle(null);
  };

  const commitDescription = async () => {
    if (!description) return;
    if (description.value === description.base.description) {
      closeDescription();
      return;
    }
    if ((await save({ description: description.value }, description.base)) !== "failed") closeDescription();
  };

  const commitInstructions = async () => {
    const instructions = instructionsRef.current;
    if (!instructions) return;
    if (instructions.value === instructions.base.deliverable_instructions) {
      setInstructions(null);
      return;
    }
    if ((await save({ deliverable_instructions: instructions.value }, instructions.base)) !== "failed")
      setInstructions(null);
  };

  const commitDue = async (draft: Draft) => {
    if (dueRef.current !== draft) return;
    dueRef.current = null;
    const changes: TaskChanges = draft.value ? { due_at: endOfDay(draft.value) } : { clear_due_at: true };
    if (draft.value === dayOf(draft.base.due_at)) {
      setDue(null);
      return;
    }
    if ((await save(changes, draft.base)) !== "failed") setDue(null);
  };

  // A typed date is saved once it has been still for a moment (typing the year goes through 0002, 0020…).
  // biome-ignore lint/correctness/useExhaustiveDependencies: commitDue reads the draft it is given.
  useEffect(() => {
    if (!due || (due.value && !(/^\d{4}-\d{2}-\d{2}$/.test(due.value) && Number(due.value.slice(0, 4)) >= 1900)))
      return;
    const timer = setTimeout(() => void commitDue(due), 700);
    return () => clearTimeout(timer);
  }, [due]);

  const remove = useAction(async () => {
    await deleteTask(ws.base, space.id, taskId);
    onDeleted(taskId);
    toast("Task deleted");
    onClose();
  });

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
  const overdue = !isDoneColumn(column) && isOverdue(task.due_at);
  const show = (field: Field, value: unknown): string => {
    if (field === "assignee_user_id") return value ? ws.nameOf(String(value)) : "Nobody";
    if (field === "due_at") return value ? dueText(String(value)) : "No due date";
    if (field === "deliverable_required") return value ? "Yes" : "No";
    return String(value ?? "") || "(empty)";
  };

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
          <div className="conflict" role="alert">
            <p>
              <strong>Someone else changed this task while you were editing it.</strong> Your change was not saved, so
              nothing of theirs was overwritten.
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
              <button type="button" onClick={() => setConflict(null)}>
                Keep their version
              </button>
              <button
                type="button"
                className="primary"
                onClick={() => {
                  const changes = conflict.changes;
                  setConflict(null);
                  void save(changes, task);
                }}
              >
                Apply my change
              </button>
            </div>
          </div>
        )}
        <ErrorText error={error} />

        <textarea
          className="detail-title"
          aria-label="Title"
          rows={1}
          maxLength={500}
          readOnly={!canWrite}
          value={title ? title.value : task.title}
          onFocus={() => {
            if (!titleRef.current) setTitle({ value: task.title, base: task });
          }}
          onChange={(event) => setTitle({ value: event.target.value.replace(/\n/g, " "), base: title?.base ?? task })}
          onBlur={() => void commitTitle()}
          onKeyDown={(event) => {
            if (event.key === "Enter") {
              event.preventDefault();
              void commitTitle();
            } else if (event.key === "Escape" && title && title.value !== title.base.title) {
              // Escape throws the edit away and leaves the cursor in the title; a second Escape closes the panel.
              event.preventDefault();
              setTitle(null);
            }
          }}
        />

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
              value={
                (pending && "assignee_user_id" in pending ? pending.assignee_user_id : task.assignee_user_id) ?? ""
              }
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
                value={due ? due.value : dayOf(task.due_at)}
                onChange={(event) => setDue({ value: event.target.value, base: due?.base ?? task })}
                onBlur={() => {
                  if (dueRef.current) void commitDue(dueRef.current);
                }}
                onKeyDown={(event) => {
                  if (event.key === "Escape" && dueRef.current) {
                    // A date being typed is put back rather than saved.
                    event.preventDefault();
                    dueRef.current = null;
                    setDue(null);
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
                    setDue(null);
                    dueRef.current = null;
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
        </div>

        {task.assignee_user_id && ws.isStaff(task.assignee_user_id) && (
          <p className="small muted">
            {ws.nameOf(task.assignee_user_id)} is AI staff: when assigned, it answers in the comments below.
          </p>
        )}

        <section className="detail-section" aria-labelledby={`description-${task.id}`}>
          <div className="detail-section-head">
            <h3 id={`description-${task.id}`}>Description</h3>
            {canWrite && !description && (
              <button
                ref={editDescription}
                type="button"
                className="link"
                onClick={() => setDescription({ value: task.description, base: task, preview: false })}
              >
                Edit description
              </button>
            )}
          </div>
          {description ? (
            <div className="stack">
              <div className="tabs" role="tablist" aria-label="Description editor">
                <button
                  type="button"
                  role="tab"
                  aria-selected={!description.preview}
                  className={description.preview ? "tab" : "tab active"}
                  onClick={() => setDescription({ ...description, preview: false })}
                >
                  Write
                </button>
                <button
                  type="button"
                  role="tab"
                  aria-selected={description.preview}
                  className={description.preview ? "tab active" : "tab"}
                  onClick={() => setDescription({ ...description, preview: true })}
                >
                  Preview
                </button>
              </div>
              {description.preview ? (
                <div className="detail-preview">
                  {description.value.trim() ? (
                    <Markdown source={description.value} />
                  ) : (
                    <p className="muted">Nothing to preview.</p>
                  )}
                </div>
              ) : (
                <textarea
                  aria-label="Description"
                  rows={8}
                  // biome-ignore lint/a11y/noAutofocus: the user asked to edit, so the text is where they type.
                  autoFocus
                  placeholder="Markdown: **bold**, _italic_, lists, [links](https://…), `code`"
                  value={description.value}
                  onChange={(event) => setDescription({ ...description, value: event.target.value })}
                  onKeyDown={(event) => {
                    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
                      event.preventDefault();
                      void commitDescription();
                    } else if (event.key === "Escape") {
                      // Escape cancels the edit, as Cancel does; typed text is only thrown away once confirmed.
                      event.preventDefault();
                      if (
                        description.value === description.base.description ||
                        confirm("Discard your changes to the description?")
                      )
                        closeDescription();
                    }
                  }}
                />
              )}
              <div className="row">
                <button type="button" className="primary" onClick={() => void commitDescription()}>
                  Save description
                </button>
                <button type="button" onClick={closeDescription}>
                  Cancel
                </button>
                <span className="small muted">Ctrl + Enter saves</span>
              </div>
            </div>
          ) : task.description.trim() ? (
            <Markdown source={task.description} className="detail-description" />
          ) : (
            <p className="muted">No description.</p>
          )}
        </section>

        <section className="detail-section" aria-labelledby={`deliverable-${task.id}`}>
          <div className="detail-section-head">
            <h3 id={`deliverable-${task.id}`}>Deliverable</h3>
          </div>
          <label className="check">
            <input
              type="checkbox"
              checked={pending?.deliverable_required ?? task.deliverable_required}
              disabled={!canWrite}
              onChange={(event) => void save({ deliverable_required: event.target.checked }, task)}
            />
            Deliverable required
          </label>
          {!canWrite && (task.deliverable_required || task.deliverable_instructions) && (
            // Read-only: the text as written, not an empty box inviting to type.
            <div className="field">
              <span>Instructions for the deliverable</span>
              {task.deliverable_instructions.trim() ? (
                <p className="detail-instructions">{task.deliverable_instructions}</p>
              ) : (
                <p className="muted">No instructions.</p>
              )}
            </div>
          )}
          {canWrite &&
            (pending?.deliverable_required || task.deliverable_required || task.deliverable_instructions) && (
              <label className="field">
                <span>Instructions for the deliverable</span>
                <textarea
                  rows={3}
                  placeholder="What should be delivered, in which format…"
                  value={instructions ? instructions.value : task.deliverable_instructions}
                  onFocus={() => {
                    if (!instructionsRef.current) setInstructions({ value: task.deliverable_instructions, base: task });
                  }}
                  onChange={(event) => setInstructions({ value: event.target.value, base: instructions?.base ?? task })}
                  onBlur={() => void commitInstructions()}
                  onKeyDown={(event) => {
                    if (
                      event.key === "Escape" &&
                      instructions &&
                      instructions.value !== instructions.base.deliverable_instructions
                    ) {
                      // As in the title: Escape puts the saved text back, and nothing is sent.
                      event.preventDefault();
                      setInstructions(null);
                    }
                  }}
                />
              </label>
            )}
          <TaskDeliverables space={space} task={task} canWrite={canWrite} />
        </section>

        <TaskComments
          space={space}
          task={task}
          canWrite={canWrite}
          audience={audience}
          draft={comment}
          onDraft={setComment}
          onStepOut={() => panel.current?.focus()}
        />

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
      </div>
    </Drawer>
  );
}
