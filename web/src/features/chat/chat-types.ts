/** Shapes of the chat routes' answers and live events (docs/api.md "Chat" and "Live events"). */

/** A room of a space. */
export interface ChatRoom {
  id: string;
  space_id: string;
  name: string;
  created_at: string;
  /** Who created the room (for `general`, the space's creator); null once that account is gone. */
  created_by: string | null;
}

/** A message; a deleted one keeps its place with `content: ""` and `deleted_at` set. */
export interface Message {
  id: string;
  chat_room_id: string;
  space_id: string;
  author_user_id: string | null;
  content: string;
  created_at: string;
  updated_at: string;
  edited_at: string | null;
  deleted_at: string | null;
}

/** One person's (or staff member's) emoji on a message. */
export interface Reaction {
  message_id: string;
  user_id: string;
  emoji: string;
  created_at: string;
}

/** A link attached to a message (the server never fetches it). */
export interface Attachment {
  id: string;
  message_id: string;
  name: string;
  mime: string;
  size_bytes: number;
  url: string;
  created_at: string;
}

/** One page of `GET .../messages`, oldest first. */
export interface MessagePage {
  messages: Message[];
  reactions: Reaction[];
  attachments: Attachment[];
}

/** The payload of `ai.reply.started` / `finished` / `failed`. */
export interface ReplyEvent {
  job_id: string;
  staff_user_id: string;
  chat_room_id: string | null;
  source_message_id: string | null;
  reply_message_id: string | null;
  error: string | null;
}

/** A staff reply under way in a room, shown as "<name> is thinking…". */
export interface Thinking {
  jobId: string;
  staffUserId: string;
}

/** What the composer sends as an attachment. */
export interface AttachmentDraft {
  url: string;
  name: string;
}
