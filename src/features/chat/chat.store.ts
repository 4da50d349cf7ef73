/** Chat rooms, messages, reactions and attachments. Every statement is prepared once. */
import { and, asc, desc, eq, gte, isNotNull, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import { type Db, prepared } from "../../db/client";
import { changedColumnsUpdater, insertRow } from "../../db/prepared";
import { chatAttachments, chatMessages, chatReactions, chatRooms } from "../../db/schema";
import { nameKey } from "../../lib/text";

export type RoomRow = typeof chatRooms.$inferSelect;
export type MessageRow = typeof chatMessages.$inferSelect;
export type ReactionRow = typeof chatReactions.$inferSelect;
export type AttachmentRow = typeof chatAttachments.$inferSelect;

const p = sql.placeholder;

/** A batch of a deleted room's messages (their reactions and attachments cascade). */
export const PURGE_MESSAGES_SQL =
  "DELETE FROM chat_messages WHERE rowid IN (SELECT rowid FROM chat_messages WHERE room_id = $room LIMIT $batch)";
const REMEMBERED_ROOMS = 10_000;

/** The messages a room's own list shows: top-level ones, and replies sent to the room too. */
const inRoomList = or(isNull(chatMessages.threadRootId), eq(chatMessages.alsoInRoom, true)) as SQL;
/** The messages of a room created in [from, before): a page's span of its timeline. */
const roomSpan = and(
  eq(chatMessages.roomId, p("roomId")),
  gte(chatMessages.createdAt, p("from")),
  lt(chatMessages.createdAt, p("before")),
  inRoomList,
) as SQL;
/** The replies of a thread created in [from, before). */
const threadSpan = and(
  eq(chatMessages.threadRootId, p("rootId")),
  gte(chatMessages.createdAt, p("from")),
  lt(chatMessages.createdAt, p("before")),
) as SQL;
/** One message. */
const oneMessage = eq(chatMessages.id, p("messageId"));

/** Sets `key` in a map that keeps at most REMEMBERED_ROOMS entries (the oldest go first). */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (!map.has(key) && map.size >= REMEMBERED_ROOMS) map.delete(map.keys().next().value as string);
  map.set(key, value);
}

/** Data access for chat. */
export class ChatStore {
  constructor(private readonly db: Db) {}

  // Rooms

  private readonly roomsOf = prepared(() =>
    this.db
      .select()
      .from(chatRooms)
      .where(and(eq(chatRooms.spaceId, p("spaceId")), isNull(chatRooms.deletedAt)))
      .orderBy(asc(chatRooms.createdAt), asc(chatRooms.id))
      .prepare(),
  );

  rooms(spaceId: string): RoomRow[] {
    return this.roomsOf().all({ spaceId });
  }

  private readonly roomById = prepared(() =>
    this.db
      .select()
      .from(chatRooms)
      .where(and(eq(chatRooms.id, p("roomId")), eq(chatRooms.spaceId, p("spaceId")), isNull(chatRooms.deletedAt)))
      .prepare(),
  );

  /** Rooms never change but by being deleted (below): each is read once. */
  private readonly knownRooms = new Map<string, RoomRow>();

  room(spaceId: string, roomId: string): RoomRow | undefined {
    const known = this.knownRooms.get(roomId);
    if (known) return known.spaceId === spaceId ? known : undefined;
    const row = this.roomById().all({ spaceId, roomId })[0];
    if (row) remember(this.knownRooms, roomId, row);
    return row;
  }

  private readonly roomByKey = prepared(() =>
    this.db
      .select()
      .from(chatRooms)
      .where(and(eq(chatRooms.spaceId, p("spaceId")), eq(chatRooms.nameKey, p("key")), isNull(chatRooms.deletedAt)))
      .prepare(),
  );

  roomByName(spaceId: string, name: string): RoomRow | undefined {
    return this.roomByKey().all({ spaceId, key: nameKey(name) })[0];
  }

