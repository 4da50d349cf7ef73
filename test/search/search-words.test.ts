/**
 * Words on both engines: PostgreSQL's search (migrations/pg/0002_search.sql) cuts and folds words as SQLite's FTS5
 * tokenizer does, so the same texts match the same searches. SQLite's answers are asked of an FTS5 table made as
 * migration 0015 makes `search_text` and `search_names`; PostgreSQL's of its functions, on the test cluster
 * (`TANDEM_TEST_DATABASE=postgres`). The few letters PostgreSQL folds further than SQLite are listed as such.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { PG_SEARCH_FILE, pgSearchText } from "../../scripts/pg-search-words";
import { type Connection, openPostgres } from "../../src/db/client";
import { migrate } from "../../src/db/migrate";
import type { PgDatabase } from "../../src/db/pg/connection";
import { copyToPostgres } from "../../src/db/pg/copy";
import { migratePostgres } from "../../src/db/pg/migrate";
import { parseQuery } from "../../src/features/search/search.query";
import { newDatabase, ON_POSTGRES } from "../helpers/postgres";

describe("migrations/pg/0002_search.sql", () => {
  it("separates words with the characters SQLite's tokenizer separates them with", async () => {
    expect(pgSearchText()).toBe(await Bun.file(PG_SEARCH_FILE).text());
  });
});

/** Title, body, search: whether the item is found, on both engines. */
const WORDS: [string, string, string, boolean][] = [
  ["", "The quarterly Budget review", "budget", true],
  ["", "The quarterly Budget review", "BUDGET review", true],
  ["", "budgetary constraints", "budget", false],
  ["", "budgetary constraints", "constraint", false],
  ["", "Rendez-vous au Café Zürich", "cafe zurich", true],
  ["", "Rendez-vous au Café Zürich", "CAFÉ", true],
  ["", "a naive resume", "naïve résumé", true],
  ["", "cafe\u0301 au lait", "café", true],
  ["", "café au lait", "cafe\u0301", true],
  ["", "Lunar lander telemetry", "lunar wednesday", false],
  ["", "The zircon OR the onyx", "zircon OR", true],
  ["", "The zircon OR the onyx", "zir*", false],
  ["", "The zircon OR the onyx", '"zircon"', true],
  ["", "The zircon OR the onyx", "NEAR(zircon onyx)", false],
  ["", "The zircon OR the onyx", "title:zircon", false],
  ["", "see Launch-Notes.md", "notes", true],
  ["", "see Launch-Notes.md", "notes.md", true],
  ["", "see Launch-Notes.md", "launch-notes", true],
  ["", "see Launch-Notes.md", "notes-launch", false],
  ["", "world wide web", "world-wide", true],
  ["", "world-wide web", "world wide", true],
  ["", "worldwide web", "world-wide", false],
  ["", `<script>alert("x&y")</script> 'danger'`, "script alert", true],
  ["", `<script>alert("x&y")</script> 'danger'`, "danger", true],
  ["", "mail ada@example.com or https://example.com/docs?q=1", "example", true],
  ["", "mail ada@example.com or https://example.com/docs?q=1", "docs", true],
  ["", "mail ada@example.com or https://example.com/docs?q=1", "ada@example.com", true],
  ["", "pi is 3.14 and e is 2.71", "14", true],
  ["", "pi is 3.14 and e is 2.71", "3.14", true],
  ["", "pi is 3.14 and e is 2.71", "3", true],
  ["", "snake_case_name", "case", true],
  ["", "l'été dernier", "ete", true],
  ["", "don’t stop", "don", true],
  ["", "version v1.2.3 shipped", "v1", true],
  ["", "1e5 items", "1e5", true],
  ["", "abc123 def", "abc", false],
  ["", "abc123 def", "abc123", true],
  ["", "x² and y³", "x²", true],
  ["", "中文字 search", "中文字", true],
  ["", "中文字 search", "中文", false],
  ["", "한국어 텍스트", "한국어", true],
  ["", "🎉 party time", "party", true],
  ["", "🎉party🎉", "party", true],
  ["", "ΟΔΟΣ ΑΘΗΝΑΣ", "οδος", true],
  ["", "οδοσ", "ΟΔΟΣ", true],
  ["", "Привет, МИР", "мир", true],
  ["", "İstanbul trip", "istanbul", true],
  ["", "ＡＢＣ wide", "ａｂｃ", true],
  ["", "tricky \u0001pelican\u0002 text", "pelican", true],
  ["", "Plant the kumquat trees", "kumquat trees", true],
  ["", "Plant the kumquat trees", "trees kumquat", true],
  ["", "a b c", "a-c", false],
  ["Ocelot", "spotted", "ocelot spotted", true],
  // A phrase never runs from a title into its body: they are two columns in SQLite.
  ["Launch", "notes for the release", "launch-notes", false],
  ["Launch", "notes for the release", "launch notes", true],
];

