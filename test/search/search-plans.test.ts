/**
 * The plans of PostgreSQL's search statements (search.store.pg.ts), as PostgreSQL keeps them: after five runs a
 * prepared statement gets a generic plan, made without its parameters' values, so each statement must read the
 * index it was written for whatever words it is asked (`plan_cache_mode = force_generic_plan`). On a few thousand
 * items a sequential scan is cheapest, which says nothing of a large index: with `enable_seqscan = off`, the
 * plans show which index each statement can use, and that it prefers it to the others.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { type Connection, openPostgres } from "../../src/db/client";
import type { PgDatabase } from "../../src/db/pg/connection";
import { migratePostgres } from "../../src/db/pg/migrate";
import { translate } from "../../src/db/pg/translate";
import {
  PG_COUNT_SQL,
  PG_NEWEST_DOC_SQL,
  PG_RANK_SQL,
  PG_WORDS_COMMON_SQL,
  PG_WORDS_SCORED_SQL,
  PG_WORDS_SQL,
  pgNamePartsSql,
} from "../../src/features/search/search.store.pg";
import { newDatabase, ON_POSTGRES } from "../helpers/postgres";

const SCOPE = {
  spaces: JSON.stringify(Array.from({ length: 20 }, (_, i) => `s${i}`)),
  kinds: JSON.stringify(["message", "task", "task_message", "file"]),
  before: Number.MAX_SAFE_INTEGER,
  beforeDoc: Number.MAX_SAFE_INTEGER,
  window: 500,
  match: JSON.stringify(["word42"]),
};

describe.skipIf(!ON_POSTGRES)("PostgreSQL's search plans", () => {
  let conn: Connection;
  let pg: PgDatabase;
  let statements = 0;

  beforeAll(() => {
    conn = openPostgres(newDatabase("plans"));
    pg = conn.sqlite as unknown as PgDatabase;
    migratePostgres(pg);
    pg.exec(`INSERT INTO search_docs (kind, item_id, space_id, parent_id, created_at, title, body)
      SELECT 'message', 'm' || g, 's' || (g % 20), 'r' || (g % 50), g, '', 'hello team word' || (g % 5000)
      FROM generate_series(1, 5000) AS g`);
    pg.exec(`INSERT INTO search_docs (kind, item_id, space_id, parent_id, created_at, title, body)
      SELECT 'file', 'f' || g, 's' || (g % 20), NULL, g, 'Report-' || md5(g::text) || '.md', ''
      FROM generate_series(1, 500) AS g`);
    pg.exec("ANALYZE search_docs");
    pg.exec("SET plan_cache_mode = force_generic_plan");
    pg.exec("SET enable_seqscan = off");
  });
  afterAll(() => conn?.sqlite.close());

  /** The generic plan of a statement, its named parameters given these values. */
  function plan(sql: string, values: Record<string, unknown>): string {
    const { text, names } = translate(sql);
    const name = `plan${++statements}`;
    pg.exec(`PREPARE ${name} AS ${text}`);
    const args = (names ?? []).map((n) => {
      const value = values[n];
      return typeof value === "number" ? String(value) : `'${String(value).replaceAll("'", "''")}'`;
    });
    const rows = pg.query(`EXPLAIN EXECUTE ${name}(${args.join(", ")})`).values() as string[][];
    return rows.map((r) => r[0]).join("\n");
  }

  it("reads rare words through the GIN index, and the primary key only by doc", () => {
    for (const sql of [PG_WORDS_SQL, PG_WORDS_SCORED_SQL, PG_RANK_SQL]) {
      const shown = plan(sql, { ...SCOPE, low: 1, high: 6000 });
      expect(shown).toContain("Bitmap Index Scan on search_docs_words_idx");
      expect(shown).not.toContain("search_docs_pkey");
      expect(shown).not.toContain("Seq Scan on search_docs");
    }
  });

  it("walks common words down from the newest doc", () => {
    const shown = plan(PG_WORDS_COMMON_SQL, { ...SCOPE, match: JSON.stringify(["hello"]), window: 60 });
    expect(shown).toContain("Index Scan Backward using search_docs_pkey");
    expect(shown).not.toContain("search_docs_words_idx");
  });

  it("counts a word through the GIN index", () => {
    expect(plan(PG_COUNT_SQL, { match: SCOPE.match, cap: 100_000 })).toContain("search_docs_words_idx");
  });

  it("finds parts of file names through the trigram index", () => {
    const shown = plan(pgNamePartsSql(2), { ...SCOPE, match: '["eport", "abc"]', p0: "eport", p1: "abc", joined: "" });
    expect(shown).toContain("Bitmap Index Scan on search_docs_names_idx");
    expect(shown).not.toContain("Seq Scan on search_docs");
  });

  it("finds the newest item of the spaces one seek per space", () => {
    const shown = plan(PG_NEWEST_DOC_SQL, { spaces: SCOPE.spaces });
    expect(shown).toMatch(/Index (Only )?Scan Backward using search_docs_space_idx/);
  });
});
