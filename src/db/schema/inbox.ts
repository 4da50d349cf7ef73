/** What needs a person: their read state per chat room, their inbox items, their notification settings. */
import { isNotNull, isNull, sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { chatRooms } from "./chat";
import { organizations, users } from "./people";

/**
 * How far a person has read a room: the newest message they have seen, and its time. Unread counts are counted
 * from it at read time, so a post writes nothing per member of its room.
 */
export const chatReadStates = sqliteTable(
  "chat_read_states",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    roomId: text("room_id")
      .notNull()
      .references(() => chatRooms.id, { onDelete: "cascade" }),
    /** No foreign key: a deleted message keeps its place in the timeline. */
    messageId: text("message_id").notNull(),
    /** The message's `created_at`: read state only moves forward along it (times are unique in a room). */
    messageCreatedAt: integer("message_created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.roomId] }), index("chat_read_states_room_idx").on(t.roomId)],
);

/**
 * One thing that needs a person (contract §10): a mention, an assignment, a reply in a thread, a staff answer,
 * an approval waiting. Written by handlers of the domain events, in the transaction of the write they follow.
 * The subject columns are plain ids (no foreign keys): the handlers of the subjects' deletions remove items.
 */
export const inboxItems = sqliteTable(
  "inbox_items",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** Whose inbox. */
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** `mention`, `assigned`, `thread_reply`, `staff_reply` or `approval`. */
    kind: text("kind").notNull(),
    spaceId: text("space_id").notNull(),
    /** Who did it; kept as an id when their account is deleted later. */
    actorUserId: text("actor_user_id"),
    chatRoomId: text("chat_room_id"),
    /** A chat message or a task message. */
    messageId: text("message_id"),
    taskId: text("task_id"),
    automationId: text("automation_id"),
    proposalId: text("proposal_id"),
    summary: text("summary").notNull(),
    readAt: integer("read_at"),
    createdAt: integer("created_at").notNull(),
    /** When email dealt with it: sent (alone or in a digest), or passed over by the person's settings. */
    emailedAt: integer("emailed_at"),
  },
  (t) => [
    index("inbox_items_user_idx").on(t.userId, t.createdAt, t.id),
    index("inbox_items_unread_idx").on(t.userId, t.chatRoomId).where(isNull(t.readAt)),
    index("inbox_items_message_idx").on(t.messageId).where(isNotNull(t.messageId)),
    // What email has still to look at: an item leaves it once read or emailed.
    index("inbox_items_email_idx").on(t.createdAt).where(sql`${t.readAt} IS NULL AND ${t.emailedAt} IS NULL`),
    index("inbox_items_task_idx").on(t.taskId).where(isNotNull(t.taskId)),
    index("inbox_items_room_idx").on(t.chatRoomId).where(isNotNull(t.chatRoomId)),
    // One approval item per person and subject: a proposal waits once, however often it is edited meanwhile.
    uniqueIndex("inbox_items_automation_uq")
      .on(t.automationId, t.userId)
      .where(sql`${t.automationId} IS NOT NULL AND ${t.kind} = 'approval'`),
    uniqueIndex("inbox_items_proposal_uq")
      .on(t.proposalId, t.userId)
      .where(sql`${t.proposalId} IS NOT NULL AND ${t.kind} = 'approval'`),
  ],
);

/** A person's notification settings in an organization; no row means the defaults. */
export const notificationSettings = sqliteTable(
  "notification_settings",
  {
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** `off`, `digest` or `all`. */
    email: text("email").notNull(),
    /** `all`, `mentions` or `none`. */
    desktop: text("desktop").notNull(),
    /** JSON arrays of ids. */
    mutedSpaceIds: text("muted_space_ids").notNull(),
    mutedRoomIds: text("muted_room_ids").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.userId] }), index("notification_settings_user_idx").on(t.userId)],
);
