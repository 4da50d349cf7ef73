/** Activity rows as the API shows them. */
import { iso, isoOrNull } from "../../lib/ids";
import type { ActivityOut, ToolCallOut } from "./activity.schemas";
import type { ActivityRow } from "./activity.store";

/**
 * What the staff member's tools were given and answered holds file names and contents: shown to those who may
 * read the space's files (`files.read`); others see which tools ran, for how long, and whether they failed.
 */
function toolCallsFor(json: string, readsFiles: boolean): ToolCallOut[] {
  const calls = JSON.parse(json) as ToolCallOut[];
  if (readsFiles) return calls;
  return calls.map((call) => ({
    ...call,
    arguments: "",
    result: "",
    error: call.error === null ? null : "(hidden: needs files.read)",
  }));
}

export function presentActivity(row: ActivityRow, readsFiles: boolean): ActivityOut {
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
    tool_calls: toolCallsFor(row.toolCalls, readsFiles),
    prompt_tokens: row.promptTokens,
    completion_tokens: row.completionTokens,
    duration_ms: row.durationMs,
    error: row.error,
    created_at: iso(row.createdAt),
    started_at: isoOrNull(row.startedAt),
    finished_at: isoOrNull(row.finishedAt),
  };
}
