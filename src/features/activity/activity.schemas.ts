/** The staff activity log: what each reply job did (issue scope "Transparency"). */
import { z } from "zod";
import { lazy, limitIn, timestampIn, timestampOut, uuidIn, uuidOut } from "../../http/schemas";

export const activityQuery = z.object({
  staff_user_id: uuidIn.optional(),
  limit: limitIn.optional(),
  before: timestampIn("invalid before").optional(),
});
export type ActivityQuery = z.infer<typeof activityQuery>;

export const toolCallOut = lazy(() =>
  z
    .object({
      name: z.string(),
      arguments: z.string(),
      result: z.string(),
      duration_ms: z.number(),
      error: z.string().nullable(),
    })
    .meta({ id: "ToolCall" }),
);
/** A tool call as the activity keeps it. */
export type ToolCallOut = z.infer<ReturnType<typeof toolCallOut>>;

export const activityOut = lazy(() =>
  z
    .object({
      job_id: uuidOut,
      organization_id: uuidOut,
      space_id: uuidOut,
      staff_user_id: uuidOut.nullable(),
      /** `chat` (a mention) or `task` (an assignment). */
      trigger: z.enum(["chat", "task"]),
      chat_room_id: uuidOut.nullable(),
      task_id: uuidOut.nullable(),
      source_message_id: uuidOut.nullable(),
      reply_message_id: uuidOut.nullable(),
      provider: z.string(),
      model: z.string(),
      status: z.enum(["queued", "running", "done", "failed"]),
      tool_calls: z.array(toolCallOut()),
      prompt_tokens: z.number(),
      completion_tokens: z.number(),
      duration_ms: z.number().nullable(),
      error: z.string().nullable(),
      created_at: timestampOut,
      started_at: timestampOut.nullable(),
      finished_at: timestampOut.nullable(),
    })
    .meta({ id: "StaffActivity" }),
);
export type ActivityOut = z.infer<ReturnType<typeof activityOut>>;