  private readonly insertRoomRow = prepared(() => insertRow(this.db, chatRooms));

  insertRoom(row: RoomRow): void {
    this.insertRoomRow().run(row);
  }

  private readonly markRoomDeleted = prepared(() =>
    this.db
      .update(chatRooms)
      .set({ deletedAt: p("now") as unknown as number })
      .where(eq(chatRooms.id, p("roomId")))
      .prepare(),
  );

  /** A deleted room is gone for every route at once; its rows are removed later (`purgeDeletedRoom`). */
  deleteRoom(roomId: string, now: number): void {
    this.knownRooms.delete(roomId);
    this.latest.delete(roomId);
    this.markRoomDeleted().run({ roomId, now });
  }

  private readonly firstDeletedRoom = prepared(() =>
    this.db.select({ id: chatRooms.id }).from(chatRooms).where(isNotNull(chatRooms.deletedAt)).limit(1).prepare(),
  );

  /** A room deleted but not yet purged, if any. */
  deletedRoom(): string | undefined {
    return this.firstDeletedRoom().all()[0]?.id;
  }

  private readonly purgeMessages = prepared(() => this.db.$client.prepare(PURGE_MESSAGES_SQL));

  private readonly purgeRoomRow = prepared(() =>
    this.db
      .delete(chatRooms)
      .where(and(eq(chatRooms.id, p("roomId")), isNotNull(chatRooms.deletedAt)))
      .prepare(),
  );

  /**
   * Removes up to `batch` messages of a deleted room (their reactions and attachments cascade), or, once none
   * is left, the room's row. Returns false when the room is gone for good.
   */
  purgeDeletedRoom(roomId: string, batch: number): boolean {
    if (this.purgeMessages().run({ room: roomId, batch }).changes > 0) return true;
    this.purgeRoomRow().run({ roomId });
    return false;
  }

  // Messages

  /** The newest `$limit` messages that `where` selects, newest first. */
  private newestWhere(where: SQL) {
    return prepared(() =>
      this.db
        .select()
        .from(chatMessages)
        .where(and(where, lt(chatMessages.createdAt, p("before"))))
        .orderBy(desc(chatMessages.createdAt), desc(chatMessages.id))
        .limit(p("limit"))
        .prepare(),
    );
  }

  private readonly pageQuery = this.newestWhere(and(eq(chatMessages.roomId, p("roomId")), inRoomList) as SQL);
  private readonly threadQuery = this.newestWhere(eq(chatMessages.threadRootId, p("rootId")));

  /**
   * The newest `limit` messages of the room's own list created before `before`, oldest first: replies that
   * stay in their thread are not in it.
   */
  page(roomId: string, before: number, limit: number): MessageRow[] {
    return this.pageQuery().all({ roomId, before, limit }).reverse();
  }

  /** The newest `limit` replies of a thread created before `before`, oldest first. */
  threadPage(rootId: string, before: number, limit: number): MessageRow[] {
    return this.threadQuery().all({ rootId, before, limit }).reverse();
  }

  private readonly newestReplyQuery = prepared(() =>
    this.db
      .select({ createdAt: chatMessages.createdAt })
      .from(chatMessages)
      .where(and(eq(chatMessages.threadRootId, p("rootId")), isNull(chatMessages.deletedAt)))
      .orderBy(desc(chatMessages.createdAt))
      .limit(1)
      .prepare(),
  );

  /** When the newest live reply of a thread was posted; null when none is left. */
  newestReplyAt(rootId: string): number | null {
    return this.newestReplyQuery().all({ rootId })[0]?.createdAt ?? null;
  }

  private readonly messageById = prepared(() =>
    this.db
      .select()
      .from(chatMessages)
      .where(and(eq(chatMessages.id, p("id")), eq(chatMessages.roomId, p("roomId"))))
      .prepare(),
  );

