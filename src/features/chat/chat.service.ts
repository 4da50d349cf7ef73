/** Chat rooms of a space, their messages, reactions and attachments. */

import type { SpaceActor } from "../../core/actor";
import { conflict, invalid, notFound } from "../../core/errors";
import type { EventBus, EventType } from "../../core/events";
import { type Db, writeTx } from "../../db/client";
import type { GroupCommit } from "../../db/group-commit";
import { isUuid, newId, nextStamp } from "../../lib/ids";
import { isInvisible, nameKey, withoutControls } from "../../lib/text";
import type { PageQuery } from "../tasks/tasks.schemas";
import { pageOf } from "../tasks/tasks.service";
import { assertCanDelete, assertCanEdit, assertEditContent, normalizeEmoji } from "./chat.policy";
import { presentAttachment, presentMessage, presentReaction, presentRoom } from "./chat.present";
import type { AttachmentIn, AttachmentOut, MessageOut } from "./chat.schemas";
import type { AttachmentRow, ChatStore, MessageRow, ReactionRow, RoomRow } from "./chat.store";

/** A page of a room: messages oldest first, with the reactions and attachments of exactly those messages. */
export interface MessagePage {
  messages: MessageRow[];
  reactions: ReactionRow[];
  attachments: AttachmentRow[];
}

/** A posted message as the API answers it (and as its event carries it). */
export type PostedMessage = { message: MessageOut; attachments: AttachmentOut[] };

/** A posted message's rows. */
export type Posted = { message: MessageRow; attachments: AttachmentRow[] };

/** Mentions of staff: acknowledged and queued inside the post's transaction. */
export interface MentionHook {
  /** The 💭 reactions stored for the staff the message mentions, with their reply jobs. */
  chatMessagePosted(actor: SpaceActor, message: MessageRow): ReactionRow[];
  /** False when `chatMessagePosted` certainly stores nothing for this message (it names no one). */
  mayMention(actor: SpaceActor, content: string): boolean;
  /** Jobs were committed: start on them. */
  queued(): void;
}

/** The longest attachment name, as a given one may be. */
const MAX_ATTACHMENT_NAME = 255;

/**
 * The display name of an attachment given only by URL: the last path segment, decoded, held to the rules of a
 * given name (one line, no bidirectional controls, at most 255 characters, something visible), else
 * `attachment`.
 */
function nameFromUrl(url: string): string {
  const segment = new URL(url).pathname.split("/").pop() ?? "";
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // Malformed percent-encoding (`100%ZZ.pdf`): keep the segment as written.
  }
  const name = [...withoutControls(decoded).trim()].slice(0, MAX_ATTACHMENT_NAME).join("").trim();
  return isInvisible(name) ? "attachment" : name;
}

/**
 * The time of an edit, a deletion or a reaction of `message`: now, but never before the message's own time (a
 * burst of posts stamps them ahead of the clock).
 */
export const stampOn = (message: { createdAt: number }) => Math.max(Date.now(), message.createdAt);

/** How many messages of a deleted room one step removes: about 10 ms of work, between other requests. */
const PURGE_BATCH = 1000;

/**
 * Removes the rows of deleted rooms, a batch per turn of the event loop, so requests are served in between.
 * It runs after each room deletion and at start (a purge cut off by a stop goes on); a step that fails (a
 * full disk) is reported and tried again a second later.
 */
export class RoomPurge {
  private running = false;

  constructor(
    private readonly db: Db,
    private readonly store: ChatStore,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Purges every deleted room; resolves when none is left (or a step failed and a retry is scheduled). */
  async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (let room = this.store.deletedRoom(); room !== undefined; room = this.store.deletedRoom()) {
        const id = room;
        while (writeTx(this.db, () => this.store.purgeDeletedRoom(id, PURGE_BATCH))) await Bun.sleep(0);
      }
    } catch (error) {
      this.onError(error);
      setTimeout(() => void this.run(), 1000).unref?.();
    } finally {
      this.running = false;
    }
  }
}

