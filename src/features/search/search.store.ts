/**
 * The search index: `search_docs` (one row per searchable item) and the two FTS5 indexes the triggers of
 * migration 0015 keep equal to it. drizzle cannot express FTS5, so every statement is SQL, prepared once;
 * the SQL of the reads is exported for the query-plan tests. On PostgreSQL, `PgSearchStore`
 * (search.store.pg.ts) answers the same with its own statements where SQLite's are FTS5's.
 */
import type { Db } from "../../db/client";
import { prepared, runUnanswered } from "../../db/client";
import { ftsString, indexable } from "./search.query";

/** What can be found. */
export const KINDS = ["message", "task", "task_message", "file"] as const;
export type Kind = (typeof KINDS)[number];

/** One searchable item as it is indexed. */
export interface DocIn {
  kind: Kind;
  itemId: string;
  spaceId: string;
  /** The room of a message, the task of a task message. */
  parentId: string | null;
  createdAt: number;
  title: string;
  body: string;
}

/** A match: an indexed item and how well it matches (lower is better; BM25 as FTS5 gives it is negative). */
export interface Hit {
  doc: number;
  kind: Kind;
  itemId: string;
  spaceId: string;
  parentId: string | null;
  createdAt: number;
  title: string;
  score: number;
  /** The excerpt with its matches marked, when the query that found it made one (a part of a file's name). */
  marked: string | null;
}

/**
 * How many items hold a search's words: every word few (`distinctive`: its matches are scored), every word many
 * (`common`: its newest matches are the best), or some of each (`mixed`). `SearchService` counts them.
 */
export type Rarity = "distinctive" | "mixed" | "common";

/** A body up to this many characters is excerpted by the service; a longer one (a file's text) by the store (`snippet`). */
export const SHORT_TEXT = 10_000;

/** Where a search looks: the spaces and kinds as JSON arrays (bound once, read by `json_each`), and a time. */
export interface Scope {
  spaces: string;
  kinds: string;
  /** Only items created before this (epoch ms, exclusive). */
  before: number;
  /** No match with a `doc` at or above this is looked at (`docBound`). */
  beforeDoc: number;
  window: number;
}

/** The filters every search applies to an indexed item `d`: visible space, kind asked for, time, live room. */
export const SCOPED = `
  d.space_id IN (SELECT value FROM json_each($spaces))
  AND d.kind IN (SELECT value FROM json_each($kinds))
  AND d.created_at < $before
  AND (d.parent_id IS NULL OR d.parent_id NOT IN (SELECT room_id FROM search_room_purges))`;

/**
 * Whether an indexed item is still there, undeleted, in the space it is indexed in, one statement per kind. The
 * index is kept equal to the items, and this makes sure of it where it matters: whatever the index holds, a
 * deleted or moved item is never shown. Asked of the results only, best first, until enough are live
 * (`SearchService`): asked of every match in the window, its primary-key lookups doubled a search's time on a
 * million messages. (One statement choosing the kind with `CASE` ran all four lookups each time: SQLite
 * computes a constant subquery once, up front, whichever branch is taken.)
 */
export const LIVE_SQL: Record<Kind, string> = {
  message: `SELECT EXISTS (SELECT 1 FROM chat_messages m
    WHERE m.id = $itemId AND m.deleted_at IS NULL AND m.space_id = $spaceId) AS live`,
  task: "SELECT EXISTS (SELECT 1 FROM tasks t WHERE t.id = $itemId AND t.space_id = $spaceId) AS live",
  task_message: `SELECT EXISTS (SELECT 1 FROM task_messages c JOIN tasks t ON t.id = c.task_id
    WHERE c.id = $itemId AND t.space_id = $spaceId) AS live`,
  file: `SELECT EXISTS (SELECT 1 FROM file_nodes n
    WHERE n.id = $itemId AND n.deleted_at IS NULL AND n.space_id = $spaceId) AS live`,
};

export const HIT_COLUMNS = `d.doc, d.kind, d.item_id AS itemId, d.space_id AS spaceId, d.parent_id AS parentId,
  d.created_at AS createdAt, d.title`;

/** The newest `$window` items in scope that hold every word, newest first, with `score` as given. */
const wordsSql = (score: string) => `
  SELECT ${HIT_COLUMNS}, ${score} AS score, NULL AS marked
  FROM search_text JOIN search_docs d ON d.doc = search_text.rowid
  WHERE search_text MATCH $match AND search_text.rowid < $beforeDoc AND ${SCOPED}
  ORDER BY search_text.rowid DESC LIMIT $window`;

