/** Chat rooms of a space, their messages, reactions and attachments. */
import { type Db, writeTx } from "../../db/client";
import type { GroupCommit } from "../../db/group-commit";
import { conflict, invalid, notFound } from "../../http/errors";
import { isUuid, newId, nextStamp } from "../../lib/ids";
import { nameKey } from "../../lib/text";
import type { SpaceActor } from "../spaces/spaces.policy";
import type { PageQuery } from "../tasks/tasks.schemas";
import { pageOf } from "../tasks/tasks.service";
import { assertCanDelete, assertCanEdit, normalizeEmoji } from "./chat.policy";
import type { AttachmentIn } from "./chat.schemas";
import type { AttachmentRow, ChatStore, MessageRow, ReactionRow, RoomRow } from "./chat.store";

/** A page of a room: messages oldest first, with the reactions and attachments of exactly those messages. */
export interface MessagePage {
  messages: MessageRow[];
  reactions: ReactionRow[];
  attachments: AttachmentRow[];
}

/** The display name of an attachment given only by URL: the last path segment. */
function nameFromUrl(url: string): string {
  const segment = new URL(url).pathname.split("/").pop() ?? "";
  try {
    return decodeURIComponent(segment) || "attachment";
  } catch {
    // Malformed percent-encoding (`100%ZZ.pdf`): keep the segment as written.
    return segment || "attachment";
  }
}

/** Chat operations, each on a space the macro has already checked. */
export class ChatService {
  constructor(
    private readonly db: Db,
    private readonly store: ChatStore,
    /** Posting is the hottest write: it commits in groups. */
    private readonly writes: GroupCommit,
  ) {}

  // Rooms

  rooms(actor: SpaceActor): RoomRow[] {
    return this.store.rooms(actor.space.id);
  }

  createRoom(actor: SpaceActor, name: string): RoomRow {
    return writeTx(this.db, () => {
      if (this.store.roomByName(actor.space.id, name)) throw conflict("room name already exists");
      const row: RoomRow = {
        id: newId(),
        spaceId: actor.space.id,
        name,
        nameKey: nameKey(name),
        createdBy: actor.userId,
        createdAt: Date.now(),
      };
      this.store.insertRoom(row);
      return row;
    });
  }

  deleteRoom(actor: SpaceActor, roomId: string): void {
    writeTx(this.db, () => this.store.deleteRoom(this.room(actor, roomId).id));
  }

  // Messages

  messages(actor: SpaceActor, roomId: string, query: PageQuery): MessagePage {
    const room = this.room(actor, roomId);
    const { limit, before } = pageOf(query);
    const messages = this.store.page(room.id, before, limit);
    const ids = messages.filter((m) => m.deletedAt === null).map((m) => m.id);
    return { messages, reactions: this.store.reactionsOf(ids), attachments: this.store.attachmentsOf(ids) };
  }

  post(
    actor: SpaceActor,
    roomId: string,
    input: { content?: string | undefined; attachments?: AttachmentIn[] | undefined },
  ): Promise<{ message: MessageRow; attachments: AttachmentRow[] }> {
    const content = input.content ?? "";
    const given = input.attachments ?? [];
    if (content.trim() === "" && given.length === 0) throw invalid("content: required");
    return this.writes.run(() => {
      const room = this.room(actor, roomId);
      const now = nextStamp(this.store.latestCreatedAt(room.id));
      const message: MessageRow = {
        id: newId(),
        roomId: room.id,
        spaceId: room.spaceId,
        authorUserId: actor.userId,
        content,
        createdAt: now,
        updatedAt: now,
        editedAt: null,
        deletedAt: null,
      };
      const attachments: AttachmentRow[] = given.map((a) => ({
        id: newId(),
        messageId: message.id,
        name: a.name || nameFromUrl(a.url),
        mime: a.mime || "application/octet-stream",
        sizeBytes: a.size_bytes ?? 0,
        url: a.url,
        createdAt: now,
      }));
      this.store.insertMessage(message, attachments);
      return { message, attachments };
    });
  }

  edit(actor: SpaceActor, roomId: string, messageId: string, content: string): MessageRow {
    if (content.trim() === "") throw invalid("content: must not be empty");
    return writeTx(this.db, () => {
      const message = this.message(actor, roomId, messageId);
      assertCanEdit(actor, message);
      if (message.deletedAt !== null) throw conflict("message has been deleted");
      const now = Date.now();
      const edited = { ...message, content, editedAt: now, updatedAt: now };
      this.store.saveMessage(edited);
      return edited;
    });
  }

  delete(actor: SpaceActor, roomId: string, messageId: string): MessageRow {
    return writeTx(this.db, () => {
      const message = this.message(actor, roomId, messageId);
      assertCanDelete(actor, message);
      if (message.deletedAt !== null) return message;
      const now = Date.now();
      this.store.softDeleteMessage(message, now);
      return { ...message, content: "", deletedAt: now, updatedAt: now };
    });
  }

  // Reactions

  react(actor: SpaceActor, roomId: string, messageId: string, emojiInput: string | undefined): ReactionRow {
    const emoji = normalizeEmoji(emojiInput);
    return writeTx(this.db, () => {
      const message = this.message(actor, roomId, messageId);
      if (message.deletedAt !== null) throw conflict("message has been deleted");
      const existing = this.store.reaction(message.id, actor.userId, emoji);
      if (existing) return existing;
      const row: ReactionRow = { messageId: message.id, userId: actor.userId, emoji, createdAt: Date.now() };
      this.store.insertReaction(row);
      return row;
    });
  }

  unreact(actor: SpaceActor, roomId: string, messageId: string, emojiInput: string | undefined): ReactionRow {
    const emoji = normalizeEmoji(emojiInput);
    return writeTx(this.db, () => {
      const message = this.message(actor, roomId, messageId);
      const existing = this.store.reaction(message.id, actor.userId, emoji);
      if (!existing || !this.store.deleteReaction(message.id, actor.userId, emoji))
        throw notFound("reaction not found");
      return existing;
    });
  }

  // Helpers

  private room(actor: SpaceActor, roomId: string): RoomRow {
    const room = isUuid(roomId) ? this.store.room(actor.space.id, roomId) : undefined;
    if (!room) throw notFound("chat room not found");
    return room;
  }

  private message(actor: SpaceActor, roomId: string, messageId: string): MessageRow {
    const room = this.room(actor, roomId);
    const message = isUuid(messageId) ? this.store.message(room.id, messageId) : undefined;
    if (!message) throw notFound("message not found");
    return message;
  }
}
