/** Chat rows to JSON; a deleted message shows no content. */
import { iso, isoOrNull } from "../../lib/ids";
import type { AttachmentOut, MessageOut, ReactionOut, RoomOut } from "./chat.schemas";
import type { AttachmentRow, MessageRow, ReactionRow, RoomRow } from "./chat.store";

export function presentRoom(row: RoomRow): RoomOut {
  return {
    id: row.id,
    space_id: row.spaceId,
    name: row.name,
    created_by: row.createdBy,
    created_at: iso(row.createdAt),
  };
}

export function presentMessage(row: MessageRow): MessageOut {
  const out: MessageOut = {
    id: row.id,
    chat_room_id: row.roomId,
    space_id: row.spaceId,
    author_user_id: row.authorUserId,
    content: row.deletedAt === null ? row.content : "",
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
    edited_at: isoOrNull(row.editedAt),
    deleted_at: isoOrNull(row.deletedAt),
    thread_root_id: row.threadRootId,
    also_in_room: row.alsoInRoom,
    reply_count: row.replyCount,
    last_reply_at: isoOrNull(row.lastReplyAt),
  };
  // Only on what an automation posted (an extension; every other message keeps the spec's fields).
  if (row.automationId !== null) out.automation_id = row.automationId;
  return out;
}

export function presentReaction(row: ReactionRow): ReactionOut {
  return { message_id: row.messageId, user_id: row.userId, emoji: row.emoji, created_at: iso(row.createdAt) };
}

export function presentAttachment(row: AttachmentRow): AttachmentOut {
  return {
    id: row.id,
    message_id: row.messageId,
    name: row.name,
    mime: row.mime,
    size_bytes: row.sizeBytes,
    url: row.url,
    created_at: iso(row.createdAt),
  };
}
