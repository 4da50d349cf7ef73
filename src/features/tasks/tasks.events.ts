/** The events of tasks: the live ones carry what the REST route answers. */
import type { TaskMessageOut, TaskOut } from "./tasks.schemas";

declare module "../../core/events" {
  interface EventPayloads {
    "task.created": TaskOut;
    "task.updated": TaskOut;
    "task.deleted": { id: string };
    "task.message.created": TaskMessageOut;
    /** Not sent to clients: a task got a new assignee (created with one, or reassigned). */
    "task.assigned": TaskOut;
  }
}
