/**
 * A whole database moved between the two engines, table by table: a SQLite database into an empty PostgreSQL one
 * (`migrate-to-postgres`, and `restore` on PostgreSQL, whose backups are SQLite files), and PostgreSQL's tables
 * into a new SQLite file (`backup` on PostgreSQL).
 *
 * What is copied is SQLite's tables and columns as this build's migrations make them, both ways: PostgreSQL's
 * schema is derived from them (schema.ts), and what PostgreSQL has beyond them (its own indexes of what the
 * tables hold) is made again from the rows, not carried.
 */
import type { Database } from "bun:sqlite";
import type { PgDatabase } from "./connection";
import { migrateEmptyPostgres } from "./migrate";
import { TEXT_AS_BYTES } from "./schema";

/** A copy that cannot proceed; the message is for the operator. */
export class CopyError extends Error {}

/** What a copy moved: each table with its rows, in the order copied. */
export interface CopyReport {
  tables: { name: string; rows: number }[];
  rows: number;
}

/** What a copy moved, for people: `45 tables, 3456 rows`. */
export function copied(report: CopyReport): string {
  return `${report.tables.length} tables, ${report.rows} rows`;
}

interface Table {
  name: string;
  columns: string[];
}

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Rows per INSERT into PostgreSQL, at most; fewer when they are wide or large. */
const INSERT_ROWS = 1000;
/** Parameters per INSERT (PostgreSQL takes 65,535). */
const INSERT_PARAMS = 30_000;
/** Bytes of text and blobs per INSERT, about: a statement's values cross to the PostgreSQL thread at once. */
const INSERT_BYTES = 4 * 1024 * 1024;
/**
 * Texts that may hold NUL on SQLite and are text on PostgreSQL, which holds none: search's indexed copy of a text
 * file's text has U+FFFD there (what PostgreSQL's search store writes, src/features/search/search.store.pg.ts).
 */
const NUL_AS_REPLACEMENT: ReadonlySet<string> = new Set(["search_docs.body"]);

/** Rows per FETCH from PostgreSQL: tables with blobs (file chunks of 256 KiB, documents) in small steps. */
const FETCH_ROWS = 500;
const FETCH_BLOB_ROWS = 16;

/**
 * The tables of a SQLite database that hold Tandem's rows, with their columns: not SQLite's own, not the
 * migration log (each engine has its own), not the search index's FTS5 tables (virtual, and their shadow
 * tables), which SQLite fills again from `search_docs` by its triggers.
 */
export function sqliteTables(sqlite: Database): Table[] {
  const names = (sqlite.query("PRAGMA table_list").all() as { schema: string; name: string; type: string }[])
    .filter((t) => t.schema === "main" && t.type === "table")
    .map((t) => t.name)
    .filter((name) => !name.startsWith("sqlite_") && name !== "__migrations")
    .sort();
  return names.map((name) => ({
    name,
    columns: (sqlite.query(`PRAGMA table_info(${q(name)})`).all() as { name: string }[]).map((c) => c.name),
  }));
}

/** PostgreSQL's tables in the connection's schema, each with its columns. */
function pgColumns(pg: PgDatabase): Map<string, Set<string>> {
  const rows = pg
    .query(
      "SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = current_schema()",
    )
    .all() as { t: string; c: string }[];
  const tables = new Map<string, Set<string>>();
  for (const { t, c } of rows) tables.set(t, (tables.get(t) ?? new Set()).add(c));
  return tables;
}

/** Every SQLite table and column has its PostgreSQL counterpart, or the two schemas are of different builds. */
function assertSameTables(tables: Table[], pg: PgDatabase): void {
  const columns = pgColumns(pg);
  for (const table of tables) {
    const there = columns.get(table.name);
    const missing = there ? table.columns.find((c) => !there.has(c)) : undefined;
    if (!there || missing !== undefined) {
      throw new CopyError(
        `the PostgreSQL database has no ${there ? `column ${table.name}.${missing}` : `table ${table.name}`}: it and the SQLite database are not of the same Tandem version`,
      );
    }
  }
}