/**
 * The newest items in scope that hold every word, unscored. FTS5 walks the words' lists from the newest `doc`
 * down and stops at the window, so a word in a million items costs no more than one in a thousand.
 */
export const WORDS_SQL = wordsSql("0");

/**
 * The same, scored by BM25 (a word in a title or name weighs ten times one in a body): for words that are all
 * distinctive, as weighing a word reads every item that holds it (`RANK_SQL`).
 */
export const WORDS_SCORED_SQL = wordsSql("bm25(search_text, 10.0, 1.0)");

/**
 * BM25 (a word in a title or name weighs ten times one in a body) of the items between two `doc`s that hold the
 * distinctive words. FTS5 counts, for each word, every item that holds it before it scores the first row: on a
 * word held by hundreds of thousands of items that count alone took 20-40 ms, so common words are left out of
 * the score (`SearchService`), never out of the match.
 */
export const RANK_SQL = `
  SELECT rowid AS doc, bm25(search_text, 10.0, 1.0) AS score
  FROM search_text WHERE search_text MATCH $match AND rowid BETWEEN $low AND $high`;

/** The file nodes in scope whose name holds every word as a part, with that name marked. */
export const NAME_PARTS_SQL = `
  SELECT ${HIT_COLUMNS}, 10.0 * bm25(search_names) AS score,
    highlight(search_names, 0, char(1), char(2)) AS marked
  FROM search_names JOIN search_docs d ON d.doc = search_names.rowid
  WHERE search_names MATCH $match AND search_names.rowid < $beforeDoc AND ${SCOPED}
  ORDER BY search_names.rowid DESC LIMIT $window`;

/**
 * The newest item of some spaces, from the index by space: a search starts there, so searching a quiet space
 * does not walk every newer match of the busy ones (one index seek per space).
 */
export const NEWEST_DOC_SQL = `
  SELECT max(doc) AS doc FROM search_docs WHERE space_id IN (SELECT value FROM json_each($spaces))`;

/** The excerpt of one item around its matches. */
export const SNIPPET_SQL = `
  SELECT snippet(search_text, -1, char(1), char(2), '…', 24) AS marked
  FROM search_text WHERE search_text MATCH $match AND rowid = $doc`;

/** How many items hold a word, counted up to `$cap`. */
export const COUNT_SQL = `
  SELECT count(*) AS n FROM (SELECT 1 FROM search_text WHERE search_text MATCH $match LIMIT $cap)`;

/** A file node's path from its space's root (its names, root first). */
export const PATH_SQL = `
  WITH RECURSIVE up(id, parent_id, name, kind, depth) AS (
    SELECT id, parent_id, name, kind, 0 FROM file_nodes WHERE id = $id
    UNION ALL
    SELECT n.id, n.parent_id, n.name, n.kind, up.depth + 1 FROM file_nodes n JOIN up ON n.id = up.parent_id
    WHERE up.depth < 256
  )
  SELECT name, kind FROM up ORDER BY depth DESC`;

/** The documents of a node and every node below it (a deleted folder takes its subtree along). */
export const SUBTREE_DOCS_DELETE_SQL = `
  DELETE FROM search_docs WHERE item_id IN (
    WITH RECURSIVE sub(id) AS (
      SELECT $id
      UNION ALL
      SELECT n.id FROM file_nodes n JOIN sub ON n.parent_id = sub.id
    )
    SELECT id FROM sub)`;

/**
 * What the statements below spell differently on PostgreSQL (search.store.pg.ts says them with `PG_SPELLING`):
 * the character of a code point, whether two values differ (NULL being one), and the sort that keeps rows
 * inserted from a JSON array in its order (SQLite's loop over `json_each` keeps it unasked).
 */
export interface Spelling {
  chr: string;
  differ: string;
  inOrder: string;
}

export const SQLITE_SPELLING: Spelling = { chr: "char", differ: "IS NOT", inOrder: "" };

/** A text as it is indexed (`indexable`): the two mark characters are U+FFFD. */
const indexableSql = (text: string, { chr }: Spelling) =>
  `replace(replace(${text}, ${chr}(1), ${chr}(65533)), ${chr}(2), ${chr}(65533))`;

