/** The board feature's calls: a space's board and tasks, a task's comments and deliverables, and My tasks. */
import type {
  BoardAnswer,
  Deliverable,
  DeliverableUpload,
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