/** Name, search: whether a file of that name is found by the parts of its name, and the name as marked. */
const NAMES: [string, string, string | null][] = [
  ["Launch-Notes.md", "aunch-no", "L[aunch-No]tes.md"],
  ["Launch-Notes.md", "NOTES", "Launch-[Notes].md"],
  ["Launch-Notes.md", "tes.m", "Launch-No[tes.m]d"],
  ["Launch-Notes.md", "aunch .md", "L[aunch]-Notes[.md]"],
  ["Launch.md", "lau nch", "[Launch].md"],
  ["banana.txt", "ana", "b[anana].txt"],
  ["Café-Zürich.txt", "cafe zuri", "[Café]-[Züri]ch.txt"],
  ["Café-Zürich.txt", "ZÜRICH", "Café-[Zürich].txt"],
  ["report_2024%.txt", "t_2024%", "repor[t_2024%].txt"],
  ["report-2024.txt", "t_2024", null],
  ["gecko.txt", "salamander", null],
  ["ΟΔΟΣ.txt", "οδος", "[ΟΔΟΣ].txt"],
];

/** What PostgreSQL finds that SQLite does not: `unaccent` also folds ligatures, strokes, Greek tonos and ё. */
const FOLDED_FURTHER: [string, string][] = [
  ["Straße", "strasse"],
  ["Ørsted", "orsted"],
  ["Łódź", "lodz"],
  ["Œuvre", "oeuvre"],
  ["καλημέρα", "καλημερα"],
  ["ёлка", "елка"],
];