/** Text files whose indexed text is not the text they hold (its checksum differs). */
export const staleTextsSql = (s: Spelling) => `
  SELECT n.id FROM file_docs f
  JOIN file_nodes n ON n.id = f.node_id
  JOIN search_docs d ON d.item_id = n.id
  WHERE n.deleted_at IS NULL AND d.version ${s.differ} n.checksum_sha256`;

export const STALE_TEXTS_SQL = staleTextsSql(SQLITE_SPELLING);

/**
 * The indexed messages of deleted rooms among the docs of one span: a pass over the index in spans finds them
 * all (a chat message has no index by room: every post would write it).
 */
export const ROOM_SPAN_DELETE_SQL = `
  DELETE FROM search_docs WHERE doc > $from AND doc <= $to AND kind = 'message'
    AND parent_id IN (SELECT room_id FROM search_room_purges)`;

/**
 * Indexes the chat messages of `$ids` (a JSON array, in the order they committed: `json_each` is the outer loop,
 * so `doc` keeps that order without a sort) as they are now: a message
 * deleted since, or whose room was deleted, is left out, and one indexed already (an edit indexes the message it
 * changes) is left as it is. FTS5 writes one segment per transaction, so a batch of posts costs a fraction of what
 * the same posts cost one transaction each (docs/benchmarks.md).
 */
export const messagesIndexSql = (s: Spelling) => `
  INSERT INTO search_docs (kind, item_id, space_id, parent_id, created_at, title, body)
  SELECT 'message', m.id, m.space_id, m.room_id, m.created_at, '',
    ${indexableSql("m.content", s)}
  FROM json_each($ids) j
  JOIN chat_messages m ON m.id = j.value
  JOIN chat_rooms r ON r.id = m.room_id
  WHERE m.deleted_at IS NULL AND m.content <> '' AND r.deleted_at IS NULL${s.inOrder}
  ON CONFLICT (item_id) DO NOTHING`;

export const MESSAGES_INDEX_SQL = messagesIndexSql(SQLITE_SPELLING);

/** Indexes a batch of task messages (task comments) by id: those of live tasks, not yet indexed. */
export const taskMessagesIndexSql = (s: Spelling) => `
  INSERT INTO search_docs (kind, item_id, space_id, parent_id, created_at, title, body)
  SELECT 'task_message', c.id, t.space_id, c.task_id, c.created_at, '',
    ${indexableSql("c.content", s)}
  FROM json_each($ids) j
  JOIN task_messages c ON c.id = j.value
  JOIN tasks t ON t.id = c.task_id
  WHERE c.content <> ''${s.inOrder}
  ON CONFLICT (item_id) DO NOTHING`;

export const TASK_MESSAGES_INDEX_SQL = taskMessagesIndexSql(SQLITE_SPELLING);

/** Records the time of a batch of messages that commits with this statement (`search_state`). */
export const MESSAGES_WATERMARK_SQL = `
  INSERT INTO search_state (name, value) VALUES ('messages', $at) ON CONFLICT (name) DO UPDATE SET value = excluded.value`;

/** A page of chat messages, the last stored first (by rowid: the order they were stored in). */
export const LATEST_MESSAGES_SQL = `
  SELECT rowid AS at, id, created_at AS createdAt FROM chat_messages WHERE rowid < $below ORDER BY rowid DESC LIMIT $limit`;

/** A page of task messages, the last stored first, as `LATEST_MESSAGES_SQL` reads chat messages. */
export const LATEST_TASK_MESSAGES_SQL = `
  SELECT rowid AS at, id, created_at AS createdAt FROM task_messages WHERE rowid < $below ORDER BY rowid DESC LIMIT $limit`;

/** Data access for search. */
export class SearchStore {
  constructor(private readonly db: Db) {}

  protected q<Row = unknown>(sql: string) {
    return prepared(() => this.db.$client.query<Row, Record<string, string | number | null>>(sql));
  }

  // Writing the index (in the unit of the write that changed the item)

  private readonly insertDoc = this.q(`
    INSERT INTO search_docs (kind, item_id, space_id, parent_id, created_at, title, body)
    VALUES ($kind, $itemId, $spaceId, $parentId, $createdAt, $title, $body)`);