/** The tables of the connection's schema, when it has any: a copy goes into an empty database only. */
function refuseNonEmpty(pg: PgDatabase, name: string): void {
  const tables = (
    pg
      .query(
        "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name",
      )
      .all() as { t: string }[]
  ).map((r) => r.t);
  if (tables.length === 0) return;
  const shown = tables.length > 3 ? `${tables.slice(0, 3).join(", ")}, …` : tables.join(", ");
  throw new CopyError(
    `the database ${name} is not empty (${tables.length} tables: ${shown}): give the URL of a new, empty database (createdb NAME)`,
  );
}

/**
 * The database's foreign keys, taken off for the copy and put back after it: a table's rows arrive before those
 * they point at (a file moved into a newer folder), and adding a key back checks every row at once.
 */
function foreignKeys(pg: PgDatabase): { table: string; name: string; definition: string }[] {
  return pg
    .query(
      `SELECT c.conrelid::regclass::text AS "table", c.conname AS name, pg_get_constraintdef(c.oid) AS definition
       FROM pg_constraint c WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace ORDER BY 1, 2`,
    )
    .all() as { table: string; name: string; definition: string }[];
}

/**
 * Each sequence that gives an `INTEGER PRIMARY KEY` its values (schema.ts) set to the largest value copied, so
 * the next row gets the one after, as SQLite would have given it.
 */
function advanceSequences(pg: PgDatabase): void {
  const sequences = pg
    .query(
      `SELECT s.relname AS sequence, t.relname AS "table", a.attname AS "column"
       FROM pg_class s
       JOIN pg_depend d ON d.objid = s.oid AND d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass AND d.deptype = 'a'
       JOIN pg_class t ON t.oid = d.refobjid
       JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = d.refobjsubid
       WHERE s.relkind = 'S' AND s.relnamespace = current_schema()::regnamespace`,
    )
    .all() as { sequence: string; table: string; column: string }[];
  for (const { sequence, table, column } of sequences) {
    pg.query(`SELECT setval(?::regclass, (SELECT max(${q(column)}) FROM ${q(table)}))`).run(q(sequence));
  }
}

/** The size a value adds to a statement, about. */
function sizeOf(value: unknown): number {
  if (typeof value === "string") return value.length;
  if (value instanceof Uint8Array) return value.byteLength;
  return 8;
}

/** Inserts SQLite's rows of one table into PostgreSQL, in batches; how many. */
function copyTableToPostgres(source: Database, pg: PgDatabase, table: Table): number {
  const columns = table.columns.map(q).join(", ");
  const one = `(${table.columns.map(() => "?").join(", ")})`;
  const perInsert = Math.max(1, Math.min(INSERT_ROWS, Math.floor(INSERT_PARAMS / table.columns.length)));
  let batch: unknown[] = [];
  let rows = 0;
  let pending = 0;
  let bytes = 0;
  const flush = () => {
    if (pending === 0) return;
    const values = Array.from({ length: pending }, () => one).join(", ");
    pg.query(`INSERT INTO ${q(table.name)} (${columns}) VALUES ${values}`).run(batch);
    rows += pending;
    batch = [];
    pending = 0;
    bytes = 0;
  };
  // Integers as SQLite holds them (64 bits), not rounded to a double on the way.
  const read = source.prepare(`SELECT ${columns} FROM ${q(table.name)}`).safeIntegers(true);
  // Row by row: a table of file chunks may be larger than the memory there is.
  // A text PostgreSQL keeps as its bytes (schema.ts `TEXT_AS_BYTES`) goes as them.
  const asBytes = new Set(table.columns.filter((c) => TEXT_AS_BYTES.has(`${table.name}.${c}`)));
  const nulReplaced = new Set(table.columns.filter((c) => NUL_AS_REPLACEMENT.has(`${table.name}.${c}`)));
  for (const row of read.iterate() as Iterable<Record<string, unknown>>) {
    for (const column of table.columns) {
      const given = row[column];
      const value =
        typeof given !== "string"
          ? given
          : asBytes.has(column)
            ? Buffer.from(given, "utf8")
            : nulReplaced.has(column)
              ? given.replaceAll("\0", "\uFFFD")
              : given;
      batch.push(value);
      bytes += sizeOf(value);
    }
    pending++;
    if (pending >= perInsert || bytes >= INSERT_BYTES) flush();
  }
  flush();
  read.finalize();
  return rows;
}

