/** The events of chat: each carries what the REST route answers for the same change. */
import type { AttachmentOut, MessageOut, ReactionOut, RoomOut } from "./chat.schemas";

declare module "../../core/events" {
  interface EventPayloads {
    "chat.room.created": RoomOut;
    "chat.room.deleted": { id: string };
    "chat.message.created": { message: MessageOut; attachments: AttachmentOut[] };
    "chat.message.updated": MessageOut;
    "chat.message.deleted": MessageOut;
    "chat.reaction.added": ReactionOut;
    "chat.reaction.removed": ReactionOut;
  }
}
