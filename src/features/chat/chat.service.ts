/** Chat rooms of a space, their messages, reactions and attachments. */

import type { SpaceActor } from "../../core/actor";
import { conflict, invalid, notFound } from "../../core/errors";
import { spaceEvent, type Unit } from "../../core/events";
import { type PageQuery, pageOf } from "../../core/paging";
import type { IncomingFile } from "../../core/upload";
import type { GroupCommit } from "../../db/group-commit";
import type { UnitOfWork } from "../../db/unit";
import { isUuid, newId, nextStamp } from "../../lib/ids";
import { isInvisible, nameKey, withoutControls } from "../../lib/text";
import type { FilesService, NodeRow } from "../files/files.service";
import { assertCanDelete, assertCanDeleteRoom, assertCanEdit, assertEditContent, normalizeEmoji } from "./chat.policy";
import { presentAttachment, presentMessage, presentReaction, presentRoom } from "./chat.present";
import type { AttachmentIn, AttachmentOut, MessageOut, PostMessageIn, UploadedOut } from "./chat.schemas";
import type { AttachmentRow, ChatStore, MessageRow, ReactionRow, RoomRow } from "./chat.store";

/** A page of a room: messages oldest first, with the reactions and attachments of exactly those messages. */
export interface MessagePage {
  messages: MessageRow[];
  reactions: ReactionRow[];
  attachments: AttachmentRow[];
}

/** A posted message as the API answers it (and as its event carries it). */
export type PostedMessage = { message: MessageOut; attachments: AttachmentOut[] };

/** A page of a thread: its replies as a room's page holds messages, and its root with its own. */
export interface ThreadPage extends MessagePage {
  root: { message: MessageRow; reactions: ReactionRow[]; attachments: AttachmentRow[] };
}

/** The root folder chat uploads go to. */
export const ATTACHMENTS = "Attachments";

/** Where a message goes: its room's list, or a thread (and the room too when `alsoInRoom`). */
interface Placement {
  root: MessageRow | null;
  alsoInRoom: boolean;
}

const TOP_LEVEL: Placement = { root: null, alsoInRoom: false };

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
    private readonly uow: UnitOfWork,
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
        while (this.uow.write(() => this.store.purgeDeletedRoom(id, PURGE_BATCH))) await Bun.sleep(0);
      }
    } catch (error) {
      this.onError(error);
      setTimeout(() => void this.run(), 1000).unref?.();
    } finally {
      this.running = false;
    }
  }
}

