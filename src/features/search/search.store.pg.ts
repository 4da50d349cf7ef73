/**
 * The search index on PostgreSQL (contract §9): the same `search_docs` as on SQLite, its words in the stored
 * tsvector `words` (GIN) and file names in a trigram index, both made by migrations/pg/0002_search.sql, whose
 * functions cut and fold words as SQLite's tokenizer does. Only the statements that are FTS5's (or say something
 * PostgreSQL says another way: `IS NOT`, `char()`, an order kept by rowid) are this store's own; every other
 * statement, and what the service does with the answers, is `SearchStore`'s, so both engines answer alike.
 */
import type { Statement } from "bun:sqlite";
import { excerpt, indexable, termsOf } from "./search.query";
import {
  HIT_COLUMNS,
  type Hit,
  messagesIndexSql,
  type Rarity,
  SCOPED,
  type Scope,
  SearchStore,
  SHORT_TEXT,
  type Spelling,
  staleTextsSql,
  taskMessagesIndexSql,
} from "./search.store";

/** PostgreSQL's words for what SQLite's statements spell their way (`Spelling`). */
export const PG_SPELLING: Spelling = { chr: "chr", differ: "IS DISTINCT FROM", inOrder: "\n  ORDER BY j.key" };

/**
 * A search's words (`$match`, a JSON array) as PostgreSQL's query, made once per statement (`WITH_QUERY`, read as
 * `QUERY`) rather than once per row the statement looks at.
 */
const WITH_QUERY = "WITH search AS MATERIALIZED (SELECT tandem_search_query($match) AS q)";
const QUERY = "(SELECT q FROM search)";

/**
 * The newest `$window` items in scope that hold every word, read through the GIN index: for words of which one at
 * least is held by few items. PostgreSQL keeps a statement's plan across the values it is run with, without
 * knowing how many items hold them, so each statement here has one plan that suits it: `OFFSET 0` keeps this one
 * from walking `doc` down past every item, and `doc + 0` from reading the primary key's range beside the words.
 */
const wordsSql = (score: string) => `
  ${WITH_QUERY}
  SELECT ${HIT_COLUMNS}, ${score} AS score, NULL AS marked
  FROM (SELECT * FROM search_docs WHERE words @@ ${QUERY} AND doc + 0 < $beforeDoc OFFSET 0) AS d
  WHERE ${SCOPED}
  ORDER BY d.doc DESC LIMIT $window`;

/** The newest items in scope that hold some rare words and some common, unscored (`WORDS_SQL`). */
export const PG_WORDS_SQL = wordsSql("0");

/** The newest items in scope that hold rare words, scored (a word in a title weighs ten times one in a body). */
export const PG_WORDS_SCORED_SQL = wordsSql(`tandem_search_score(d.words, ${QUERY})`);

/**
 * The newest items in scope that hold common words, walking `doc` down until the window is full, as FTS5 walks
 * its lists (`IS TRUE` keeps the GIN index, which would read every item that holds them, out of the plan).
 */
export const PG_WORDS_COMMON_SQL = `
  ${WITH_QUERY}
  SELECT ${HIT_COLUMNS}, 0 AS score, NULL AS marked
  FROM search_docs d
  WHERE (d.words @@ ${QUERY}) IS TRUE AND d.doc < $beforeDoc AND ${SCOPED}
  ORDER BY d.doc DESC LIMIT $window`;

/** The scores of the items between two `doc`s that hold the words (`RANK_SQL`). */
export const PG_RANK_SQL = `
  ${WITH_QUERY}
  SELECT doc, tandem_search_score(words, ${QUERY}) AS score
  FROM search_docs WHERE words @@ ${QUERY} AND doc + 0 BETWEEN $low AND $high`;

/** How many items hold a word, counted up to `$cap` (`COUNT_SQL`). */
export const PG_COUNT_SQL = `
  ${WITH_QUERY}
  SELECT count(*) AS n FROM (SELECT 1 FROM search_docs WHERE words @@ ${QUERY} LIMIT $cap) AS c`;

/**
 * The newest item of some spaces, one seek per space in the index by space (`NEWEST_DOC_SQL`). The space is asked as
 * a range of one and the rows ordered by space too: with `space_id = ...`, PostgreSQL drops the order by space (it
 * is one value) and may walk the primary key down until it meets a row of the space, most of the index for a quiet
 * one; only the index by space gives this order.
 */
