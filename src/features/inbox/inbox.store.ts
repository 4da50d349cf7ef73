/**
 * Read state, inbox items and notification settings. Reads join chat's rooms and messages (unread counts are
 * counted from the messages themselves) and the memberships (when a person joined); writes touch only the
 * tables of this feature. Every statement on a request path is prepared once.
 */
import { type Db, isPostgres, prepared } from "../../db/client";
import { insertRow } from "../../db/prepared";
import { type chatReadStates, inboxItems, type notificationSettings } from "../../db/schema";

export type ReadStateRow = typeof chatReadStates.$inferSelect;
export type ItemRow = typeof inboxItems.$inferSelect;
export type SettingsRow = typeof notificationSettings.$inferSelect;

/** A message as reading places it: its time, and whether it is a reply that stays in its thread. */
export interface MessagePlace {
  id: string;
  createdAt: number;
  threadRootId: string | null;
  alsoInRoom: boolean;
}

/** A room the person can see with its unread count, as counted. */
export interface RoomUnreadRow {
  roomId: string;
  spaceId: string;
  unread: number;
  mentions: number;
  lastReadMessageId: string | null;
}

/**
 * Each room of the given spaces with what is unread in it for the user: the messages of the room's own list (a
 * reply that stays in its thread is not) after the one they read last (and not before they joined), neither
 * theirs nor deleted; and their unread mentions there. Counted in
 * the room's index range from the read position, so a post writes nothing per member.
 */
export const UNREAD_ROOMS_SQL = `SELECT r.id AS roomId, r.space_id AS spaceId, rs.message_id AS lastReadMessageId,
  (SELECT count(*) FROM chat_messages m
    WHERE m.room_id = r.id AND m.created_at > max(coalesce(rs.message_created_at, 0), $joinedAt - 1)
      AND m.deleted_at IS NULL AND (m.author_user_id IS NULL OR m.author_user_id <> $userId)
      AND (m.thread_root_id IS NULL OR m.also_in_room = 1)) AS unread,
  (SELECT count(*) FROM inbox_items i
    WHERE i.user_id = $userId AND i.chat_room_id = r.id AND i.read_at IS NULL AND i.kind = 'mention') AS mentions
FROM chat_rooms r
LEFT JOIN chat_read_states rs ON rs.user_id = $userId AND rs.room_id = r.id
WHERE r.space_id IN (SELECT value FROM json_each($spaceIds)) AND r.deleted_at IS NULL
ORDER BY r.space_id, r.created_at, r.id`;

/** A page of the user's items in the given spaces, newest first. */
export const ITEMS_SQL = `SELECT * FROM inbox_items
WHERE user_id = $userId AND created_at < $before AND org_id = $orgId
  AND ($unreadOnly = 0 OR read_at IS NULL)
  AND space_id IN (SELECT value FROM json_each($spaceIds))
ORDER BY created_at DESC, id DESC LIMIT $limit`;

/** How many of the user's items in the given spaces are unread. */
export const UNREAD_ITEMS_SQL = `SELECT count(*) AS n FROM inbox_items
WHERE user_id = $userId AND read_at IS NULL AND org_id = $orgId
  AND space_id IN (SELECT value FROM json_each($spaceIds))`;

/**
 * The oldest items that email has still to look at (neither read nor emailed) made at or before `$before`
 * (`inbox_items_email_idx`).
 */
export const AWAITING_EMAIL_SQL = `SELECT * FROM inbox_items
WHERE read_at IS NULL AND emailed_at IS NULL AND created_at <= $before
ORDER BY created_at LIMIT $limit`;

/** Marks items emailed, unless read meanwhile. */
export const MARK_EMAILED_SQL = `UPDATE inbox_items SET emailed_at = $now
WHERE id IN (SELECT value FROM json_each($ids)) AND emailed_at IS NULL`;

/**
 * Marks read the user's unread items of a room about messages of its own list up to a time (reading the room
 * reads them; items about replies that stay in their thread are read in the thread).
 */
export const READ_ROOM_ITEMS_SQL = `UPDATE inbox_items SET read_at = $now
WHERE user_id = $userId AND chat_room_id = $roomId AND read_at IS NULL
  AND (SELECT m.created_at FROM chat_messages m WHERE m.id = inbox_items.message_id
    AND (m.thread_root_id IS NULL OR m.also_in_room = 1)) <= $upTo
RETURNING id`;

