/** Task rows to JSON. */
import { iso, isoOrNull } from "../../lib/ids";
import type { DeliverableOut, MyTaskOut, TaskMessageOut, TaskOut } from "./tasks.schemas";
import type { DeliverableView, MyTaskView, TaskMessageRow, TaskView } from "./tasks.store";

export function presentTask(row: TaskView): TaskOut {
  return {
    id: row.id,
    space_id: row.spaceId,
    board_id: row.boardId,
    column_id: row.columnId,
    title: row.title,
    description: row.description,
    assignee_user_id: row.assigneeUserId,
    due_at: isoOrNull(row.dueAt),
    deliverable_required: row.deliverableRequired,
    deliverable_instructions: row.deliverableInstructions,
    position: row.position,
    label_ids: row.labelIds as string[],
    priority: row.priority as TaskOut["priority"],
    comment_count: row.commentCount,
    version: row.version,
    created_by: row.createdBy,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

export function presentMyTask(row: MyTaskView): MyTaskOut {
  const task = presentTask(row) as MyTaskOut;
  task.organization_id = row.orgId;
  task.space_name = row.spaceName;
  return task;
}

export function presentTaskMessage(row: TaskMessageRow): TaskMessageOut {
  return {
    id: row.id,
    task_id: row.taskId,
    author_user_id: row.authorUserId,
    content: row.content,
    created_at: iso(row.createdAt),
  };
}

export function presentDeliverable(row: DeliverableView): DeliverableOut {
  return {
    task_id: row.taskId,
    file_node_id: row.fileNodeId,
    added_by: row.addedBy,
    created_at: iso(row.createdAt),
    file_name: row.fileName,
    mime_type: row.mimeType,
    size_bytes: row.sizeBytes,
  };
}