export const PG_NEWEST_DOC_SQL = `
  SELECT max(m.doc) AS doc FROM json_each($spaces) s
  CROSS JOIN LATERAL (
    SELECT doc FROM search_docs WHERE space_id >= s.value AND space_id <= s.value
    ORDER BY space_id DESC, doc DESC LIMIT 1
  ) AS m`;

/**
 * The file nodes in scope whose folded name holds each of `parts` parts (`$p0`, `$p1`, ...) anywhere, newest
 * first, with the name marked (`NAME_PARTS_SQL`). One condition per part, so the trigram index reads each; a name
 * part is better than any whole word of a body or title, and a name that is more of the search better still,
 * as SQLite's `10 * bm25()` of the trigrams puts them.
 */
export function pgNamePartsSql(parts: number): string {
  const like = Array.from({ length: parts }, (_, i) => `tandem_search_fold(d.title) LIKE tandem_search_like($p${i})`);
  return `
  SELECT ${HIT_COLUMNS}, -1 - similarity(tandem_search_fold(d.title), (SELECT tandem_search_fold($joined))) AS score,
    tandem_search_mark(d.title, $match) AS marked
  FROM search_docs d
  WHERE d.kind = 'file' AND ${like.join(" AND ")} AND d.doc < $beforeDoc AND ${SCOPED}
  ORDER BY d.doc DESC LIMIT $window`;
}

/**
 * The ids of the messages (of `messages`, each under a row of `parents`) created at or after `$since`, oldest
 * first: read parent by parent from the index by parent and time (a message has no index by time alone: every
 * post would write it). SQLite walks its rowids instead; both rest on a post being stamped with the clock or later.
 */
const sinceSql = (messages: string, parents: string, parent: string) => `
  SELECT m.id FROM ${parents} p
  CROSS JOIN LATERAL (
    SELECT id, created_at FROM ${messages} WHERE ${parent} = p.id AND created_at >= $since
  ) AS m
  ORDER BY m.created_at, m.id`;

/** Chat messages created since `$since`, room by room. */
export const PG_MESSAGES_SINCE_SQL = sinceSql("chat_messages", "chat_rooms", "room_id");

/** Task messages created since `$since`, task by task. */
export const PG_TASK_MESSAGES_SINCE_SQL = sinceSql("task_messages", "tasks", "task_id");

/** The documents of a node and every node below it (`SUBTREE_DOCS_DELETE_SQL`). */
export const PG_SUBTREE_DOCS_DELETE_SQL = `
  DELETE FROM search_docs WHERE item_id IN (
    WITH RECURSIVE sub(id) AS (
      SELECT CAST($id AS text) COLLATE "C"
      UNION ALL
      SELECT n.id FROM file_nodes n JOIN sub ON n.parent_id = sub.id
    )
    SELECT id FROM sub)`;

/** Search on PostgreSQL: `SearchStore` with the statements above. */
export class PgSearchStore extends SearchStore {
  protected override readonly upsertDoc = this.q(`
    INSERT INTO search_docs (kind, item_id, space_id, parent_id, created_at, title, body)
    VALUES ($kind, $itemId, $spaceId, $parentId, $createdAt, $title, $body)
    ON CONFLICT (item_id) DO UPDATE SET title = excluded.title, body = excluded.body
    WHERE search_docs.title IS DISTINCT FROM excluded.title OR search_docs.body IS DISTINCT FROM excluded.body`);

  protected override readonly setTitle = this.q(
    "UPDATE search_docs SET title = $title WHERE item_id = $itemId AND title IS DISTINCT FROM $title",
  );

  protected override readonly indexMessagesQuery = this.q(messagesIndexSql(PG_SPELLING));
  protected override readonly indexTaskMessagesQuery = this.q(taskMessagesIndexSql(PG_SPELLING));
  protected override readonly deleteSubtree = this.q(PG_SUBTREE_DOCS_DELETE_SQL);

  protected override readonly staleTextsQuery = this.q<{ id: string }>(staleTextsSql(PG_SPELLING));
  protected override readonly wordsQuery = this.q<Hit>(PG_WORDS_SQL);
  protected override readonly wordsScoredQuery = this.q<Hit>(PG_WORDS_SCORED_SQL);
  protected override readonly rankQuery = this.q<{ doc: number; score: number }>(PG_RANK_SQL);
  protected override readonly countQuery = this.q<{ n: number }>(PG_COUNT_SQL);
  protected override readonly newestDocQuery = this.q<{ doc: number | null }>(PG_NEWEST_DOC_SQL);
  private readonly wordsCommonQuery = this.q<Hit>(PG_WORDS_COMMON_SQL);