/** Marks read the user's unread items of a room about the replies of one thread up to a time (reading it). */
export const READ_THREAD_ITEMS_SQL = `UPDATE inbox_items SET read_at = $now
WHERE user_id = $userId AND chat_room_id = $roomId AND read_at IS NULL
  AND (SELECT m.created_at FROM chat_messages m WHERE m.id = inbox_items.message_id
    AND m.thread_root_id = $rootId) <= $upTo
RETURNING id`;

/**
 * Who wrote in a thread before a reply: the root's author and the authors of the replies posted before it (deleted
 * ones too: they took part), once each. Before it by time (replies of a room never share one): a reply's items are
 * written after its post, when later replies may be there already.
 */
export const THREAD_AUTHORS_SQL = `SELECT author_user_id AS userId FROM chat_messages
  WHERE id = $rootId AND author_user_id IS NOT NULL
UNION
SELECT author_user_id FROM chat_messages
  WHERE thread_root_id = $rootId AND created_at < $before AND author_user_id IS NOT NULL`;

/**
 * The chat posts of the given ids, as they are now, for a catch-up after a crash: the live ones, with their
 * organization and their attachments' names (a reply of files alone is said by them).
 */
export const POSTS_SQL = `SELECT m.id, s.org_id AS orgId, m.space_id AS spaceId, m.room_id AS roomId,
  m.author_user_id AS authorUserId, m.content, m.thread_root_id AS threadRootId, m.created_at AS createdAt,
  (SELECT json_group_array(a.name) FROM chat_attachments a WHERE a.message_id = m.id) AS attachmentNames
FROM chat_messages m
JOIN chat_rooms r ON r.id = m.room_id AND r.deleted_at IS NULL
JOIN spaces s ON s.id = m.space_id
WHERE m.id IN (SELECT value FROM json_each($ids)) AND m.deleted_at IS NULL`;

/**
 * A page of chat messages, the last stored first (by rowid, which only grows: a row stored after another has a
 * higher one, even where the newest rows were deleted), and whether each may make items (it names someone or
 * answers in a thread).
 */
export const STORED_POSTS_SQL = `SELECT rowid AS at, id, created_at AS createdAt,
  (thread_root_id IS NOT NULL OR instr(content, '@') > 0) AS mayMakeItems
FROM chat_messages WHERE rowid < $below ORDER BY rowid DESC LIMIT $limit`;

/**
 * On PostgreSQL, which has no rowid: the chat messages created at or after `$since` that may make items, oldest
 * first, read room by room from the index by room and time (as search's catch-up reads them there).
 */
export const PG_POSTS_SINCE_SQL = `SELECT m.id, (m.thread_root_id IS NOT NULL OR instr(m.content, '@') > 0) AS mayMakeItems
FROM chat_rooms r CROSS JOIN LATERAL (
  SELECT id, created_at, thread_root_id, content FROM chat_messages WHERE room_id = r.id AND created_at >= $since
) AS m
ORDER BY m.created_at, m.id`;

/** The read state rows of a member's rooms in an organization (they left it). */
export const FORGET_READ_STATES_SQL = `DELETE FROM chat_read_states WHERE user_id = $userId
  AND room_id IN (SELECT r.id FROM chat_rooms r JOIN spaces s ON s.id = r.space_id WHERE s.org_id = $orgId)`;

// The point statements: each reads or writes a few rows through a primary key or an index.
const SQL_ROOM_ROW =
  "SELECT id, space_id AS spaceId FROM chat_rooms WHERE id = $roomId AND space_id = $spaceId AND deleted_at IS NULL";
const SQL_MESSAGE_ROW = `SELECT id, created_at AS createdAt, thread_root_id AS threadRootId, also_in_room AS alsoInRoom
  FROM chat_messages WHERE id = $messageId AND room_id = $roomId`;
const SQL_LIVE_ROOMS_ROW =
  "SELECT id, space_id AS spaceId FROM chat_rooms WHERE id IN (SELECT value FROM json_each($ids)) AND deleted_at IS NULL";