  message(roomId: string, id: string): MessageRow | undefined {
    return this.messageById().all({ roomId, id })[0];
  }

  private readonly lastCreatedAt = prepared(() =>
    this.db
      .select({ createdAt: chatMessages.createdAt })
      .from(chatMessages)
      .where(eq(chatMessages.roomId, p("roomId")))
      .orderBy(desc(chatMessages.createdAt))
      .limit(1)
      .prepare(),
  );

  /** The newest `created_at` of each room used so far; inserts keep it current. */
  private readonly latest = new Map<string, number>();

  /** Drops what is remembered: another node wrote (PostgreSQL mode), and it is read again when next needed. */
  forgetRemembered(): void {
    this.latest.clear();
    this.knownRooms.clear();
  }

  /** The newest `created_at` of the room, so the next message can be stamped strictly after it. */
  latestCreatedAt(roomId: string): number | undefined {
    const known = this.latest.get(roomId);
    if (known !== undefined) return known;
    const stored = this.lastCreatedAt().all({ roomId })[0]?.createdAt;
    if (stored !== undefined) remember(this.latest, roomId, stored);
    return stored;
  }

  // The room (and a thread's root) was read in the same transaction, and the ids are new.
  private readonly insertMessageRow = prepared(() => insertRow(this.db, chatMessages, { unanswered: true }));
  private readonly insertAttachmentRow = prepared(() => insertRow(this.db, chatAttachments, { unanswered: true }));
  private readonly saveMessageRow = changedColumnsUpdater<MessageRow>(() => this.db, chatMessages, chatMessages.id);

  insertMessage(row: MessageRow, attachments: readonly AttachmentRow[]): void {
    this.insertMessageRow().run(row);
    // Should the transaction roll back, the next stamp is only a millisecond later than it needed to be.
    remember(this.latest, row.roomId, row.createdAt);
    for (const attachment of attachments) this.insertAttachmentRow().run(attachment);
  }

  /** Writes the fields of `after` that differ from `before`. */
  saveMessage(before: MessageRow, after: MessageRow): void {
    this.saveMessageRow(before, after);
  }

  private readonly dropReactions = prepared(() =>
    this.db
      .delete(chatReactions)
      .where(eq(chatReactions.messageId, p("id")))
      .prepare(),
  );
  private readonly dropAttachments = prepared(() =>
    this.db
      .delete(chatAttachments)
      .where(eq(chatAttachments.messageId, p("id")))
      .prepare(),
  );

  /** Soft delete: the text is erased for good (secure_delete zeroes it), reactions and attachments go. */
  softDeleteMessage(row: MessageRow, now: number): void {
    this.saveMessage(row, { ...row, content: "", deletedAt: now, updatedAt: now });
    this.dropReactions().run({ id: row.id });
    this.dropAttachments().run({ id: row.id });
  }

  // Reactions and attachments of a page: a page is one span of the room's timeline (times are unique per room),
  // or of a thread's.

  /** The reactions to the messages `where` selects (its placeholders given by name). */
  private reactionsWhere(where: SQL): (params: Record<string, string | number>) => ReactionRow[] {
    const query = prepared(() =>
      this.db
        .select({ reaction: chatReactions })
        .from(chatReactions)
        .innerJoin(chatMessages, eq(chatMessages.id, chatReactions.messageId))
        .where(where)
        .orderBy(asc(chatReactions.createdAt), asc(chatReactions.messageId), asc(chatReactions.userId))
        .prepare(),
    );
    return (params) =>
      query()
        .all(params)
        .map((r) => r.reaction);
  }

  /** The attachments of the messages `where` selects. */
  private attachmentsWhere(where: SQL): (params: Record<string, string | number>) => AttachmentRow[] {
    const query = prepared(() =>
      this.db
        .select({ attachment: chatAttachments })
        .from(chatAttachments)
        .innerJoin(chatMessages, eq(chatMessages.id, chatAttachments.messageId))
        .where(where)
        .orderBy(asc(chatAttachments.createdAt), asc(chatAttachments.id))
        .prepare(),
    );
    return (params) =>
      query()
        .all(params)
        .map((r) => r.attachment);
  }

