/** Request and response schemas of tasks, task messages and deliverables. */
import { z } from "zod";
import { idIn, lazy, timestampIn, timestampOut, uuidIn, uuidOut, visible } from "../../http/schemas";
import { isInvisible } from "../../lib/text";

/** A task's priority, from none to urgent. */
export const PRIORITIES = ["none", "low", "medium", "high", "urgent"] as const;
export type Priority = (typeof PRIORITIES)[number];
const priority = z.enum(PRIORITIES);

export const taskOut = lazy(() =>
  z
    .object({
      id: uuidOut,
      space_id: uuidOut,
      board_id: uuidOut,
      column_id: uuidOut,
      title: z.string(),
      description: z.string(),
      assignee_user_id: uuidOut.nullable(),
      due_at: timestampOut.nullable(),
      deliverable_required: z.boolean(),
      deliverable_instructions: z.string(),
      position: z.number().int(),
      /** The ids of the task's labels, in the order the labels were made. */
      label_ids: z.array(uuidOut),
      priority,
      /** How many messages (comments) the task has. */
      comment_count: z.number().int(),
      version: z.number().int(),
      created_by: uuidOut.nullable(),
      created_at: timestampOut,
      updated_at: timestampOut,
    })
    .meta({ id: "Task" }),
);
export type TaskOut = z.infer<ReturnType<typeof taskOut>>;

export const myTaskOut = lazy(() =>
  taskOut().extend({ organization_id: uuidOut, space_name: z.string() }).meta({ id: "MyTask" }),
);
export type MyTaskOut = z.infer<ReturnType<typeof myTaskOut>>;

export const taskMessageOut = lazy(() =>
  z
    .object({
      id: uuidOut,
      task_id: uuidOut,
      author_user_id: uuidOut.nullable(),
      content: z.string(),
      created_at: timestampOut,
    })
    .meta({ id: "TaskMessage" }),
);
export type TaskMessageOut = z.infer<ReturnType<typeof taskMessageOut>>;

export const deliverableOut = lazy(() =>
  z
    .object({
      task_id: uuidOut,
      file_node_id: uuidOut,
      added_by: uuidOut.nullable(),
      created_at: timestampOut,
      file_name: z.string(),
      mime_type: z.string().nullable(),
      size_bytes: z.number().int().nullable(),
    })
    .meta({ id: "Deliverable" }),
);
export type DeliverableOut = z.infer<ReturnType<typeof deliverableOut>>;

const title = visible(z.string().trim().min(1).max(500));
const description = z.string().max(100_000);
const instructions = z.string().max(10_000);
const dueAt = timestampIn("due_at: must be an RFC 3339 timestamp");
/** Labels of the space (400 `invalid label` for any other, checked by the service); repeats count once. */
const labelIds = z.array(idIn.meta({ format: "uuid" })).max(50);

export const createTaskIn = z.object({
  title,
  column_id: uuidIn,
  description: description.optional(),
  assignee_user_id: uuidIn.nullish(),
  due_at: dueAt.nullish(),
  deliverable_required: z.boolean().optional(),
  deliverable_instructions: instructions.optional(),
  label_ids: labelIds.optional(),
  priority: priority.optional().meta({ default: "none" }),
});
export type CreateTaskIn = z.infer<typeof createTaskIn>;

/** With `clear_due_at: true`, `due_at` is ignored (api-spec §4), whatever it holds. */
const ignoreDueAtWhenCleared = (body: unknown) => {
  if (body === null || typeof body !== "object" || (body as { clear_due_at?: unknown }).clear_due_at !== true)
    return body;
  const { due_at: _ignored, ...rest } = body as Record<string, unknown>;
  return rest;
};

export const patchTaskIn = z.preprocess(
  ignoreDueAtWhenCleared,
  z.object({
    title: title.optional(),
    description: description.optional(),
    column_id: uuidIn.optional(),
    position: z.number().int().min(0).optional(),
    assignee_user_id: uuidIn.nullable().optional(),
    due_at: dueAt.nullish(),
    clear_due_at: z.boolean().optional(),
    deliverable_required: z.boolean().optional(),
    deliverable_instructions: instructions.optional(),
    /** The task's labels from now on (all of them: `[]` removes every label). */
    label_ids: labelIds.optional(),
    priority: priority.optional(),
    /** When given, the update applies only if the task is still at this version (409 otherwise). */
    version: z.number().int().min(1).optional(),
  }),
);
export type PatchTaskIn = z.infer<typeof patchTaskIn>;

export const postTaskMessageIn = z.object({
  content: z
    .string()
    .max(40_000)
    .refine((s) => !isInvisible(s), { error: "content: must not be empty" }),
});
export const linkDeliverableIn = z.object({ file_node_id: uuidIn });
export const myTasksQuery = z.object({ org_id: z.string().max(64) });

/** An empty parameter (`?priority=`) filters nothing, as when it is absent. */
const emptyAsAbsent = (value: unknown) => (value === "" ? undefined : value);

export const tasksQuery = z.object({
  /** Only tasks carrying this label of the space (400 `invalid label` for any other, checked by the service). */
  label_id: z.preprocess(emptyAsAbsent, idIn.meta({ format: "uuid" }).optional()),
  /** Only tasks of this priority. */
  priority: z.preprocess(emptyAsAbsent, priority.optional()),
});
export type TasksQuery = z.infer<typeof tasksQuery>;
