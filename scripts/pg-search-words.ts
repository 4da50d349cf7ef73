/**
 * Writes into `migrations/pg/0002_search.sql` the characters that separate words, as SQLite's FTS5 tokenizer of
 * search (`unicode61 remove_diacritics 2`) has them, so PostgreSQL cuts words where SQLite does. They are asked of
 * SQLite itself, one character at a time: `a<c>b` is one word or two. Run after upgrading Bun (its SQLite):
 * `bun scripts/pg-search-words.ts`; `--check` only says whether the committed file is current
 * (test/search/search-words.test.ts runs it).
 */
import { Database } from "bun:sqlite";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const PG_SEARCH_FILE = join(import.meta.dir, "..", "migrations", "pg", "0002_search.sql");

/** The bracket expression of `tandem_search_spaces` in the migration (its text between `'[` and `]+'`). */
const CLASS = /(RETURN regexp_replace\(t, '\[)[^']*(\]\+', ' ', 'g'\);)/;

/** The code points SQLite's tokenizer takes for separators, as ranges (first, last). */
export function sqliteSeparators(): [number, number][] {
  const db = new Database(":memory:");
  try {
    db.exec("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='unicode61 remove_diacritics 2')");
    db.exec("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')");
    const insert = db.prepare("INSERT INTO t (rowid, x) VALUES (?, ?)");
    db.transaction(() => {
      for (let cp = 1; cp <= 0x10ffff; cp++) {
        if (cp < 0xd800 || cp > 0xdfff) insert.run(cp, `a${String.fromCodePoint(cp)}b`);
      }
    })();
    // A separator leaves `a` and `b` apart: two words in its document.
    const split = db.query("SELECT doc FROM v GROUP BY doc HAVING count(*) = 2 ORDER BY doc").values();
    const ranges: [number, number][] = [];
    for (const [doc] of split) {
      const cp = doc as number;
      const last = ranges.at(-1);
      if (last && last[1] === cp - 1) last[1] = cp;
      else ranges.push([cp, cp]);
    }
    return ranges;
  } finally {
    db.close();
  }
}

/** Ranges as the inside of a PostgreSQL regular expression's bracket expression (`\uXXXX`, `\UXXXXXXXX`). */
export function bracket(ranges: [number, number][]): string {
  const code = (cp: number) =>
    cp > 0xffff ? `\\U${cp.toString(16).padStart(8, "0")}` : `\\u${cp.toString(16).padStart(4, "0")}`;
  return ranges.map(([first, last]) => (first === last ? code(first) : `${code(first)}-${code(last)}`)).join("");
}

/** The migration's text with the separators SQLite has today. */
export function pgSearchText(): string {
  const text = readFileSync(PG_SEARCH_FILE, "utf8");
  if (!CLASS.test(text)) throw new Error(`${PG_SEARCH_FILE}: no tandem_search_spaces expression to write into`);
  const separators = bracket(sqliteSeparators());
  return text.replace(CLASS, (_, open: string, close: string) => `${open}${separators}${close}`);
}

if (import.meta.main) {
  const text = pgSearchText();
  if (process.argv.includes("--check")) {
    if (readFileSync(PG_SEARCH_FILE, "utf8") !== text) {
      console.error(`${PG_SEARCH_FILE} does not cut words where SQLite does: run bun scripts/pg-search-words.ts`);
      process.exit(1);
    }
    console.log("migrations/pg/0002_search.sql is current");
  } else {
    writeFileSync(PG_SEARCH_FILE, text);
    console.log(`wrote ${PG_SEARCH_FILE}`);
  }
}