  /** Indexes a new item (its id is new: nothing can make this fail, and it need not be waited for). */
  insert(doc: DocIn): void {
    runUnanswered(this.insertDoc(), {
      $kind: doc.kind,
      $itemId: doc.itemId,
      $spaceId: doc.spaceId,
      $parentId: doc.parentId,
      $createdAt: doc.createdAt,
      $title: indexable(doc.title),
      $body: indexable(doc.body),
    });
  }

  protected readonly upsertDoc = this.q(`
    INSERT INTO search_docs (kind, item_id, space_id, parent_id, created_at, title, body)
    VALUES ($kind, $itemId, $spaceId, $parentId, $createdAt, $title, $body)
    ON CONFLICT (item_id) DO UPDATE SET title = excluded.title, body = excluded.body
    WHERE title IS NOT excluded.title OR body IS NOT excluded.body`);

  /**
   * Indexes an item anew; nothing is written when its text did not change (a task moved to another column). Nothing
   * can make it fail (a conflict updates), so it need not be waited for.
   */
  upsert(doc: DocIn): void {
    runUnanswered(this.upsertDoc(), {
      $kind: doc.kind,
      $itemId: doc.itemId,
      $spaceId: doc.spaceId,
      $parentId: doc.parentId,
      $createdAt: doc.createdAt,
      $title: indexable(doc.title),
      $body: indexable(doc.body),
    });
  }

  protected readonly setTitle = this.q(
    "UPDATE search_docs SET title = $title WHERE item_id = $itemId AND title IS NOT $title",
  );

  /** A new title (a file renamed). */
  retitle(itemId: string, title: string): void {
    this.setTitle().run({ $itemId: itemId, $title: indexable(title) });
  }

  protected readonly indexMessagesQuery = this.q(MESSAGES_INDEX_SQL);
  private readonly watermarkQuery = this.q(MESSAGES_WATERMARK_SQL);
  protected readonly indexTaskMessagesQuery = this.q(TASK_MESSAGES_INDEX_SQL);

  /** Indexes the task messages of a batch (with `indexMessages`, whose time stands for both). */
  indexTaskMessages(ids: readonly string[]): void {
    if (ids.length > 0) this.indexTaskMessagesQuery().run({ $ids: JSON.stringify(ids) });
  }

  /**
   * Indexes new chat messages by id, in the order given, as their rows hold them now (`MESSAGES_INDEX_SQL`), and
   * records that every message stored before `at` (epoch ms) is indexed.
   */
  indexMessages(ids: readonly string[], at: number): void {
    this.indexMessagesQuery().run({ $ids: JSON.stringify(ids) });
    this.watermarkQuery().run({ $at: at });
  }

  private readonly indexedUntilQuery = this.q<{ value: number }>(
    "SELECT value FROM search_state WHERE name = 'messages'",
  );

  /** The time of the last batch of messages that committed: every message stored before it is indexed. */
  messagesIndexedUntil(): number {
    return this.indexedUntilQuery().all({})[0]?.value ?? 0;
  }

  private readonly latestQueries = {
    chat: this.q<{ at: number; id: string; createdAt: number }>(LATEST_MESSAGES_SQL),
    task: this.q<{ at: number; id: string; createdAt: number }>(LATEST_TASK_MESSAGES_SQL),
  };

  /**
   * The ids of the chat (or task) messages stored last, back to the first one created before `since`, oldest
   * first. Walked by rowid from the last stored: a message stored after `since` has a `created_at` at or after it
   * (a post is stamped with the clock or later), and its rowid is above every older row's, even one reused after
   * the newest rows were deleted (SQLite gives the highest rowid plus one).
   */
  messagesSince(since: number, of: "chat" | "task" = "chat"): string[] {
    const ids: string[] = [];
    for (let below = Number.MAX_SAFE_INTEGER; ; ) {
      const page = this.latestQueries[of]().all({ $below: below, $limit: 1000 });
      for (const row of page) {
        if (row.createdAt < since) return ids.reverse();
        ids.push(row.id);
      }
      const last = page.at(-1);
      if (!last) return ids.reverse();
      below = last.at;
    }
  }

  private readonly deleteDoc = this.q("DELETE FROM search_docs WHERE item_id = $itemId");

  remove(itemId: string): void {
    this.deleteDoc().run({ $itemId: itemId });
  }

  private readonly deleteTaskMessages = this.q(
    "DELETE FROM search_docs WHERE kind = 'task_message' AND parent_id = $taskId",
  );

