/**
 * Prepared statements for whole rows. An un-prepared drizzle query costs 45-90 µs to build; a prepared one
 * 3-4 µs to run: every statement on a request path is prepared once, on first use.
 */
import { eq, getTableColumns, getTableName, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "./client";

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
export function insertRow(db: Db, table: SQLiteTable): { run(row: object): void } {
  const columns = Object.entries(getTableColumns(table));
  const names = columns.map(([, column]) => `"${column.name}"`).join(", ");
  const values = columns.map(([key]) => `$${key}`).join(", ");
  const statement = db.$client.prepare(`INSERT INTO "${getTableName(table)}" (${names}) VALUES (${values})`);
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
 * `UPDATE` of only the columns that differ between two versions of a row, by its key. SQLite maintains every
 * index that holds an assigned column, changed or not, so writing whole rows would rewrite all of a table's
 * indexes on each update. One prepared statement per set of changed columns, made on first use.
 */
export function changedColumnsUpdater<Row extends Record<string, unknown>>(
  /** A getter: stores create their statements before their fields are all set. */
  db: () => Db,
  table: SQLiteTable,
  key: SQLiteColumn,
  keyProperty = "id",
) {
  const statements = new Map<string, { run: (params: Record<string, unknown>) => void }>();
  return (before: Row, after: Row): void => {
    const changed = Object.keys(after).filter((k) => k !== keyProperty && after[k] !== before[k]);
    if (changed.length === 0) return;
    const cacheKey = changed.join(",");
    let statement = statements.get(cacheKey);
    if (!statement) {
      statement = db()
        .update(table)
        // biome-ignore lint/suspicious/noExplicitAny: placeholders stand in for the changed columns' values.
        .set(Object.fromEntries(changed.map((k) => [k, sql.placeholder(k)])) as any)
        .where(eq(key, sql.placeholder(keyProperty)))
        .prepare();
      statements.set(cacheKey, statement);
    }
    const params: Record<string, unknown> = { [keyProperty]: after[keyProperty] };
    for (const k of changed) params[k] = after[k];
    statement.run(params);
  };
}