/** Chat operations, each on a space the macro has already checked. Every change is published once committed. */
export class ChatService {
  constructor(
    private readonly db: Db,
    private readonly store: ChatStore,
    /** Posting is the hottest write: it commits in groups. */
    private readonly writes: GroupCommit,
    private readonly events: EventBus,
    private readonly mentions: MentionHook | null,
    /** Removes what deleted rooms held. */
    readonly purge: RoomPurge,
  ) {}

  // Rooms

  rooms(actor: SpaceActor): RoomRow[] {
    return this.store.rooms(actor.space.id);
  }

  createRoom(actor: SpaceActor, name: string): RoomRow {
    const room = writeTx(this.db, () => {
      if (this.store.roomByName(actor.space.id, name)) throw conflict("room name already exists");
      const row: RoomRow = {
        id: newId(),
        spaceId: actor.space.id,
        name,
        nameKey: nameKey(name),
        createdBy: actor.userId,
        createdAt: Date.now(),
        deletedAt: null,
      };
      this.store.insertRoom(row);
      return row;
    });
    this.publish(actor, "chat.room.created", presentRoom(room));
    return room;
  }

  /**
   * Deletes a room for every route at once; its messages, reactions and attachments are removed in the
   * background in small batches (a room of a million messages would otherwise hold the server for seconds).
   */
  deleteRoom(actor: SpaceActor, roomId: string): void {
    const room = writeTx(this.db, () => {
      const found = this.room(actor, roomId);
      this.store.deleteRoom(found.id, Date.now());
      return found;
    });
    this.publish(actor, "chat.room.deleted", { id: room.id });
    void this.purge.run();
  }

  // Messages

  /** The room's newest `limit` messages, oldest first, without reactions or attachments: what staff read. */
  latestMessages(actor: SpaceActor, roomId: string, limit: number): MessageRow[] {
    const room = this.room(actor, roomId);
    return this.store.page(room.id, Number.MAX_SAFE_INTEGER, limit);
  }

  messages(actor: SpaceActor, roomId: string, query: PageQuery): MessagePage {
    const room = this.room(actor, roomId);
    const { limit, before } = pageOf(query);
    const messages = this.store.page(room.id, before, limit);
    const oldest = messages[0];
    if (!oldest) return { messages, reactions: [], attachments: [] };
    // The page is one span of the room's timeline: its reactions and attachments are read by that span.
    return {
      messages,
      reactions: this.store.reactionsBetween(room.id, oldest.createdAt, before),
      attachments: this.store.attachmentsBetween(room.id, oldest.createdAt, before),
    };
  }

  async post(
    actor: SpaceActor,
    roomId: string,
    input: { content?: string | undefined; attachments?: AttachmentIn[] | undefined },
  ): Promise<PostedMessage> {
    const content = input.content ?? "";
    const given = input.attachments ?? [];
    if (isInvisible(content) && given.length === 0) throw invalid("content: required");
    // Most posts are a single row (no attachments, no one mentioned): they need no savepoint in the group.
    const oneWrite = given.length === 0 && !(this.mentions?.mayMention(actor, content) ?? false);
    const { posted, acks } = await this.writes.run(
      () => {
        // The group commits a turn later: the caller's access is checked again where the message is stored.
        actor.recheck?.();
        const posted = this.insertPost(actor, roomId, content, given);
        // Mentioned staff acknowledge in the same transaction: the 💭 and the reply job commit with the message.
        const acks = this.mentions?.chatMessagePosted(actor, posted.message) ?? [];
        return { posted, acks };
      },
      { oneWrite },
    );
    const presented = this.announcePosted(actor, posted);
    for (const ack of acks) this.publish(actor, "chat.reaction.added", presentReaction(ack));
    if (acks.length > 0) this.mentions?.queued();
    return presented;
  }

  /** A message posted by a job inside its own transaction (a staff reply); announce it once committed. */
  insertReply(actor: SpaceActor, roomId: string, content: string): Posted {
    return this.insertPost(actor, roomId, content, []);
  }