const SQL_CHAT_TEXT_ROW = "SELECT content FROM chat_messages WHERE id = $id AND deleted_at IS NULL";
const SQL_TASK_TEXT_ROW = "SELECT content FROM task_messages WHERE id = $id";
const SQL_JOINED_ROW = "SELECT joined_at AS joinedAt FROM org_members WHERE org_id = $orgId AND user_id = $userId";
const SQL_READ_STATE_ROW = `SELECT user_id AS userId, room_id AS roomId, message_id AS messageId, message_created_at AS messageCreatedAt,
      updated_at AS updatedAt FROM chat_read_states WHERE user_id = $userId AND room_id = $roomId`;
const SQL_UPSERT_READ_STATE = `INSERT INTO chat_read_states (user_id, room_id, message_id, message_created_at, updated_at)
     VALUES ($userId, $roomId, $messageId, $messageCreatedAt, $updatedAt)
     ON CONFLICT (user_id, room_id) DO UPDATE SET message_id = excluded.message_id,
       message_created_at = excluded.message_created_at, updated_at = excluded.updated_at`;
const SQL_LATEST_ROW =
  "SELECT created_at AS createdAt FROM inbox_items WHERE user_id = $userId ORDER BY created_at DESC LIMIT 1";
const SQL_ITEM_AT_ROW = "SELECT 1 FROM inbox_items WHERE user_id = $userId AND created_at = $at LIMIT 1";
const SQL_ITEM_ABOUT_ROW = "SELECT 1 FROM inbox_items WHERE message_id = $messageId AND user_id = $userId LIMIT 1";
const SQL_MARK_IDS_READ = `UPDATE inbox_items SET read_at = $now WHERE id IN (SELECT value FROM json_each($ids))
       AND user_id = $userId AND org_id = $orgId AND read_at IS NULL RETURNING id`;
const SQL_MARK_ALL_READ =
  "UPDATE inbox_items SET read_at = $now WHERE user_id = $userId AND org_id = $orgId AND read_at IS NULL";
const SQL_DROP_BY_MESSAGE = "DELETE FROM inbox_items WHERE message_id = $id";
const SQL_DROP_BY_TASK = "DELETE FROM inbox_items WHERE task_id = $id";
const SQL_DROP_BY_ROOM = "DELETE FROM inbox_items WHERE chat_room_id = $id";
const SQL_DROP_READ_STATES_OF_ROOM = "DELETE FROM chat_read_states WHERE room_id = $id";
const SQL_DROP_APPROVALS_OF_AUTOMATION = "DELETE FROM inbox_items WHERE automation_id = $id AND kind = 'approval'";
const SQL_DROP_APPROVALS_OF_PROPOSAL = "DELETE FROM inbox_items WHERE proposal_id = $id AND kind = 'approval'";
const SQL_SETTINGS_ROW = `SELECT org_id AS orgId, user_id AS userId, email, desktop, muted_space_ids AS mutedSpaceIds,
      muted_room_ids AS mutedRoomIds, updated_at AS updatedAt
     FROM notification_settings WHERE org_id = $orgId AND user_id = $userId`;
const SQL_UPSERT_SETTINGS = `INSERT INTO notification_settings (org_id, user_id, email, desktop, muted_space_ids, muted_room_ids, updated_at)
     VALUES ($orgId, $userId, $email, $desktop, $mutedSpaceIds, $mutedRoomIds, $updatedAt)
     ON CONFLICT (org_id, user_id) DO UPDATE SET email = excluded.email, desktop = excluded.desktop,
       muted_space_ids = excluded.muted_space_ids, muted_room_ids = excluded.muted_room_ids,
       updated_at = excluded.updated_at`;
const SQL_FORGET_ITEMS = "DELETE FROM inbox_items WHERE user_id = $userId AND org_id = $orgId";
const SQL_FORGET_SETTINGS = "DELETE FROM notification_settings WHERE org_id = $orgId AND user_id = $userId";
const SQL_POSTS_WRITTEN_ROW = "SELECT value FROM inbox_state WHERE name = 'posts'";
const SQL_POSTS_WRITTEN = `INSERT INTO inbox_state (name, value) VALUES ('posts', $at)
  ON CONFLICT (name) DO UPDATE SET value = excluded.value`;
const SQL_INSERT_ITEM_ONCE = `INSERT INTO inbox_items (id, org_id, user_id, kind, space_id, actor_user_id, chat_room_id, message_id, task_id,
        automation_id, proposal_id, summary, read_at, created_at, emailed_at)
       VALUES ($id, $orgId, $userId, $kind, $spaceId, $actorUserId, $chatRoomId, $messageId, $taskId, $automationId,
        $proposalId, $summary, $readAt, $createdAt, $emailedAt) ON CONFLICT DO NOTHING`;

