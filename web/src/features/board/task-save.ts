/**
 * Saving a task's fields. Each save is a PATCH with the `version` the edit started from; when someone else
 * changed the same field meanwhile (409 `version conflict`), the conflict is kept for the panel to show both
 * values and let the user keep theirs or apply their own again, never overwriting silently. A 409 caused by a
 * change to other fields only (a move, another field) is retried with the new version, since nothing is lost.
 */
import { useState } from "react";
import type { Task, TaskChanges } from "../../../../src/api-types";
import { ApiError, messageOf } from "../../lib/api";
import { patchTask } from "./api";

/** The fields an edit can conflict on. */
export type Field =
  | "title"
  | "description"
  | "assignee_user_id"
  | "due_at"
  | "deliverable_required"
  | "deliverable_instructions"
  | "priority"
  | "label_ids";

/** The fields' names for people. */
export const LABELS: Record<Field, string> = {
  title: "Title",
  description: "Description",
  assignee_user_id: "Assignee",
  due_at: "Due date",
  deliverable_required: "Deliverable required",
  deliverable_instructions: "Deliverable instructions",
  priority: "Priority",
  label_ids: "Labels",
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
export function wanted(changes: TaskChanges, field: Field): unknown {
  if (field === "due_at" && changes.clear_due_at) return null;
  return changes[field];
}

function same(field: Field, a: unknown, b: unknown): boolean {
  if (field === "due_at")
    return (
      (a === null || a === undefined ? null : Date.parse(String(a))) ===
      (b === null || b === undefined ? null : Date.parse(String(b)))
    );
  // Label ids are a set: the same labels in another order are the same.
  if (field === "label_ids")
    return [...((a as string[]) ?? [])].sort().join() === [...((b as string[]) ?? [])].sort().join();
  return a === b;
}

/** Someone else's change that collided with the user's. */
export interface Conflict {
  changes: TaskChanges;
  fields: Field[];
}

/** How a save ended. */
export type Saved = "saved" | "conflict" | "failed";

/** Saves changes of the task `taskId`; `onTask` hears every copy of the task the server answers. */
export function useTaskSave(base: string, spaceId: string, taskId: string, onTask: (task: Task) => void) {
  const [conflict, setConflict] = useState<Conflict | null>(null);
  // The change on its way, shown at once (a checkbox or a select must not flip back while it is saved).
  const [pending, setPending] = useState<TaskChanges | null>(null);
  const [error, setError] = useState<string | null>(null);

  /** PATCHes `changes` as of the task `from`; see the module comment for what a 409 does. */
  const save = async (changes: TaskChanges, from: Task): Promise<Saved> => {
    setError(null);
    setPending(changes);
    try {
      return await send(changes, from);
    } finally {
      setPending((p) => (p === changes ? null : p));
    }
  };

  const send = async (changes: TaskChanges, from: Task): Promise<Saved> => {
    let version = from.version;
    for (let attempt = 0; attempt < 4; attempt++) {
      try {
        onTask(await patchTask(base, spaceId, taskId, { ...changes, version }));
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
          (f) => !same(f, theirs[f], from[f]) && !same(f, theirs[f], wanted(changes, f)),
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

  return { save, pending, error, setError, conflict, setConflict };
}