  override words(scope: Scope, words: readonly string[], rarity: Rarity): Hit[] {
    if (rarity !== "common") return super.words(scope, words, rarity);
    return this.wordsCommonQuery().all(this.scoped(scope, this.match(words)));
  }

  /** Words go to PostgreSQL as a JSON array: its functions cut and fold each word (`tandem_search_query`). */
  protected override match(words: readonly string[]): string {
    return JSON.stringify(words);
  }

  private readonly sinceQueries = {
    chat: this.q<{ id: string }>(PG_MESSAGES_SINCE_SQL),
    task: this.q<{ id: string }>(PG_TASK_MESSAGES_SINCE_SQL),
  };

  /** The ids of the chat (or task) messages created since `since`, oldest first. */
  override messagesSince(since: number, of: "chat" | "task" = "chat"): string[] {
    return this.sinceQueries[of]()
      .all({ $since: since })
      .map((r) => r.id);
  }

  /** A statement per number of parts (200 characters hold at most 50 parts of 3). */
  private readonly namePartsQueries = new Map<number, () => Statement<Hit, [Record<string, string | number | null>]>>();

  override nameParts(scope: Scope, words: readonly string[]): Hit[] {
    let query = this.namePartsQueries.get(words.length);
    if (!query) {
      query = this.q<Hit>(pgNamePartsSql(words.length));
      this.namePartsQueries.set(words.length, query);
    }
    const params: Record<string, string | number | null> = {
      ...this.scoped(scope, JSON.stringify(words)),
      $joined: words.join(" "),
    };
    for (const [i, word] of words.entries()) params[`$p${i}`] = word;
    return query().all(params);
  }

  private readonly staleTextOf = this.q<{ text: Uint8Array | null; checksum: string | null }>(`
    SELECT f.text, n.checksum_sha256 AS checksum
    FROM search_docs d
    LEFT JOIN file_nodes n ON n.id = d.item_id
    LEFT JOIN file_docs f ON f.node_id = d.item_id
    WHERE d.item_id = $id AND d.kind = 'file' AND d.version IS DISTINCT FROM n.checksum_sha256`);

  private readonly setFileText = this.q(
    "UPDATE search_docs SET body = $body, version = $version WHERE item_id = $id AND kind = 'file'",
  );

  /**
   * Indexes a file's text as its document holds it now, with its checksum, unless that checksum is indexed (as
   * SQLite's one statement does). The text is read here as its UTF-8 bytes (`file_docs.text` is `bytea` on
   * PostgreSQL: it may hold NUL, which no text of PostgreSQL can, so the indexed copy has U+FFFD there, as for the
   * mark characters).
   */
  override indexFileText(nodeId: string): void {
    const stale = this.staleTextOf().all({ $id: nodeId })[0];
    if (!stale) return;
    const text = stale.text === null ? "" : Buffer.from(stale.text).toString("utf8");
    this.setFileText().run({
      $id: nodeId,
      $body: indexable(text).replaceAll("\0", "\uFFFD"),
      $version: stale.checksum,
    });
  }

  private readonly bodyOf = this.q<{ body: string }>("SELECT body FROM search_docs WHERE doc = $doc");

  /**
   * The excerpt of a long text (FTS5's `snippet()` on SQLite): the first stretch of `SHORT_TEXT` characters
   * that holds a word of the search, cut as the service cuts a short one. A text whose matching word the
   * excerpt does not recognize (PostgreSQL folds a few letters more than it does: `ß` as `ss`) shows its start.
   */
  override snippet(doc: number, words: readonly string[]): string {
    const body = this.bodyOf().all({ $doc: doc })[0]?.body ?? "";
    const terms = termsOf(words);
    for (let from = 0; from < body.length; ) {
      let to = Math.min(body.length, from + SHORT_TEXT);
      // Cut at white space, so no word is split in two.
      const space = to < body.length ? body.slice(from, to).search(/\s\S*$/) : -1;
      if (space > 0) to = from + space;
      const cut = excerpt(body.slice(from, to), terms);
      if (cut !== null) {
        const before = from > 0 && !cut.startsWith("…") ? "…" : "";
        const after = to < body.length && !cut.endsWith("…") ? "…" : "";
        return `${before}${cut}${after}`;
      }
      from = to;
    }
    const start = body.split(/\s+/u, 25);
    return start.length > 24 ? `${start.slice(0, 24).join(" ")}…` : body;
  }
}