/** Every point statement, for the test of query plans. */
export const INBOX_POINT_SQL = [
  SQL_ROOM_ROW,
  SQL_MESSAGE_ROW,
  SQL_LIVE_ROOMS_ROW,
  SQL_CHAT_TEXT_ROW,
  SQL_TASK_TEXT_ROW,
  SQL_JOINED_ROW,
  SQL_READ_STATE_ROW,
  SQL_UPSERT_READ_STATE,
  SQL_LATEST_ROW,
  SQL_ITEM_ABOUT_ROW,
  SQL_MARK_IDS_READ,
  SQL_MARK_ALL_READ,
  SQL_DROP_BY_MESSAGE,
  SQL_DROP_BY_TASK,
  SQL_DROP_BY_ROOM,
  SQL_DROP_READ_STATES_OF_ROOM,
  SQL_DROP_APPROVALS_OF_AUTOMATION,
  SQL_DROP_APPROVALS_OF_PROPOSAL,
  SQL_SETTINGS_ROW,
  SQL_UPSERT_SETTINGS,
  SQL_FORGET_ITEMS,
  SQL_FORGET_SETTINGS,
  SQL_INSERT_ITEM_ONCE,
  SQL_POSTS_WRITTEN_ROW,
  SQL_POSTS_WRITTEN,
];

/** A chat post as its items are made from it. */
export interface PostRow {
  id: string;
  orgId: string;
  spaceId: string;
  roomId: string;
  authorUserId: string | null;
  content: string;
  threadRootId: string | null;
  createdAt: number;
  attachmentNames: string[];
}

/** How many people's newest item times are remembered (the oldest go first). */
const REMEMBERED_PEOPLE = 10_000;

/** Parameters by name (the connection binds `$name` from `name`). */
type Params = Record<string, string | number | null>;
const named = (params: Params) => params;

/** Data access for the inbox feature. */
export class InboxStore {
  constructor(private readonly db: Db) {}

  private raw(sql: string) {
    return prepared(() => this.db.$client.prepare(sql));
  }

  // Rooms and messages (read from chat's tables)

  private readonly roomRow = this.raw(SQL_ROOM_ROW);

  /** A live room of the space. */
  room(spaceId: string, roomId: string): { id: string; spaceId: string } | undefined {
    return this.roomRow().all(named({ spaceId, roomId }))[0] as { id: string; spaceId: string } | undefined;
  }

  private readonly messageRow = this.raw(SQL_MESSAGE_ROW);

  /** A message of the room (deleted or not: it keeps its place in the timeline), and where it is shown. */
  message(roomId: string, messageId: string): MessagePlace | undefined {
    const row = this.messageRow().all(named({ roomId, messageId }))[0] as
      | (Omit<MessagePlace, "alsoInRoom"> & { alsoInRoom: number })
      | undefined;
    return row && { ...row, alsoInRoom: row.alsoInRoom === 1 };
  }

  private readonly threadAuthorsRow = this.raw(THREAD_AUTHORS_SQL);

  /** Who wrote in the thread of `rootId` before `before` (a reply's time). */
  threadAuthors(rootId: string, before: number): string[] {
    return (this.threadAuthorsRow().all(named({ rootId, before })) as { userId: string }[]).map((r) => r.userId);
  }

  // Chat posts whose items are written after them (inbox.batch.ts)

  private readonly postsRow = this.raw(POSTS_SQL);

  /** The live posts of `ids`, in the order given. */
  posts(ids: readonly string[]): PostRow[] {
    const rows = this.postsRow().all(named({ ids: JSON.stringify(ids) })) as (Omit<PostRow, "attachmentNames"> & {
      attachmentNames: string;
    })[];
    const byId = new Map(rows.map((row) => [row.id, row]));
    const posts: PostRow[] = [];
    for (const id of ids) {
      const row = byId.get(id);
      if (row) posts.push({ ...row, attachmentNames: JSON.parse(row.attachmentNames) as string[] });
    }
    return posts;
  }

  private readonly storedPostsRow = this.raw(STORED_POSTS_SQL);
  private readonly pgPostsSince = this.raw(PG_POSTS_SINCE_SQL);