  /** The messages of a deleted task. */
  removeTaskMessages(taskId: string): void {
    this.deleteTaskMessages().run({ $taskId: taskId });
  }

  protected readonly deleteSubtree = this.q(SUBTREE_DOCS_DELETE_SQL);

  /** A file node and every node below it. */
  removeSubtree(nodeId: string): void {
    this.deleteSubtree().run({ $id: nodeId });
  }

  private readonly setText = this.q(`
    UPDATE search_docs SET
      body = replace(replace(coalesce((SELECT text FROM file_docs WHERE node_id = $id), ''), char(1), char(65533)), char(2), char(65533)),
      version = (SELECT checksum_sha256 FROM file_nodes WHERE id = $id)
    WHERE item_id = $id AND kind = 'file'
      AND version IS NOT (SELECT checksum_sha256 FROM file_nodes WHERE id = $id)`);

  /**
   * Indexes a file's text as its document holds it now, with the checksum it has (what `staleTexts` compares).
   * The one place that reads a document's text for search: when the text is derived some other way, this moves.
   */
  indexFileText(nodeId: string): void {
    this.setText().run({ $id: nodeId });
  }

  protected readonly staleTextsQuery = this.q<{ id: string }>(STALE_TEXTS_SQL);

  /** Text files whose index is behind their text (a stop came before their editing settled). */
  staleTexts(): string[] {
    return this.staleTextsQuery()
      .all({})
      .map((r) => r.id);
  }

  private readonly versionOf = this.q<{ title: string; version: string | null }>(
    "SELECT title, version FROM search_docs WHERE item_id = $itemId",
  );

  /** The indexed title and text version of an item. */
  indexed(itemId: string): { title: string; version: string | null } | undefined {
    return this.versionOf().all({ $itemId: itemId })[0];
  }

  // Rooms deleted: their messages leave searches at once and the index in batches

  private readonly addRoomPurge = this.q("INSERT OR IGNORE INTO search_room_purges (room_id) VALUES ($room)");

  purgeRoom(roomId: string): void {
    this.addRoomPurge().run({ $room: roomId });
  }

  private readonly purgesQuery = this.q<{ room: string }>("SELECT room_id AS room FROM search_room_purges");

  /** The rooms whose messages are still indexed. */
  roomsToPurge(): string[] {
    return this.purgesQuery()
      .all({})
      .map((r) => r.room);
  }

  private readonly purgeSpan = this.q(ROOM_SPAN_DELETE_SQL);

  /** Removes the indexed messages of every room being purged among the docs after `from`, up to `to`. */
  purgeRoomsIn(from: number, to: number): void {
    this.purgeSpan().run({ $from: from, $to: to });
  }

  private readonly purgeDone = this.q("DELETE FROM search_room_purges WHERE room_id = $room");

  /** A room whose indexed messages are all gone. */
  roomPurged(roomId: string): void {
    this.purgeDone().run({ $room: roomId });
  }

  private readonly lastDocQuery = this.q<{ doc: number | null }>("SELECT max(doc) AS doc FROM search_docs");

  /** The highest `doc` so far (0: none). */
  lastDoc(): number {
    return this.lastDocQuery().all({})[0]?.doc ?? 0;
  }

  // Searching

  protected readonly wordsQuery = this.q<Hit>(WORDS_SQL);
  protected readonly wordsScoredQuery = this.q<Hit>(WORDS_SCORED_SQL);
  private readonly namePartsQuery = this.q<Hit>(NAME_PARTS_SQL);
  protected readonly rankQuery = this.q<{ doc: number; score: number }>(RANK_SQL);
  private readonly snippetQuery = this.q<{ marked: string }>(SNIPPET_SQL);
  protected readonly countQuery = this.q<{ n: number }>(COUNT_SQL);

  /** A search's words as the statements take them (`$match`): FTS5 strings, so nothing typed is FTS5 syntax. */
  protected match(words: readonly string[]): string {
    return words.map(ftsString).join(" ");
  }

  protected scoped(scope: Scope, match: string) {
    return {
      $match: match,
      $spaces: scope.spaces,
      $kinds: scope.kinds,
      $before: scope.before,
      $beforeDoc: scope.beforeDoc,
      $window: scope.window,
    };
  }

