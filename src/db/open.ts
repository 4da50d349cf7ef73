/**
 * The database of a configuration, opened and migrated: SQLite in the data dir, or the PostgreSQL database of
 * `TANDEM_DATABASE_URL`. The server and the CLI open it here, so both engines start the same way.
 */
import { type Connection, openDatabase, openPostgres } from "./client";
import { migrate } from "./migrate";
import type { PgDatabase } from "./pg/connection";
import { migratePostgres } from "./pg/migrate";

export function openMigrated(where: { dbPath: string; databaseUrl: string | null }): {
  conn: Connection;
  applied: string[];
} {
  if (where.databaseUrl === null) {
    const conn = openDatabase(where.dbPath);
    try {
      return { conn, applied: migrate(conn.sqlite) };
    } catch (error) {
      conn.sqlite.close();
      throw error;
    }
  }
  const conn = openPostgres(where.databaseUrl);
  try {
    return { conn, applied: migratePostgres(conn.sqlite as unknown as PgDatabase) };
  } catch (error) {
    conn.sqlite.close();
    throw error;
  }
}