  /**
   * The ids of the chat messages stored since `since` that may make items, oldest first: walked back from the
   * last one stored to the first created before `since` (a post is stamped with the clock or later).
   */
  postsSince(since: number): string[] {
    if (isPostgres(this.db)) {
      const rows = this.pgPostsSince().all(named({ since })) as { id: string; mayMakeItems: number }[];
      return rows.filter((row) => row.mayMakeItems === 1).map((row) => row.id);
    }
    const ids: string[] = [];
    for (let below = Number.MAX_SAFE_INTEGER; ; ) {
      const page = this.storedPostsRow().all(named({ below, limit: 1000 })) as {
        at: number;
        id: string;
        createdAt: number;
        mayMakeItems: number;
      }[];
      for (const row of page) {
        if (row.createdAt < since) return ids.reverse();
        if (row.mayMakeItems === 1) ids.push(row.id);
      }
      const last = page.at(-1);
      if (!last) return ids.reverse();
      below = last.at;
    }
  }

  private readonly postsWrittenRow = this.raw(SQL_POSTS_WRITTEN_ROW);
  private readonly postsWrittenUpdate = this.raw(SQL_POSTS_WRITTEN);

  /** The time of the last batch of posts' items that committed: every post stored before it has its items. */
  postsWrittenUntil(): number {
    return (this.postsWrittenRow().all({})[0] as { value: number } | undefined)?.value ?? 0;
  }

  /** Records, in the transaction of a batch, that every post stored before `at` has its items. */
  postsWritten(at: number): void {
    this.postsWrittenUpdate().run(named({ at }));
  }

  private readonly liveRoomsRow = this.raw(SQL_LIVE_ROOMS_ROW);

  /** Of the given ids, the live rooms, with their spaces. */
  liveRooms(ids: readonly string[]): { id: string; spaceId: string }[] {
    return this.liveRoomsRow().all(named({ ids: JSON.stringify(ids) })) as { id: string; spaceId: string }[];
  }

  private readonly chatTextRow = this.raw(SQL_CHAT_TEXT_ROW);
  private readonly taskTextRow = this.raw(SQL_TASK_TEXT_ROW);

  /** The text of a chat message or a task message (a staff answer), for an item's summary. */
  messageText(id: string): string {
    const chat = this.chatTextRow().all(named({ id }))[0] as { content: string } | undefined;
    const task = chat ?? (this.taskTextRow().all(named({ id }))[0] as { content: string } | undefined);
    return task?.content ?? "";
  }

  private readonly joinedRow = this.raw(SQL_JOINED_ROW);

  /** When the user joined the organization (messages before it are not theirs to read). */
  joinedAt(orgId: string, userId: string): number | undefined {
    return (this.joinedRow().all(named({ orgId, userId }))[0] as { joinedAt: number } | undefined)?.joinedAt;
  }

  // Read state

  private readonly readStateRow = this.raw(SQL_READ_STATE_ROW);

  readState(userId: string, roomId: string): ReadStateRow | undefined {
    return this.readStateRow().all(named({ userId, roomId }))[0] as ReadStateRow | undefined;
  }

  private readonly upsertReadState = this.raw(SQL_UPSERT_READ_STATE);

  putReadState(row: ReadStateRow): void {
    this.upsertReadState().run(named({ ...row }));
  }

  private readonly readRoomItemsRow = this.raw(READ_ROOM_ITEMS_SQL);

  /** Marks read the user's unread items about the room's messages up to `upTo`; the ids of those it read. */
  readRoomItems(userId: string, roomId: string, upTo: number, now: number): string[] {
    return (this.readRoomItemsRow().all(named({ userId, roomId, upTo, now })) as { id: string }[]).map((r) => r.id);
  }

  private readonly readThreadItemsRow = this.raw(READ_THREAD_ITEMS_SQL);

  /** Marks read the user's unread items about the thread's replies up to `upTo`; the ids of those it read. */
  readThreadItems(userId: string, roomId: string, rootId: string, upTo: number, now: number): string[] {
    const rows = this.readThreadItemsRow().all(named({ userId, roomId, rootId, upTo, now })) as { id: string }[];
    return rows.map((r) => r.id);
  }

  private readonly unreadRoomsQuery = this.raw(UNREAD_ROOMS_SQL);

  /** Every live room of the given spaces with its unread counts for the user (zero included). */
  unreadRooms(userId: string, joinedAt: number, spaceIds: readonly string[]): RoomUnreadRow[] {
    return this.unreadRoomsQuery().all(
      named({ userId, joinedAt, spaceIds: JSON.stringify(spaceIds) }),
    ) as RoomUnreadRow[];
  }