  private readonly reactionsInRoom = this.reactionsWhere(roomSpan);
  private readonly attachmentsInRoom = this.attachmentsWhere(roomSpan);
  private readonly reactionsInThread = this.reactionsWhere(threadSpan);
  private readonly attachmentsInThread = this.attachmentsWhere(threadSpan);
  private readonly reactionsOfOne = this.reactionsWhere(oneMessage);
  private readonly attachmentsOfOne = this.attachmentsWhere(oneMessage);

  /** Reactions to the messages of the room's own list created in [from, before). */
  reactionsBetween(roomId: string, from: number, before: number): ReactionRow[] {
    return this.reactionsInRoom({ roomId, from, before });
  }

  /** Attachments of the messages of the room's own list created in [from, before). */
  attachmentsBetween(roomId: string, from: number, before: number): AttachmentRow[] {
    return this.attachmentsInRoom({ roomId, from, before });
  }

  /** Reactions to the replies of a thread created in [from, before). */
  threadReactionsBetween(rootId: string, from: number, before: number): ReactionRow[] {
    return this.reactionsInThread({ rootId, from, before });
  }

  /** Attachments of the replies of a thread created in [from, before). */
  threadAttachmentsBetween(rootId: string, from: number, before: number): AttachmentRow[] {
    return this.attachmentsInThread({ rootId, from, before });
  }

  /** The reactions to one message. */
  reactionsOf(messageId: string): ReactionRow[] {
    return this.reactionsOfOne({ messageId });
  }

  /** The attachments of one message. */
  attachmentsOf(messageId: string): AttachmentRow[] {
    return this.attachmentsOfOne({ messageId });
  }

  private readonly reactionByKey = prepared(() =>
    this.db
      .select()
      .from(chatReactions)
      .where(
        and(
          eq(chatReactions.messageId, p("messageId")),
          eq(chatReactions.userId, p("userId")),
          eq(chatReactions.emoji, p("emoji")),
        ),
      )
      .prepare(),
  );

  /**
   * The user's reactions to live messages of live rooms, with each message's space (before the user is deleted, which takes
   * them along). A full scan of the reactions: it runs when a staff member is deleted, and the deletion's own
   * cascade scans them anyway.
   */
  reactionsBy(userId: string): { reaction: ReactionRow; spaceId: string }[] {
    return this.db
      .select({ reaction: chatReactions, spaceId: chatMessages.spaceId })
      .from(chatReactions)
      .innerJoin(chatMessages, eq(chatMessages.id, chatReactions.messageId))
      .innerJoin(chatRooms, eq(chatRooms.id, chatMessages.roomId))
      .where(and(eq(chatReactions.userId, userId), isNull(chatMessages.deletedAt), isNull(chatRooms.deletedAt)))
      .all();
  }

  reaction(messageId: string, userId: string, emoji: string): ReactionRow | undefined {
    return this.reactionByKey().all({ messageId, userId, emoji })[0];
  }

  private readonly insertReactionRow = prepared(() => insertRow(this.db, chatReactions));

  insertReaction(row: ReactionRow): void {
    this.insertReactionRow().run(row);
  }

  private readonly deleteReactionRow = prepared(() =>
    this.db
      .delete(chatReactions)
      .where(
        and(
          eq(chatReactions.messageId, p("messageId")),
          eq(chatReactions.userId, p("userId")),
          eq(chatReactions.emoji, p("emoji")),
        ),
      )
      .returning({ emoji: chatReactions.emoji })
      .prepare(),
  );

  deleteReaction(messageId: string, userId: string, emoji: string): boolean {
    return this.deleteReactionRow().all({ messageId, userId, emoji }).length > 0;
  }
}
