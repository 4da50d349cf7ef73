/**
 * PostgreSQL's schema, derived from SQLite's: the SQLite migrations are the one source, and this reads the
 * database they make (its tables, columns, keys and indexes) and says the same in PostgreSQL's DDL.
 * `scripts/pg-schema.ts` writes the result to `migrations/pg/`, and a test checks the committed file is what the
 * migrations make today, so the two engines cannot drift apart.
 *
 * What differs, on purpose:
 * - INTEGER is `bigint` (SQLite's integers are 64-bit), TEXT is `text COLLATE "C"` (SQLite compares text by its
 *   bytes), BLOB is `bytea`; a boolean default (`false`) is the integer SQLite stores (0);
 * - an `INTEGER PRIMARY KEY` (SQLite's rowid, given when an insert leaves it null) gets a sequence and a trigger
 *   that give it the same way;
 * - a text that may hold NUL (`TEXT_AS_BYTES`), which PostgreSQL's text cannot, is `bytea`: its UTF-8 bytes;
 * - foreign keys are added after every table exists;
 * - the search index (FTS5 virtual tables and their triggers) is not derived: PostgreSQL's search has its own
 *   tables, in the hand-written part of the migration.
 */
import type { Database } from "bun:sqlite";

interface ColumnInfo {
  cid: number;
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
}

interface ForeignKeyInfo {
  id: number;
  seq: number;
  table: string;
  from: string;
  to: string | null;
  on_update: string;
  on_delete: string;
}

interface IndexInfo {
  name: string;
  unique: number;
  origin: string;
  partial: number;
}

/** Tables of SQLite's search index (FTS5 and its shadow tables), which PostgreSQL does not take. */
const SEARCH_FTS = /^search_(text|names)(_|$)/;

/**
 * Columns (`table.column`) whose text may hold NUL: a text file's text, kept as its bytes came. Their stores bind
 * and read them through `nulText` (db/client.ts).
 */
export const TEXT_AS_BYTES: ReadonlySet<string> = new Set(["file_docs.text"]);

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

function columnType(type: string): string {
  const t = type.toUpperCase();
  if (t.includes("INT")) return "bigint";
  if (t.includes("CHAR") || t.includes("TEXT") || t.includes("CLOB")) return 'text COLLATE "C"';
  if (t.includes("BLOB") || t === "") return "bytea";
  if (t.includes("REAL") || t.includes("FLOA") || t.includes("DOUB")) return "double precision";
  return "numeric";
}

function defaultValue(value: string): string {
  if (/^false$/i.test(value)) return "0";
  if (/^true$/i.test(value)) return "1";
  return value;
}

/** SQLite's index SQL in PostgreSQL's quoting. */
function indexSql(sql: string): string {
  return sql.replace(/`([^`]*)`/g, (_, name: string) => q(name));
}

/** The statements that make, in PostgreSQL, the tables SQLite's migrations made in `sqlite`. */
export function derivePgSchema(sqlite: Database): string[] {
  const tables = (
    sqlite
      .query(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> '__migrations' ORDER BY name",
      )
      .all() as { name: string; sql: string }[]
  ).filter((t) => !SEARCH_FTS.test(t.name) && !/^CREATE\s+VIRTUAL/i.test(t.sql));
  const creates: string[] = [];
  const after: string[] = [];
  for (const { name, sql } of tables) {
    const columns = sqlite.query(`PRAGMA table_info(${q(name)})`).all() as ColumnInfo[];
    const keys = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    const rowid = keys.length === 1 && keys[0]?.type.toUpperCase() === "INTEGER" && !/WITHOUT\s+ROWID/i.test(sql);
    const lines = columns.map((c) => {
      let line = `  ${q(c.name)} ${TEXT_AS_BYTES.has(`${name}.${c.name}`) ? "bytea" : columnType(c.type)}`;
      if (c.notnull || (rowid && c.pk)) line += " NOT NULL";
      if (c.dflt_value !== null) line += ` DEFAULT ${defaultValue(c.dflt_value)}`;
      return line;
    });
    if (keys.length > 0) lines.push(`  PRIMARY KEY (${keys.map((c) => q(c.name)).join(", ")})`);
    creates.push(`CREATE TABLE ${q(name)} (\n${lines.join(",\n")}\n)`);
    if (rowid) {
      const key = keys[0]?.name as string;
      const sequence = `${name}_${key}_seq`;
      creates.push(`CREATE SEQUENCE ${q(sequence)} OWNED BY ${q(name)}.${q(key)}`);
      creates.push(
        `CREATE FUNCTION ${q(`${name}_${key}_given`)}() RETURNS trigger LANGUAGE plpgsql AS $$\n` +
          "BEGIN\n" +
          `  IF NEW.${q(key)} IS NULL THEN NEW.${q(key)} := nextval('${sequence}'); END IF;\n` +
          "  RETURN NEW;\n" +
          "END $$",
      );
      creates.push(
        `CREATE TRIGGER ${q(`${name}_${key}_given`)} BEFORE INSERT ON ${q(name)} FOR EACH ROW EXECUTE FUNCTION ${q(`${name}_${key}_given`)}()`,
      );
    }
    const indexes = sqlite.query(`PRAGMA index_list(${q(name)})`).all() as IndexInfo[];
    for (const index of indexes.sort((a, b) => a.name.localeCompare(b.name))) {
      if (index.origin === "pk") continue;
      const row = sqlite.query("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?").get(index.name) as {
        sql: string | null;
      } | null;
      if (row?.sql) {
        creates.push(indexSql(row.sql));
        continue;
      }
      // A UNIQUE constraint of the table: SQLite's automatic index, said as a unique index.
      const cols = (sqlite.query(`PRAGMA index_info(${q(index.name)})`).all() as { name: string }[]).map((c) =>
        q(c.name),
      );
      creates.push(
        `CREATE UNIQUE INDEX ${q(`${name}_${index.name.replace(/^sqlite_autoindex_/, "")}`)} ON ${q(name)} (${cols.join(", ")})`,
      );
    }
    const foreign = sqlite.query(`PRAGMA foreign_key_list(${q(name)})`).all() as ForeignKeyInfo[];
    const byId = new Map<number, ForeignKeyInfo[]>();
    for (const fk of foreign) byId.set(fk.id, [...(byId.get(fk.id) ?? []), fk]);
    for (const [id, parts] of [...byId].sort((a, b) => a[0] - b[0])) {
      parts.sort((a, b) => a.seq - b.seq);
      const first = parts[0] as ForeignKeyInfo;
      const to = parts.map((p) => p.to);
      const target = to.every((t) => t !== null) ? ` (${to.map((t) => q(t as string)).join(", ")})` : "";
      let statement = `ALTER TABLE ${q(name)} ADD CONSTRAINT ${q(`${name}_fk${id}`)} FOREIGN KEY (${parts.map((p) => q(p.from)).join(", ")}) REFERENCES ${q(first.table)}${target}`;
      if (first.on_delete !== "NO ACTION") statement += ` ON DELETE ${first.on_delete}`;
      if (first.on_update !== "NO ACTION") statement += ` ON UPDATE ${first.on_update}`;
      after.push(statement);
    }
  }
  return [...creates, ...after];
}