/** Chat operations, each on a space the macro has already checked. Every change emits its event. */
export class ChatService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: ChatStore,
    /** Posting is the hottest write: it commits in groups. */
    private readonly writes: GroupCommit,
    /** Removes what deleted rooms held. */
    readonly purge: RoomPurge,
    /** Where uploads go: the space's `Attachments` folder. */
    private readonly files: FilesService,
  ) {}

  // Rooms

  rooms(actor: SpaceActor): RoomRow[] {
    return this.store.rooms(actor.space.id);
  }

  createRoom(actor: SpaceActor, name: string): RoomRow {
    return this.uow.write((unit) => {
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
      unit.emit(spaceEvent(actor, "chat.room.created", presentRoom(row)));
      return row;
    });
  }

  /**
   * Deletes a room for every route at once; its messages, reactions and attachments are removed in the
   * background in small batches (a room of a million messages would otherwise hold the server for seconds).
   */
  /**
   * A new space's first room (`general`), in the unit that creates the space: announced with the space, so
   * without an event of its own.
   */
  addFirstRoom(space: { id: string; createdBy: string }, now: number): void {
    this.uow.write(() =>
      this.store.insertRoom({
        id: newId(),
        spaceId: space.id,
        name: "general",
        nameKey: "general",
        createdBy: space.createdBy,
        createdAt: now,
        deletedAt: null,
      }),
    );
  }

  deleteRoom(actor: SpaceActor, roomId: string): void {
    this.uow.write((unit) => {
      const room = this.room(actor, roomId);
      assertCanDeleteRoom(actor, room);
      this.store.deleteRoom(room.id, Date.now());
      unit.emit({ ...spaceEvent(actor, "chat.room.deleted", { id: room.id }), label: room.name });
      unit.afterCommit(() => void this.purge.run());
    });
  }

  // Messages

  /**
   * The room's newest `limit` messages, oldest first, without reactions or attachments: what staff read. In a
   * thread (`threadRootId`), its root and newest replies instead.
   */
  latestMessages(actor: SpaceActor, roomId: string, limit: number, threadRootId: string | null = null): MessageRow[] {
    const room = this.room(actor, roomId);
    if (threadRootId === null) return this.store.page(room.id, Number.MAX_SAFE_INTEGER, limit);
    const root = this.message(actor, room.id, threadRootId);
    return [root, ...this.store.threadPage(root.id, Number.MAX_SAFE_INTEGER, Math.max(0, limit - 1))];
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

  /**
   * A thread, its newest `limit` replies before `before` oldest first, with its root (a reply's id stands for
   * the thread it is in). A deleted root keeps its thread.
   */
  replies(actor: SpaceActor, roomId: string, messageId: string, query: PageQuery): ThreadPage {
    const given = this.message(actor, roomId, messageId);
    const root = given.threadRootId === null ? given : this.message(actor, roomId, given.threadRootId);
    const { limit, before } = pageOf(query);
    const messages = this.store.threadPage(root.id, before, limit);
    const oldest = messages[0];
    return {
      messages,
      reactions: oldest ? this.store.threadReactionsBetween(root.id, oldest.createdAt, before) : [],
      attachments: oldest ? this.store.threadAttachmentsBetween(root.id, oldest.createdAt, before) : [],
      root: {
        message: root,
        reactions: this.store.reactionsOf(root.id),
        attachments: this.store.attachmentsOf(root.id),
      },
    };
  }

  async post(actor: SpaceActor, roomId: string, input: PostMessageIn): Promise<PostedMessage> {
    const content = input.content ?? "";
    const given = input.attachments ?? [];
    if (isInvisible(content) && given.length === 0) throw invalid("content: required");
    const rootId = input.thread_root_id ?? null;
    if (input.also_in_room === true && rootId === null) throw invalid("also_in_room: needs thread_root_id");
    // Most posts are a single row (top level, no attachments, and no handler of the post that may write: no
    // staff named): they need no savepoint in the group. A reply writes its root's counters too.
    const oneWrite =
      rootId === null && given.length === 0 && !this.uow.events.mayWrite("chat.message.created", actor, content);
    return this.writes.run(
      (unit) => {
        // The group commits a turn later: the caller's access is checked again where the message is stored.
        actor.recheck?.();
        const room = this.room(actor, roomId);
        const placement = rootId === null ? TOP_LEVEL : this.placement(room, rootId, input.also_in_room === true);
        return this.insertPost(unit, actor, room, content, given, placement);
      },
      { oneWrite },
    );
  }

  /**
   * A message of the server's making (a staff reply), in the unit of the write it belongs to when there is one;
   * in the thread of `threadRootId` when the question was asked in one.
   */
  postReply(actor: SpaceActor, roomId: string, content: string, threadRootId: string | null = null): PostedMessage {
    return this.uow.write((unit) => {
      const room = this.room(actor, roomId);
      const placement = threadRootId === null ? TOP_LEVEL : this.placement(room, threadRootId, false);
      return this.insertPost(unit, actor, room, content, [], placement);
    });
  }

  /**
   * Uploads a file of the composer into the space's `Attachments` root folder (made when missing), under a
   * free name (`image.png`, then `image (2).png`, ...), and answers it as an attachment ready to post: `url` is
   * the file's content route at `origin`, which answers only those who can see the space.
   */
  async upload(
    actor: SpaceActor,
    roomId: string,
    incoming: IncomingFile,
    origin: string,
  ): Promise<{ node: NodeRow; attachment: UploadedOut }> {
    this.room(actor, roomId);
    const received = await this.files.receive(incoming);
    try {
      const node = this.uow.write(() => {
        // The body took its time: the uploader may have lost access meanwhile, or the room may be gone.
        actor.recheck?.();
        this.room(actor, roomId);
        const folder = this.files.rootFolder(actor, ATTACHMENTS);
        const name = this.files.freeName(actor, folder.id, received.name);
        return this.files.place(actor, { ...received, name }, folder.id);
      });
      const url = `${origin}/api/v1/organizations/${actor.orgId}/spaces/${actor.space.id}/files/${node.id}/content`;
      const attachment = {
        url,
        name: node.name,
        mime: node.mimeType ?? "application/octet-stream",
        size_bytes: node.sizeBytes ?? 0,
      };
      return { node, attachment };
    } catch (error) {
      received.blob.discard();
      throw error;
    }
  }

  /**
   * A message an automation posts, in the unit of its run: no author, `automation_id` naming it. `actor` is who
   * the automation speaks for (the person who approved it): a mention of staff in it wakes them as if that
   * person had asked.
   */
  postAsAutomation(actor: SpaceActor, roomId: string, content: string, automationId: string): PostedMessage {
    return this.uow.write((unit) =>
      this.insertPost(unit, actor, this.room(actor, roomId), content, [], TOP_LEVEL, automationId),
    );
  }

  /** A live room of the space by its name, ignoring case and a leading `#`. */
  roomNamed(spaceId: string, name: string): RoomRow | undefined {
    const bare = name.trim().replace(/^#/, "").trim();
    return bare ? this.store.roomByName(spaceId, bare) : undefined;
  }

  /** Throws 404 once the message a staff reply answers is gone: deleted, or its room deleted. */
  assertAnswerable(actor: SpaceActor, roomId: string, messageId: string): void {
    if (this.message(actor, roomId, messageId).deletedAt !== null) throw notFound("the message was deleted");
  }

  /**
   * The thread a reply to `rootId` goes in: that message's, or its root's when it is a reply itself. 400 when it
   * is not a message of the room, or a deleted one whose thread holds nothing (a deleted root keeps its thread).
   */
  private placement(room: RoomRow, rootId: string, alsoInRoom: boolean): Placement {
    const given = isUuid(rootId) ? this.store.message(room.id, rootId) : undefined;
    if (!given) throw invalid("thread_root_id: no such message in this room");
    const root = given.threadRootId === null ? given : this.store.message(room.id, given.threadRootId);
    if (!root) throw invalid("thread_root_id: no such message in this room");
    if (root.deletedAt !== null && root.replyCount === 0) throw invalid("thread_root_id: message has been deleted");
    return { root, alsoInRoom };
  }

  /**
   * Stores a message; its event and the answer are the same JSON, presented once. A reply counts on its root,
   * in the same unit, and the root's new counts go out as its `chat.message.updated`.
   */
  private insertPost(
    unit: Unit,
    actor: SpaceActor,
    room: RoomRow,
    content: string,
    given: readonly AttachmentIn[],
    placement: Placement,
    automationId: string | null = null,
  ): PostedMessage {
    const now = nextStamp(this.store.latestCreatedAt(room.id));
    const message: MessageRow = {
      id: newId(),
      roomId: room.id,
      spaceId: room.spaceId,
      // An automation's message is its own: no one wrote it (the people who approved it are the event's actor).
      authorUserId: automationId === null ? actor.userId : null,
      automationId,
      content,
      createdAt: now,
      updatedAt: now,
      editedAt: null,
      deletedAt: null,
      threadRootId: placement.root?.id ?? null,
      alsoInRoom: placement.alsoInRoom,
      replyCount: 0,
      lastReplyAt: null,
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
    const presented = { message: presentMessage(message), attachments: attachments.map(presentAttachment) };
    unit.emit(spaceEvent(actor, "chat.message.created", presented));
    const { root } = placement;
    if (root) {
      this.countReplies(unit, actor, root, { replyCount: root.replyCount + 1, lastReplyAt: now }, now);
    }
    return presented;
  }

  /** Writes a root's reply counts (a reply posted or deleted) and announces the root as it now reads. */
  private countReplies(
    unit: Unit,
    actor: SpaceActor,
    root: MessageRow,
    counts: Pick<MessageRow, "replyCount" | "lastReplyAt">,
    now: number,
  ): void {
    const row = { ...root, ...counts, updatedAt: Math.max(now, root.updatedAt) };
    this.store.saveMessage(root, row);
    unit.emit(spaceEvent(actor, "chat.message.updated", presentMessage(row)));
  }

  edit(actor: SpaceActor, roomId: string, messageId: string, content: unknown): MessageRow {
    return this.uow.write((unit) => {
      const message = this.message(actor, roomId, messageId);
      assertCanEdit(actor, message);
      assertEditContent(content);
      if (message.deletedAt !== null) throw conflict("message has been deleted");
      const now = stampOn(message);
      const row = { ...message, content, editedAt: now, updatedAt: now };
      this.store.saveMessage(message, row);
      unit.emit(spaceEvent(actor, "chat.message.updated", presentMessage(row)));
      return row;
    });
  }

  delete(actor: SpaceActor, roomId: string, messageId: string): MessageRow {
    return this.uow.write((unit) => {
      const message = this.message(actor, roomId, messageId);
      assertCanDelete(actor, message);
      if (message.deletedAt !== null) return message;
      const now = stampOn(message);
      this.store.softDeleteMessage(message, now);
      const row = { ...message, content: "", deletedAt: now, updatedAt: now };
      // The event carries no content: presentMessage shows a deleted message's content as "".
      unit.emit(spaceEvent(actor, "chat.message.deleted", presentMessage(row)));
      // A deleted reply no longer counts on its root (a deleted root keeps its thread and its counts).
      const root = message.threadRootId === null ? undefined : this.store.message(message.roomId, message.threadRootId);
      if (root) {
        const counts = { replyCount: Math.max(0, root.replyCount - 1), lastReplyAt: this.store.newestReplyAt(root.id) };
        this.countReplies(unit, actor, root, counts, now);
      }
      return row;
    });
  }

  // Reactions

  react(actor: SpaceActor, roomId: string, messageId: string, emojiInput: string | undefined): ReactionRow {
    const emoji = normalizeEmoji(emojiInput);
    return this.uow.write((unit) => {
      const message = this.message(actor, roomId, messageId);
      if (message.deletedAt !== null) throw conflict("message has been deleted");
      const existing = this.store.reaction(message.id, actor.userId, emoji);
      if (existing) return existing;
      const reaction: ReactionRow = { messageId: message.id, userId: actor.userId, emoji, createdAt: stampOn(message) };
      this.store.insertReaction(reaction);
      unit.emit(spaceEvent(actor, "chat.reaction.added", presentReaction(reaction)));
      return reaction;
    });
  }

  unreact(actor: SpaceActor, roomId: string, messageId: string, emojiInput: string | undefined): ReactionRow {
    const emoji = normalizeEmoji(emojiInput);
    return this.uow.write((unit) => {
      const message = this.message(actor, roomId, messageId);
      const existing = this.store.reaction(message.id, actor.userId, emoji);
      if (!existing || !this.store.deleteReaction(message.id, actor.userId, emoji))
        throw notFound("reaction not found");
      unit.emit(spaceEvent(actor, "chat.reaction.removed", presentReaction(existing)));
      return existing;
    });
  }

  // Helpers

  /**
   * Removes every reaction of an account about to be deleted (a staff member's, the 💭 included), each as a
   * removal of the organization's, in the caller's unit.
   */
  removeReactionsOf(orgId: string, userId: string): void {
    this.uow.write((unit) => {
      for (const { reaction, spaceId } of this.store.reactionsBy(userId)) {
        this.store.deleteReaction(reaction.messageId, userId, reaction.emoji);
        const payload = presentReaction(reaction);
        unit.emit({ type: "chat.reaction.removed", organization_id: orgId, space_id: spaceId, payload });
      }
    });
  }

  private room(actor: SpaceActor, roomId: string): RoomRow {
    const room = isUuid(roomId) ? this.store.room(actor.space.id, roomId) : undefined;
    if (!room) throw notFound("chat room not found");
    return room;
  }

  /** A message of a room of the space, deleted ones included; 404 for an unknown room or message. */
  message(actor: SpaceActor, roomId: string, messageId: string): MessageRow {
    const room = this.room(actor, roomId);
    const message = isUuid(messageId) ? this.store.message(room.id, messageId) : undefined;
    if (!message) throw notFound("message not found");
    return message;
  }
}