  // Items

  private readonly insertItemRow = prepared(() => insertRow(this.db, inboxItems));

  insertItem(row: ItemRow): void {
    this.insertItemRow().run(row);
    this.remember(row);
  }

  private readonly insertOnceRow = prepared(() => {
    const statement = this.db.$client.prepare(SQL_INSERT_ITEM_ONCE);
    return (row: ItemRow) => statement.run(named({ ...row })).changes > 0;
  });

  /** Inserts the item unless the person already has one of its kind about its subject; whether it did. */
  insertItemOnce(row: ItemRow): boolean {
    const inserted = this.insertOnceRow()(row);
    if (inserted) this.remember(row);
    return inserted;
  }

  private readonly latestRow = this.raw(SQL_LATEST_ROW);

  /** The newest item time of each person given an item lately; inserts keep it current. */
  private readonly latest = new Map<string, number>();

  /** Drops what is remembered: another node wrote (PostgreSQL mode), and it is read again when next needed. */
  forgetRemembered(): void {
    this.latest.clear();
  }

  /** The newest item time of the user: items of one person never share a time, so paging by it is exact. */
  latestItemAt(userId: string): number | undefined {
    const known = this.latest.get(userId);
    if (known !== undefined) return known;
    const stored = (this.latestRow().all(named({ userId }))[0] as { createdAt: number } | undefined)?.createdAt;
    if (stored !== undefined) {
      if (this.latest.size >= REMEMBERED_PEOPLE) this.latest.delete(this.latest.keys().next().value as string);
      this.latest.set(userId, stored);
    }
    return stored;
  }

  /** Remembers the user's newest item time (should its transaction roll back, the next is a millisecond later). */
  private remember(row: ItemRow): void {
    const known = this.latest.get(row.userId);
    if (known === undefined && this.latest.size >= REMEMBERED_PEOPLE)
      this.latest.delete(this.latest.keys().next().value as string);
    // An item dated back (`freeItemTime`) leaves the newest where it was.
    this.latest.set(row.userId, known === undefined ? row.createdAt : Math.max(known, row.createdAt));
  }

  private readonly itemAtRow = this.raw(SQL_ITEM_AT_ROW);

  /**
   * The first millisecond from `at` at which the user has no item: items of one person never share a time, and
   * one dated back keeps its place among those written before it.
   */
  freeItemTime(userId: string, at: number): number {
    const latest = this.latestItemAt(userId);
    if (latest === undefined || latest < at) return at;
    let time = at;
    while (this.itemAtRow().get(named({ userId, at: time }))) time++;
    return time;
  }

  private readonly itemAboutRow = this.raw(SQL_ITEM_ABOUT_ROW);

  /** Whether the user has an item about the message already. */
  hasItemAbout(userId: string, messageId: string): boolean {
    return this.itemAboutRow().all(named({ userId, messageId })).length > 0;
  }

  private readonly itemsQuery = this.raw(ITEMS_SQL);

  /** The user's newest `limit` items before `before` in the given spaces, newest first. */
  items(
    userId: string,
    orgId: string,
    spaceIds: readonly string[],
    page: { unreadOnly: boolean; before: number; limit: number },
  ): ItemRow[] {
    const rows = this.itemsQuery().all(
      named({
        userId,
        orgId,
        spaceIds: JSON.stringify(spaceIds),
        unreadOnly: page.unreadOnly ? 1 : 0,
        before: page.before,
        limit: page.limit,
      }),
    ) as Record<string, unknown>[];
    return rows.map(itemFromSql);
  }

  private readonly unreadItemsQuery = this.raw(UNREAD_ITEMS_SQL);

  unreadItems(userId: string, orgId: string, spaceIds: readonly string[]): number {
    const row = this.unreadItemsQuery().all(named({ userId, orgId, spaceIds: JSON.stringify(spaceIds) }))[0];
    return (row as { n: number } | undefined)?.n ?? 0;
  }

  private readonly markIdsRead = this.raw(SQL_MARK_IDS_READ);
  private readonly markAllRead = this.raw(SQL_MARK_ALL_READ);

