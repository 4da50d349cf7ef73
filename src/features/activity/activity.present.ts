/** Activity rows as the API shows them. */
import { iso, isoOrNull } from "../../lib/ids";
import type { ActivityOut } from "./activity.schemas";
import type { ActivityRow } from "./activity.store";

export function presentActivity(row: ActivityRow): ActivityOut {
  return {
    job_id: row.jobId,
    organization_id: row.orgId,
    space_id: row.spaceId,
    staff_user_id: row.staffUserId,
    trigger: row.trigger as ActivityOut["trigger"],
    chat_room_id: row.chatRoomId,
    task_id: row.taskId,
    source_message_id: row.sourceMessageId,
    reply_message_id: row.replyMessageId,
    provider: row.provider,
    model: row.model,
    status: row.status as ActivityOut["status"],
    tool_calls: JSON.parse(row.toolCalls),
    prompt_tokens: row.promptTokens,
    completion_tokens: row.completionTokens,
    duration_ms: row.durationMs,
    error: row.error,
    created_at: iso(row.createdAt),
    started_at: isoOrNull(row.startedAt),
    finished_at: isoOrNull(row.finishedAt),
  };
}