describe.skipIf(!ON_POSTGRES)("PostgreSQL's words and SQLite's", () => {
  let conn: Connection;
  let pg: PgDatabase;
  const sqlite = new Database(":memory:");

  beforeAll(() => {
    conn = openPostgres(newDatabase("words"));
    pg = conn.sqlite as unknown as PgDatabase;
    migratePostgres(pg);
    sqlite.exec("CREATE VIRTUAL TABLE t USING fts5(title, body, tokenize='unicode61 remove_diacritics 2')");
    sqlite.exec("CREATE VIRTUAL TABLE n USING fts5(title, tokenize='trigram remove_diacritics 1')");
  });
  afterAll(() => {
    conn?.sqlite.close();
    sqlite.close();
  });

  const inSqlite = (title: string, body: string, q: string) => {
    sqlite.exec("DELETE FROM t");
    sqlite.query("INSERT INTO t (rowid, title, body) VALUES (1, ?, ?)").run(title, body);
    const match = parseQuery(q).wordsMatch;
    return match !== null && sqlite.query("SELECT 1 FROM t WHERE t MATCH ?").all(match).length === 1;
  };
  const inPostgres = (title: string, body: string, q: string) => {
    const { wholeWords } = parseQuery(q);
    const row = pg
      .query("SELECT tandem_search_vector($title, $body) @@ tandem_search_query($words) AS hit")
      .get({ title, body, words: JSON.stringify(wholeWords) }) as { hit: number | null };
    return wholeWords.length > 0 && row.hit === 1;
  };

  it("finds the same items for the same words", () => {
    for (const [title, body, q, expected] of WORDS) {
      const label = `${JSON.stringify(title)} ${JSON.stringify(body)} q=${JSON.stringify(q)}`;
      expect(inSqlite(title, body, q), `SQLite: ${label}`).toBe(expected);
      expect(inPostgres(title, body, q), `PostgreSQL: ${label}`).toBe(expected);
    }
  });

  it("finds the same file names by the same parts, marked alike", () => {
    for (const [name, q, marked] of NAMES) {
      sqlite.exec("DELETE FROM n");
      sqlite.query("INSERT INTO n (rowid, title) VALUES (1, ?)").run(name);
      const match = parseQuery(q).namePartsMatch as string;
      const sqliteMarked =
        (
          sqlite.query("SELECT highlight(n, 0, '[', ']') AS m FROM n WHERE n MATCH ?").get(match) as {
            m: string;
          } | null
        )?.m ?? null;
      const { words } = parseQuery(q);
      const like = words.map((_, i) => `tandem_search_fold($name) LIKE tandem_search_like($p${i})`).join(" AND ");
      const params: Record<string, string> = { name, parts: JSON.stringify(words) };
      for (const [i, word] of words.entries()) params[`p${i}`] = word;
      const row = pg.query(`SELECT CASE WHEN ${like} THEN tandem_search_mark($name, $parts) END AS m`).get(params) as {
        m: string | null;
      };
      const pgMarked = row.m === null ? null : row.m.replaceAll("\u0001", "[").replaceAll("\u0002", "]");
      expect(sqliteMarked, `SQLite: ${name} q=${q}`).toBe(marked);
      expect(pgMarked, `PostgreSQL: ${name} q=${q}`).toBe(marked);
    }
  });

  it("folds ligatures, strokes and a few accents SQLite keeps", () => {
    for (const [text, q] of FOLDED_FURTHER) {
      expect(inSqlite("", text, q), `SQLite: ${text} q=${q}`).toBe(false);
      expect(inPostgres("", text, q), `PostgreSQL: ${text} q=${q}`).toBe(true);
      expect(inPostgres("", text, text), `PostgreSQL: ${text} q=${text}`).toBe(true);
    }
  });

  it("indexes a text past PostgreSQL's 1 MB per tsvector: its first words with positions, then each word once", () => {
    // 200,000 different words (2.2 MB): more than one tsvector holds.
    const words = Array.from({ length: 200_000 }, (_, i) => `w${i.toString(36)}x`);
    const body = `opening phrase here ${words.join(" ")} closing`;
    const vector = "tandem_search_vector('', $body)";
    const hit = (q: string) =>
      (
        pg.query(`SELECT ${vector} @@ tandem_search_query($q) AS hit`).get({ body, q: JSON.stringify([q]) }) as {
          hit: number;
        }
      ).hit === 1;
    expect(hit("opening-phrase")).toBe(true);
    expect(hit("phrase-opening")).toBe(false);
    // Past 16,383 positions a word is still found; past the first 300,000 characters too, as one more word.
    expect(hit(words[20_000] as string)).toBe(true);
    expect(hit(words[60_000] as string)).toBe(true);
    // Past what 1 MB holds, no longer.
    expect(hit("closing")).toBe(false);
    const size = pg.query(`SELECT pg_column_size(${vector}) AS n`).get({ body }) as { n: number };
    expect(size.n).toBeLessThan(1_048_576);
  });

  it("makes the words of what a copy from SQLite brings (migrate-to-postgres, restore), a NUL as U+FFFD", () => {
    const source = new Database(":memory:");
    migrate(source);
    source
      .query(`INSERT INTO search_docs (kind, item_id, space_id, parent_id, created_at, title, body)
        VALUES ('file', 'f1', 's1', NULL, 1, 'Café-Notes.md', ?)`)
      .run("alpha\u0000bravo");
    const target = openPostgres(newDatabase("copy"));
    try {
      copyToPostgres(source, target.sqlite as unknown as PgDatabase, "copy");
      const row = target.sqlite
        .query(`SELECT body, words @@ tandem_search_query($words) AS hit,
          tandem_search_fold(title) LIKE tandem_search_like('afé-no') AS part FROM search_docs`)
        .get({ words: JSON.stringify(["bravo", "cafe"]) });
      expect(row).toEqual({ body: "alpha\uFFFDbravo", hit: 1, part: 1 });
    } finally {
      target.sqlite.close();
      source.close();
    }
  });

  it("computes the same words with an empty search_path, as a restore of pg_dump does", () => {
    const words = (path: string) => {
      pg.exec(`SET search_path = ${path}`);
      try {
        return (
          pg.query("SELECT public.tandem_search_vector('Café', 'Zürich notes.md')::text AS v").get() as { v: string }
        ).v;
      } finally {
        pg.exec("SET search_path = DEFAULT");
      }
    };
    expect(words("''")).toBe(words("public"));
  });
});