  /**
   * Marks read the given items of the user (`ids` null: all of them in the organization); the ids of those that
   * were unread (given ids), or how many were (all).
   */
  markRead(userId: string, orgId: string, ids: readonly string[] | null, now: number): string[] | number {
    if (ids === null) return this.markAllRead().run(named({ userId, orgId, now })).changes;
    const rows = this.markIdsRead().all(named({ userId, orgId, now, ids: JSON.stringify(ids) })) as { id: string }[];
    return rows.map((r) => r.id);
  }

  // Email

  private readonly awaitingEmailQuery = this.raw(AWAITING_EMAIL_SQL);

  /** The oldest `limit` items neither read nor emailed, made at or before `before`. */
  awaitingEmail(before: number, limit: number): ItemRow[] {
    return (this.awaitingEmailQuery().all(named({ before, limit })) as Record<string, unknown>[]).map(itemFromSql);
  }

  private readonly markEmailedRow = this.raw(MARK_EMAILED_SQL);

  markEmailed(ids: readonly string[], now: number): void {
    this.markEmailedRow().run(named({ ids: JSON.stringify(ids), now }));
  }

  // What goes when a subject goes

  private readonly dropByMessage = this.raw(SQL_DROP_BY_MESSAGE);
  private readonly dropByTask = this.raw(SQL_DROP_BY_TASK);
  private readonly dropByRoom = this.raw(SQL_DROP_BY_ROOM);
  private readonly dropReadStatesOfRoom = this.raw(SQL_DROP_READ_STATES_OF_ROOM);
  private readonly dropApprovalsOfAutomation = this.raw(SQL_DROP_APPROVALS_OF_AUTOMATION);
  private readonly dropApprovalsOfProposal = this.raw(SQL_DROP_APPROVALS_OF_PROPOSAL);

  /** The items about a message (deleted). */
  dropMessage(id: string): void {
    this.dropByMessage().run(named({ id }));
  }

  /** The items about a task or its messages (the task was deleted). */
  dropTask(id: string): void {
    this.dropByTask().run(named({ id }));
  }

  /** The items about a room and its messages, and everyone's read state of it (the room was deleted). */
  dropRoom(id: string): void {
    this.dropByRoom().run(named({ id }));
    this.dropReadStatesOfRoom().run(named({ id }));
  }

  /** The approval items of an automation (it no longer waits). */
  dropAutomationApprovals(id: string): void {
    this.dropApprovalsOfAutomation().run(named({ id }));
  }

  /** The approval items of a file proposal (it no longer waits). */
  dropProposalApprovals(id: string): void {
    this.dropApprovalsOfProposal().run(named({ id }));
  }

  private readonly forgetItemsRow = this.raw(SQL_FORGET_ITEMS);
  private readonly forgetReadStatesRow = this.raw(FORGET_READ_STATES_SQL);
  private readonly forgetSettingsRow = this.raw(SQL_FORGET_SETTINGS);

  /** Everything of a person in an organization they left: items, read state, settings. */
  forgetMember(orgId: string, userId: string): void {
    this.forgetItemsRow().run(named({ userId, orgId }));
    this.forgetReadStatesRow().run(named({ userId, orgId }));
    this.forgetSettingsRow().run(named({ userId, orgId }));
  }

  // Settings

  private readonly settingsRow = this.raw(SQL_SETTINGS_ROW);

  settings(orgId: string, userId: string): SettingsRow | undefined {
    return this.settingsRow().all(named({ orgId, userId }))[0] as SettingsRow | undefined;
  }

  private readonly upsertSettings = this.raw(SQL_UPSERT_SETTINGS);

  putSettings(row: SettingsRow): void {
    this.upsertSettings().run(named({ ...row }));
  }
}

/** An item row as SQLite answers `SELECT *` (snake_case columns) to the row type. */
function itemFromSql(r: Record<string, unknown>): ItemRow {
  return {
    id: r.id as string,
    orgId: r.org_id as string,
    userId: r.user_id as string,
    kind: r.kind as string,
    spaceId: r.space_id as string,
    actorUserId: r.actor_user_id as string | null,
    chatRoomId: r.chat_room_id as string | null,
    messageId: r.message_id as string | null,
    taskId: r.task_id as string | null,
    automationId: r.automation_id as string | null,
    proposalId: r.proposal_id as string | null,
    summary: r.summary as string,
    readAt: r.read_at as number | null,
    createdAt: r.created_at as number,
    emailedAt: r.emailed_at as number | null,
  };
}
