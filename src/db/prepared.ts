/**
 * Prepared statements for whole rows. An un-prepared drizzle query costs 45-90 µs to build; a prepared one
 * 3-4 µs to run: every statement on a request path is prepared once, on first use.
 */
import { eq, getTableColumns, getTableName, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { type Db, runUnanswered } from "./client";

/** A placeholder per column, named like the column's property, so a row object is the statement's input. */
function placeholders(
  table: SQLiteTable,
  except: readonly string[] = [],
): Record<string, ReturnType<typeof sql.placeholder>> {
  return Object.fromEntries(
    Object.keys(getTableColumns(table))
      .filter((key) => !except.includes(key))
      .map((key) => [key, sql.placeholder(key)]),
  );
}

/**
 * `INSERT` of a whole row: `.run(row)`. A plain bun:sqlite statement with a named parameter per column,
 * bound straight from the row object: drizzle's placeholder filling costs more than the insert's own work on
 * the hottest writes. Wrap it in `prepared()` so it is built on first use.
 */
export function insertRow(
  db: Db,
  table: SQLiteTable,
  /**
   * Nothing the caller does can make this insert fail (what it refers to was read in the same transaction; its
   * keys are new): on PostgreSQL it need not be waited for (`runUnanswered`).
   */
  options: { unanswered?: boolean } = {},
): { run(row: object): void } {
  const columns = Object.entries(getTableColumns(table));
  const names = columns.map(([, column]) => `"${column.name}"`).join(", ");
  const values = columns.map(([key]) => `$${key}`).join(", ");
  const statement = db.$client.prepare(`INSERT INTO "${getTableName(table)}" (${names}) VALUES (${values})`);
  if (options.unanswered) return { run: (row) => runUnanswered(statement, row as Record<string, unknown>) };
  return { run: (row) => void statement.run(row as never) };
}

/** `UPDATE` of every column of a row by its key column: `.run(row)`. Wrap it in `prepared()`. */
export function updateRow(db: Db, table: SQLiteTable, key: SQLiteColumn, keyProperty = "id") {
  return (
    db
      .update(table)
      // biome-ignore lint/suspicious/noExplicitAny: placeholders stand in for every column's value type.
      .set(placeholders(table, [keyProperty]) as any)
      .where(eq(key, sql.placeholder(keyProperty)))
      .prepare()
  );
}

/**
 * `UPDATE` of the columns a patch names, by its key: `(key, patch)`. One prepared statement per set of
 * columns, made on first use, so callers that write a few columns at a time never compile SQL again.
 */
export function patchUpdater<Row extends Record<string, unknown>>(
  /** A getter: stores create their statements before their fields are all set. */
  db: () => Db,
  table: SQLiteTable,
  key: SQLiteColumn,
  keyProperty = "id",
) {
  const statements = new Map<string, { run: (params: Record<string, unknown>) => void }>();
  return (keyValue: unknown, patch: Partial<Row>): void => {
    const columns = Object.keys(patch).filter((k) => k !== keyProperty && patch[k] !== undefined);
    if (columns.length === 0) return;
    const cacheKey = columns.join(",");
    let statement = statements.get(cacheKey);
    if (!statement) {
      statement = db()
        .update(table)
        // biome-ignore lint/suspicious/noExplicitAny: placeholders stand in for the patched columns' values.
        .set(Object.fromEntries(columns.map((k) => [k, sql.placeholder(k)])) as any)
        .where(eq(key, sql.placeholder(keyProperty)))
        .prepare();
      statements.set(cacheKey, statement);
    }
    const params: Record<string, unknown> = { [keyProperty]: keyValue };
    for (const k of columns) params[k] = patch[k];
    statement.run(params);
  };
}

/**
 * `UPDATE` of only the columns that differ between two versions of a row, by its key. SQLite maintains every
 * index that holds an assigned column, changed or not, so writing whole rows would rewrite all of a table's
 * indexes on each update.
 */
export function changedColumnsUpdater<Row extends Record<string, unknown>>(
  db: () => Db,
  table: SQLiteTable,
  key: SQLiteColumn,
  keyProperty = "id",
) {
  const update = patchUpdater<Row>(db, table, key, keyProperty);
  // The table's columns only: a row read with more (a task with its label ids) writes just its own fields.
  const columns = Object.keys(getTableColumns(table)).filter((k) => k !== keyProperty) as (keyof Row & string)[];
  return (before: Row, after: Row): void => {
    const changed: Partial<Row> = {};
    for (const k of columns) {
      if (after[k] !== before[k]) changed[k] = after[k];
    }
    update(after[keyProperty], changed);
  };
}