/**
 * Copies every row of the SQLite database `source` (migrated by this build) into the PostgreSQL database `pg`,
 * which must be empty: its schema is made by this build's migrations and filled in one transaction, so a copy
 * that fails leaves it as empty as it was. `also` runs last in that transaction (`migrate-to-postgres` stores the
 * data dir's VAPID key there). `name` names the database in messages (its URL without the password).
 */
export function copyToPostgres(source: Database, pg: PgDatabase, name: string, also?: () => void): CopyReport {
  const tables = sqliteTables(source);
  const broken = source.query("PRAGMA foreign_key_check").all() as { table: string }[];
  if (broken.length > 0) {
    throw new CopyError(
      `the SQLite database has ${broken.length} rows whose foreign key points at no row (the first in ${broken[0]?.table}): PostgreSQL would refuse them`,
    );
  }
  const report: CopyReport = { tables: [], rows: 0 };
  pg.transaction(() => {
    refuseNonEmpty(pg, name);
    migrateEmptyPostgres(pg);
    assertSameTables(tables, pg);
    const keys = foreignKeys(pg);
    for (const key of keys) pg.exec(`ALTER TABLE ${key.table} DROP CONSTRAINT ${q(key.name)}`);
    // One read transaction: every table as it was at one moment, even with a command writing beside.
    source.transaction(() => {
      for (const table of tables) {
        const rows = copyTableToPostgres(source, pg, table);
        report.tables.push({ name: table.name, rows });
        report.rows += rows;
      }
    })();
    for (const key of keys) pg.exec(`ALTER TABLE ${key.table} ADD CONSTRAINT ${q(key.name)} ${key.definition}`);
    advanceSequences(pg);
    // PostgreSQL's search index is made from search_docs as its rows arrive (the column `words` its trigger
    // keeps, and the GIN and trigram indexes of migrations/pg/0002_search.sql): nothing to rebuild.
    also?.();
  })();
  // The planner's statistics of tables that were empty a moment ago.
  pg.exec("ANALYZE");
  return report;
}

/**
 * Copies every row of the PostgreSQL database `pg` into `target`, a SQLite database this build has just
 * migrated: the rows its migrations made (seeds) are replaced. PostgreSQL's rows are read in one read-only
 * snapshot, without the write lock: a consistent copy while every node goes on writing. The search index's FTS5
 * tables are filled by SQLite's triggers as `search_docs` is.
 */
export function copyFromPostgres(pg: PgDatabase, target: Database): CopyReport {
  const tables = sqliteTables(target);
  assertSameTables(tables, pg);
  const blobs = new Set(
    (
      pg
        .query(
          "SELECT DISTINCT table_name AS t FROM information_schema.columns WHERE table_schema = current_schema() AND data_type = 'bytea'",
        )
        .all() as { t: string }[]
    ).map((r) => r.t),
  );
  const report: CopyReport = { tables: [], rows: 0 };
  target.exec("PRAGMA foreign_keys = OFF");
  pg.snapshot(() => {
    target.transaction(() => {
      for (const table of tables) {
        target.exec(`DELETE FROM ${q(table.name)}`);
        const columns = table.columns.map(q).join(", ");
        const insert = target.prepare(
          `INSERT INTO ${q(table.name)} (${columns}) VALUES (${table.columns.map(() => "?").join(", ")})`,
        );
        const step = blobs.has(table.name) ? FETCH_BLOB_ROWS : FETCH_ROWS;
        pg.exec(`DECLARE tandem_copy NO SCROLL CURSOR FOR SELECT ${columns} FROM ${q(table.name)}`);
        let rows = 0;
        // A text PostgreSQL keeps as its bytes is text again in SQLite.
        const asText = table.columns.flatMap((c, i) => (TEXT_AS_BYTES.has(`${table.name}.${c}`) ? [i] : []));
        for (;;) {
          const fetched = pg.query(`FETCH FORWARD ${step} FROM tandem_copy`).values();
          for (const row of fetched) {
            for (const i of asText) {
              const value = row[i];
              if (value instanceof Uint8Array) row[i] = Buffer.from(value).toString("utf8");
            }
            insert.run(...(row as never[]));
          }
          rows += fetched.length;
          if (fetched.length < step) break;
        }
        pg.exec("CLOSE tandem_copy");
        insert.finalize();
        report.tables.push({ name: table.name, rows });
        report.rows += rows;
      }
    })();
  });
  target.exec("PRAGMA foreign_keys = ON");
  return report;
}
