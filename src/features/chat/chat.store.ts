/** Chat rooms, messages, reactions and attachments. */
import { and, asc, desc, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import { type Db, prepared } from "../../db/client";
import { chatAttachments, chatMessages, chatReactions, chatRooms } from "../../db/schema";
import { nameKey } from "../../lib/text";

export type RoomRow = typeof chatRooms.$inferSelect;
export type MessageRow = typeof chatMessages.$inferSelect;
export type ReactionRow = typeof chatReactions.$inferSelect;
export type AttachmentRow = typeof chatAttachments.$inferSelect;

/** Data access for chat. */
export class ChatStore {
  constructor(private readonly db: Db) {}

  // Rooms

  rooms(spaceId: string): RoomRow[] {
    return this.db
      .select()
      .from(chatRooms)
      .where(eq(chatRooms.spaceId, spaceId))
      .orderBy(asc(chatRooms.createdAt), asc(chatRooms.id))
      .all();
  }

  private readonly roomById = prepared(() =>
    this.db
      .select()
      .from(chatRooms)
      .where(and(eq(chatRooms.id, sql.placeholder("roomId")), eq(chatRooms.spaceId, sql.placeholder("spaceId"))))
      .prepare(),
  );

  room(spaceId: string, roomId: string): RoomRow | undefined {
    return this.roomById().all({ spaceId, roomId })[0];
  }

  roomByName(spaceId: string, name: string): RoomRow | undefined {
    return this.db
      .select()
      .from(chatRooms)
      .where(and(eq(chatRooms.spaceId, spaceId), eq(chatRooms.nameKey, nameKey(name))))
      .all()[0];
  }

  insertRoom(row: RoomRow): void {
    this.db.insert(chatRooms).values(row).run();
  }

  /** Deleting a room cascades to its messages, and from them to reactions and attachments. */
  deleteRoom(roomId: string): void {
    this.db.delete(chatRooms).where(eq(chatRooms.id, roomId)).run();
  }

  // Messages

  private readonly pageQuery = prepared(() =>
    this.db
      .select()
      .from(chatMessages)
      .where(
        and(eq(chatMessages.roomId, sql.placeholder("roomId")), lt(chatMessages.createdAt, sql.placeholder("before"))),
      )
      .orderBy(desc(chatMessages.createdAt), desc(chatMessages.id))
      .limit(sql.placeholder("limit"))
      .prepare(),
  );

  /** The newest `limit` messages created before `before`, oldest first. */
  page(roomId: string, before: number, limit: number): MessageRow[] {
    return this.pageQuery().all({ roomId, before, limit }).reverse();
  }

  private readonly messageById = prepared(() =>
    this.db
      .select()
      .from(chatMessages)
      .where(and(eq(chatMessages.id, sql.placeholder("id")), eq(chatMessages.roomId, sql.placeholder("roomId"))))
      .prepare(),
  );

  message(roomId: string, id: string): MessageRow | undefined {
    return this.messageById().all({ roomId, id })[0];
  }

  private readonly lastCreatedAt = prepared(() =>
    this.db
      .select({ createdAt: chatMessages.createdAt })
      .from(chatMessages)
      .where(eq(chatMessages.roomId, sql.placeholder("roomId")))
      .orderBy(desc(chatMessages.createdAt))
      .limit(1)
      .prepare(),
  );

  /** The newest `created_at` of the room, so the next message can be stamped strictly after it. */
  latestCreatedAt(roomId: string): number | undefined {
    return this.lastCreatedAt().all({ roomId })[0]?.createdAt;
  }

  insertMessage(row: MessageRow, attachments: readonly AttachmentRow[]): void {
    this.db.insert(chatMessages).values(row).run();
    if (attachments.length > 0)
      this.db
        .insert(chatAttachments)
        .values([...attachments])
        .run();
  }

  editMessage(id: string, content: string, now: number): void {
    this.db.update(chatMessages).set({ content, editedAt: now, updatedAt: now }).where(eq(chatMessages.id, id)).run();
  }

  /** Soft delete: the text is erased for good (secure_delete zeroes it), reactions and attachments go. */
  softDeleteMessage(id: string, now: number): void {
    this.db
      .update(chatMessages)
      .set({ content: "", deletedAt: now, updatedAt: now })
      .where(and(eq(chatMessages.id, id), isNull(chatMessages.deletedAt)))
      .run();
    this.db.delete(chatReactions).where(eq(chatReactions.messageId, id)).run();
    this.db.delete(chatAttachments).where(eq(chatAttachments.messageId, id)).run();
  }

  // Reactions and attachments of a batch

  reactionsOf(messageIds: readonly string[]): ReactionRow[] {
    if (messageIds.length === 0) return [];
    return this.db
      .select()
      .from(chatReactions)
      .where(inArray(chatReactions.messageId, [...messageIds]))
      .orderBy(asc(chatReactions.createdAt), asc(chatReactions.messageId), asc(chatReactions.userId))
      .all();
  }

  attachmentsOf(messageIds: readonly string[]): AttachmentRow[] {
    if (messageIds.length === 0) return [];
    return this.db
      .select()
      .from(chatAttachments)
      .where(inArray(chatAttachments.messageId, [...messageIds]))
      .orderBy(asc(chatAttachments.createdAt), asc(chatAttachments.id))
      .all();
  }

  reaction(messageId: string, userId: string, emoji: string): ReactionRow | undefined {
    return this.db
      .select()
      .from(chatReactions)
      .where(
        and(eq(chatReactions.messageId, messageId), eq(chatReactions.userId, userId), eq(chatReactions.emoji, emoji)),
      )
      .all()[0];
  }

  insertReaction(row: ReactionRow): void {
    this.db.insert(chatReactions).values(row).onConflictDoNothing().run();
  }

  deleteReaction(messageId: string, userId: string, emoji: string): boolean {
    return (
      this.db
        .delete(chatReactions)
        .where(
          and(eq(chatReactions.messageId, messageId), eq(chatReactions.userId, userId), eq(chatReactions.emoji, emoji)),
        )
        .returning({ emoji: chatReactions.emoji })
        .all().length > 0
    );
  }
}
