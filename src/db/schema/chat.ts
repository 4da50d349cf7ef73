/** Chat rooms, messages, reactions and attachments. */
import { isNotNull, isNull } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { automations } from "./automations";
import { users } from "./people";
import { spaces } from "./spaces";

export const chatRooms = sqliteTable(
  "chat_rooms",
  {
    id: text("id").primaryKey(),
    spaceId: text("space_id")
      .notNull()
      .references(() => spaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** `nameKey(name)`: room names are unique in a space, ignoring case. */
    nameKey: text("name_key").notNull().default(""),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: integer("created_at").notNull(),
    /**
     * Set when the room is deleted: from then on it is gone for every route, its name is free, and its messages
     * are removed in small batches beside the other work (`RoomPurge`), then the row itself.
     */
    deletedAt: integer("deleted_at"),
  },
  (t) => [
    index("chat_rooms_space_idx").on(t.spaceId, t.createdAt, t.id),
    index("chat_rooms_created_by_idx").on(t.createdBy),
    uniqueIndex("chat_rooms_key_uq").on(t.spaceId, t.nameKey).where(isNull(t.deletedAt)),
    index("chat_rooms_deleted_idx").on(t.deletedAt).where(isNotNull(t.deletedAt)),
  ],
);

export const chatMessages = sqliteTable(
  "chat_messages",
  {
    id: text("id").primaryKey(),
    roomId: text("room_id")
      .notNull()
      .references(() => chatRooms.id, { onDelete: "cascade" }),
    spaceId: text("space_id").notNull(),
    authorUserId: text("author_user_id").references(() => users.id, { onDelete: "set null" }),
    /** A message an automation posted (its author is null): which one. */
    automationId: text("automation_id").references(() => automations.id, { onDelete: "set null" }),
    content: text("content").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    editedAt: integer("edited_at"),
    deletedAt: integer("deleted_at"),
    /** A reply: the top-level message of the same room whose thread it is in (null: a top-level message). */
    threadRootId: text("thread_root_id"),
    /** A reply also shown in the room's own list. */
    alsoInRoom: integer("also_in_room", { mode: "boolean" }).notNull().default(false),
    /** A root's replies, counted as they are posted and deleted (a top-level post writes no other row). */
    replyCount: integer("reply_count").notNull().default(0),
    lastReplyAt: integer("last_reply_at"),
  },
  (t) => [
    index("chat_messages_room_idx").on(t.roomId, t.createdAt, t.id),
    index("chat_messages_thread_idx").on(t.threadRootId, t.createdAt, t.id).where(isNotNull(t.threadRootId)),
    index("chat_messages_author_idx").on(t.authorUserId),
    index("chat_messages_automation_idx").on(t.automationId).where(isNotNull(t.automationId)),
  ],
);

/**
 * Stored WITHOUT ROWID (migration 0005, by hand: drizzle cannot declare it), so a reaction is one B-tree insert
 * fewer; a drizzle-kit migration that recreates this table must add it again. No index beside the primary key:
 * every reaction, a staff member's 💭 in the transaction of the post that mentions it included, writes one
 * B-tree. The price is a scan of this table when a user row is deleted (removing a staff member's account).
 */
export const chatReactions = sqliteTable(
  "chat_reactions",
  {
    messageId: text("message_id")
      .notNull()
      .references(() => chatMessages.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    emoji: text("emoji").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.userId, t.emoji] })],
);

export const chatAttachments = sqliteTable(
  "chat_attachments",
  {
    id: text("id").primaryKey(),
    messageId: text("message_id")
      .notNull()
      .references(() => chatMessages.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    mime: text("mime").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
    url: text("url").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("chat_attachments_message_idx").on(t.messageId)],
);
