/** Shapes of the chat screen's own: a staff reply under way, a link being attached, and the `ai.reply.*` events. */

/**
 * The payload of `ai.reply.started` / `finished` / `failed` (docs/api.md "Live events"). The server builds it
 * in the reply job without a schema, so it is written here.
 */
export interface ReplyEvent {
  job_id: string;
  staff_user_id: string;
  chat_room_id: string | null;
  source_message_id: string | null;
  reply_message_id: string | null;
  error: string | null;
}

/** A staff reply under way in a room, shown as "<name> is thinking…" (null: a staff member deleted since). */
export interface Thinking {
  jobId: string;
  staffUserId: string | null;
}

/** What the composer sends as an attachment. */
export interface AttachmentDraft {
  url: string;
  name: string;
}
