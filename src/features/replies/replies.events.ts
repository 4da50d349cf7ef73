/** The events of staff replies: a reply job started, and how it ended. */

/** What each of them carries. */
export interface ReplyEventPayload {
  job_id: string;
  staff_user_id: string;
  chat_room_id: string | null;
  source_message_id: string | null;
  reply_message_id: string | null;
  error: string | null;
  task_id: string | null;
  /** Who asked (the mention's author, the assigner; for an automation's prompt, who approved it); null: no one. */
  asked_by_user_id: string | null;
}

declare module "../../core/events" {
  interface EventPayloads {
    "ai.reply.started": ReplyEventPayload;
    "ai.reply.finished": ReplyEventPayload;
    "ai.reply.failed": ReplyEventPayload;
  }
}