  /** The newest items in scope holding every word (`WORDS_SQL`), scored when distinctive (`WORDS_SCORED_SQL`). */
  words(scope: Scope, words: readonly string[], rarity: Rarity): Hit[] {
    const query = rarity === "distinctive" ? this.wordsScoredQuery() : this.wordsQuery();
    return query.all(this.scoped(scope, this.match(words)));
  }

  /** The newest file nodes in scope whose name holds every word as a part (`NAME_PARTS_SQL`). */
  nameParts(scope: Scope, words: readonly string[]): Hit[] {
    return this.namePartsQuery().all(this.scoped(scope, this.match(words)));
  }

  /** BM25 of the items with a `doc` from `low` to `high` that hold every word (lower is better). */
  ranks(words: readonly string[], low: number, high: number): Map<number, number> {
    const rows = this.rankQuery().all({ $match: this.match(words), $low: low, $high: high });
    return new Map(rows.map((r) => [r.doc, r.score]));
  }

  /** The excerpt of an item around where its words are, matches between the mark characters. */
  snippet(doc: number, words: readonly string[]): string {
    return this.snippetQuery().all({ $doc: doc, $match: this.match(words) })[0]?.marked ?? "";
  }

  /** How many items hold a word, up to `cap`. */
  count(word: string, cap: number): number {
    return this.countQuery().all({ $match: this.match([word]), $cap: cap })[0]?.n ?? 0;
  }

  protected readonly newestDocQuery = this.q<{ doc: number | null }>(NEWEST_DOC_SQL);

  /** The bound above the newest item of the spaces (a JSON array of ids): no match of theirs is at or above it. */
  spacesBound(spaces: string): number {
    return (this.newestDocQuery().all({ $spaces: spaces })[0]?.doc ?? 0) + 1;
  }

  private readonly docAt = this.q<{ doc: number; createdAt: number }>(
    "SELECT doc, created_at AS createdAt FROM search_docs WHERE doc >= $doc ORDER BY doc LIMIT 1",
  );

  /**
   * The first `doc` created at or after `time`, found by bisection: items are indexed as they are made, so `doc`
   * follows `created_at` (to the millisecond: two writers may interleave, which the margin of the caller covers).
   */
  docBound(time: number): number {
    let low = 1;
    let high = this.lastDoc() + 1;
    while (low < high) {
      const mid = Math.floor((low + high) / 2);
      const at = this.docAt().all({ $doc: mid })[0];
      if (!at || at.createdAt >= time) high = mid;
      else low = at.doc + 1;
    }
    return low;
  }

  private readonly liveQueries = {
    message: this.q<{ live: number }>(LIVE_SQL.message),
    task: this.q<{ live: number }>(LIVE_SQL.task),
    task_message: this.q<{ live: number }>(LIVE_SQL.task_message),
    file: this.q<{ live: number }>(LIVE_SQL.file),
  };

  /** Whether a match is still there to show (`LIVE_SQL`). */
  live(hit: Hit): boolean {
    return this.liveQueries[hit.kind]().all({ $itemId: hit.itemId, $spaceId: hit.spaceId })[0]?.live === 1;
  }

  // What results show

  private readonly textOf = this.q<{ title: string; body: string | null }>(
    `SELECT title, CASE WHEN length(body) <= ${SHORT_TEXT} THEN body END AS body FROM search_docs WHERE doc = $doc`,
  );

  /** An item's indexed title, and its body when that is short (what an excerpt is cut from here). */
  text(doc: number): { title: string; body: string | null } | undefined {
    return this.textOf().all({ $doc: doc })[0];
  }

  private readonly roomName = this.q<{ name: string }>("SELECT name FROM chat_rooms WHERE id = $id");

  /** The name of a chat room. */
  room(roomId: string): string | undefined {
    return this.roomName().all({ $id: roomId })[0]?.name;
  }

  private readonly titleOf = this.q<{ title: string }>("SELECT title FROM search_docs WHERE item_id = $id");

  /** The indexed title of an item (a task's, for its messages). */
  title(itemId: string): string | undefined {
    return this.titleOf().all({ $id: itemId })[0]?.title;
  }

  private readonly pathQuery = this.q<{ name: string; kind: string }>(PATH_SQL);

  /** A file node's path from its space's root; a folder's ends in `/`. */
  path(nodeId: string): string {
    const parts = this.pathQuery().all({ $id: nodeId });
    const last = parts.at(-1);
    return parts.map((p) => p.name).join("/") + (last?.kind === "folder" ? "/" : "");
  }
}