  /** Throws 404 once the message a staff reply answers is gone: deleted, or its room deleted. */
  assertAnswerable(actor: SpaceActor, roomId: string, messageId: string): void {
    if (this.message(actor, roomId, messageId).deletedAt !== null) throw notFound("the message was deleted");
  }

  /** Publishes a committed post; the event and the answer are the same JSON, presented once. */
  announcePosted(actor: SpaceActor, posted: Posted): PostedMessage {
    const presented = {
      message: presentMessage(posted.message),
      attachments: posted.attachments.map(presentAttachment),
    };
    this.publish(actor, "chat.message.created", presented);
    return presented;
  }

  private insertPost(actor: SpaceActor, roomId: string, content: string, given: readonly AttachmentIn[]): Posted {
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
  }

  edit(actor: SpaceActor, roomId: string, messageId: string, content: unknown): MessageRow {
    const edited = writeTx(this.db, () => {
      const message = this.message(actor, roomId, messageId);
      assertCanEdit(actor, message);
      assertEditContent(content);
      if (message.deletedAt !== null) throw conflict("message has been deleted");
      const now = stampOn(message);
      const row = { ...message, content, editedAt: now, updatedAt: now };
      this.store.saveMessage(message, row);
      return row;
    });
    this.publish(actor, "chat.message.updated", presentMessage(edited));
    return edited;
  }

  delete(actor: SpaceActor, roomId: string, messageId: string): MessageRow {
    const { row, changed } = writeTx(this.db, () => {
      const message = this.message(actor, roomId, messageId);
      assertCanDelete(actor, message);
      if (message.deletedAt !== null) return { row: message, changed: false };
      const now = stampOn(message);
      this.store.softDeleteMessage(message, now);
      return { row: { ...message, content: "", deletedAt: now, updatedAt: now }, changed: true };
    });
    // The event carries no content: presentMessage shows a deleted message's content as "".
    if (changed) this.publish(actor, "chat.message.deleted", presentMessage(row));
    return row;
  }

  // Reactions

  react(actor: SpaceActor, roomId: string, messageId: string, emojiInput: string | undefined): ReactionRow {
    const emoji = normalizeEmoji(emojiInput);
    const { row, added } = writeTx(this.db, () => {
      const message = this.message(actor, roomId, messageId);
      if (message.deletedAt !== null) throw conflict("message has been deleted");
      const existing = this.store.reaction(message.id, actor.userId, emoji);
      if (existing) return { row: existing, added: false };
      const reaction: ReactionRow = { messageId: message.id, userId: actor.userId, emoji, createdAt: stampOn(message) };
      this.store.insertReaction(reaction);
      return { row: reaction, added: true };
    });
    if (added) this.publish(actor, "chat.reaction.added", presentReaction(row));
    return row;
  }

  unreact(actor: SpaceActor, roomId: string, messageId: string, emojiInput: string | undefined): ReactionRow {
    const emoji = normalizeEmoji(emojiInput);
    const removed = writeTx(this.db, () => {
      const message = this.message(actor, roomId, messageId);
      const existing = this.store.reaction(message.id, actor.userId, emoji);
      if (!existing || !this.store.deleteReaction(message.id, actor.userId, emoji))
        throw notFound("reaction not found");
      return existing;
    });
    this.publish(actor, "chat.reaction.removed", presentReaction(removed));
    return removed;
  }

  // Helpers

  /** The user's reactions that go with their account, to announce once it is deleted (`announceGone`). */
  reactionsBy(userId: string): { reaction: ReactionRow; spaceId: string }[] {
    return this.store.reactionsBy(userId);
  }

  /** Announces reactions removed with their author's account, as removals. */
  announceGone(orgId: string, reactions: readonly { reaction: ReactionRow; spaceId: string }[]): void {
    for (const { reaction, spaceId } of reactions) {
      this.events.publish({
        type: "chat.reaction.removed",
        organization_id: orgId,
        space_id: spaceId,
        payload: presentReaction(reaction),
      });
    }
  }

  private publish(actor: SpaceActor, type: EventType, payload: unknown): void {
    this.events.publish({ type, organization_id: actor.orgId, space_id: actor.space.id, payload });
  }

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
