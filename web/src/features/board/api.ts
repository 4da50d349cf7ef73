/**
 * The board feature's calls: a space's board, its columns and labels, its tasks, a task's comments and
 * deliverables, and My tasks.
 */
import type {
  BoardAnswer,
  Column,
  ColumnBody,
  ColumnChanges,
  Deliverable,
  DeliverableUpload,
  Label,
  LabelBody,
  LabelChanges,
  MyTask,
  Task,
  TaskBody,
  TaskChanges,
  TaskMessage,
} from "../../../../src/api-types";
import { api } from "../../lib/api";

const tasksPath = (base: string, spaceId: string) => `${base}/spaces/${spaceId}/tasks`;
const taskPath = (base: string, spaceId: string, taskId: string) => `${tasksPath(base, spaceId)}/${taskId}`;

/** The space's board and its columns. */
export function getBoard(base: string, spaceId: string): Promise<BoardAnswer> {
  return api<BoardAnswer>("GET", `${base}/spaces/${spaceId}/board`);
}

const columnsPath = (base: string, spaceId: string) => `${base}/spaces/${spaceId}/board/columns`;
const labelsPath = (base: string, spaceId: string) => `${base}/spaces/${spaceId}/labels`;

/** Adds a column to the board at `position` (omitted: last). 409 `name already exists`. */
export async function addColumn(base: string, spaceId: string, body: ColumnBody): Promise<Column> {
  return (await api<{ column: Column }>("POST", columnsPath(base, spaceId), body)).column;
}

/** Renames, moves or sets the WIP limit of a column. 409 `name already exists`. */
export async function changeColumn(
  base: string,
  spaceId: string,
  columnId: string,
  changes: ColumnChanges,
): Promise<Column> {
  return (await api<{ column: Column }>("PATCH", `${columnsPath(base, spaceId)}/${columnId}`, changes)).column;
}

/** Deletes an empty column. 409 `column is not empty`, `a board needs a column`. */
export async function deleteColumn(base: string, spaceId: string, columnId: string): Promise<void> {
  await api("DELETE", `${columnsPath(base, spaceId)}/${columnId}`);
}

/** The space's labels, oldest first. */
export async function listLabels(base: string, spaceId: string): Promise<Label[]> {
  return (await api<{ labels: Label[] }>("GET", labelsPath(base, spaceId))).labels;
}

/** Creates a label. 409 `name already exists`. */
export async function createLabel(base: string, spaceId: string, body: LabelBody): Promise<Label> {
  return (await api<{ label: Label }>("POST", labelsPath(base, spaceId), body)).label;
}

/** Renames or recolours a label. 409 `name already exists`. */
export async function changeLabel(
  base: string,
  spaceId: string,
  labelId: string,
  changes: LabelChanges,
): Promise<Label> {
  return (await api<{ label: Label }>("PATCH", `${labelsPath(base, spaceId)}/${labelId}`, changes)).label;
}

/** Deletes a label; its tasks drop it (each one a `task.updated`). */
export async function deleteLabel(base: string, spaceId: string, labelId: string): Promise<void> {
  await api("DELETE", `${labelsPath(base, spaceId)}/${labelId}`);
}

/** The tasks of the space's board, by column then position. */
export async function listTasks(base: string, spaceId: string): Promise<Task[]> {
  return (await api<{ tasks: Task[] }>("GET", tasksPath(base, spaceId))).tasks;
}

/** Adds a task at the bottom of its column. */
export function createTask(base: string, spaceId: string, body: TaskBody): Promise<Task> {
  return api<Task>("POST", tasksPath(base, spaceId), body);
}

/**
 * Changes a task's fields. With `version`, only if the task is still at it: otherwise an ApiError 409
 * `version conflict` whose body holds the current `task`.
 */
export function patchTask(base: string, spaceId: string, taskId: string, changes: TaskChanges): Promise<Task> {
  return api<Task>("PATCH", taskPath(base, spaceId, taskId), changes);
}

/** Moves a task to `position` of `columnId`, whatever its version (a move never conflicts with an edit). */
export function moveTask(
  base: string,
  spaceId: string,
  taskId: string,
  columnId: string,
  position: number,
): Promise<Task> {
  return patchTask(base, spaceId, taskId, { column_id: columnId, position });
}

/** Deletes a task for good. */
export async function deleteTask(base: string, spaceId: string, taskId: string): Promise<void> {
  await api("DELETE", taskPath(base, spaceId, taskId));
}

/** The newest `limit` comments of a task before `before` (a `created_at`), oldest first. */
export async function listTaskMessages(
  base: string,
  spaceId: string,
  taskId: string,
  page: { limit: number; before?: string },
): Promise<TaskMessage[]> {
  const query = `limit=${page.limit}${page.before ? `&before=${encodeURIComponent(page.before)}` : ""}`;
  return (await api<{ messages: TaskMessage[] }>("GET", `${taskPath(base, spaceId, taskId)}/messages?${query}`))
    .messages;
}

/** Comments on a task. */
export function postTaskMessage(base: string, spaceId: string, taskId: string, content: string): Promise<TaskMessage> {
  return api<TaskMessage>("POST", `${taskPath(base, spaceId, taskId)}/messages`, { content });
}

/** The files linked to a task as deliverables, oldest link first. */
export async function listDeliverables(base: string, spaceId: string, taskId: string): Promise<Deliverable[]> {
  return (await api<{ deliverables: Deliverable[] }>("GET", `${taskPath(base, spaceId, taskId)}/deliverables`))
    .deliverables;
}

/** Links a file below the space's `Deliverables` folder to a task. */
export async function linkDeliverable(
  base: string,
  spaceId: string,
  taskId: string,
  fileNodeId: string,
): Promise<void> {
  await api("POST", `${taskPath(base, spaceId, taskId)}/deliverables`, { file_node_id: fileNodeId });
}

/**
 * Uploads `file` into the space's `Deliverables` root folder (created when missing) and links it to the task, in
 * one step. 409 `name already exists` when a file of that name is in the folder; 409 `a file named Deliverables
 * is in the way` when a root file (not a folder) has that name.
 */
export function uploadDeliverable(
  base: string,
  spaceId: string,
  taskId: string,
  file: File,
): Promise<DeliverableUpload> {
  const form = new FormData();
  form.set("file", file, file.name);
  return api<DeliverableUpload>("POST", `${taskPath(base, spaceId, taskId)}/deliverables/upload`, form);
}

/** Removes a deliverable's link; the file stays. */
export async function unlinkDeliverable(
  base: string,
  spaceId: string,
  taskId: string,
  fileNodeId: string,
): Promise<void> {
  await api("DELETE", `${taskPath(base, spaceId, taskId)}/deliverables/${fileNodeId}`);
}

/** The tasks assigned to the caller across the spaces of organization `orgId` they can see. */
export async function listMyTasks(orgId: string): Promise<MyTask[]> {
  return (await api<{ tasks: MyTask[] }>("GET", `/me/tasks?org_id=${encodeURIComponent(orgId)}`)).tasks;
}
