/**
 * The database of a configuration, opened and migrated: SQLite in the data dir, or the PostgreSQL database of
 * `TANDEM_DATABASE_URL`. The server and the CLI open it here, so both engines start the same way.
 */
import { type Connection, openDatabase, openPostgres } from "./client";
import { appliedMigrations, knownMigrations, migrate } from "./migrate";
import type { PgDatabase } from "./pg/connection";
import { migratePostgres, pgMigrationState } from "./pg/migrate";

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

/**
 * The database of a configuration opened as it is, not migrated, and whether it has every migration of this build:
 * a command beside a server of another version (`tandem backup` recording itself) leaves its schema alone.
 */
export function openAsIs(where: { dbPath: string; databaseUrl: string | null }): {
  conn: Connection;
  current: boolean;
} {
  const conn = where.databaseUrl === null ? openDatabase(where.dbPath) : openPostgres(where.databaseUrl);
  try {
    if (conn.engine === "postgres") {
      return { conn, current: pgMigrationState(conn.sqlite as unknown as PgDatabase).missing.length === 0 };
    }
    const applied = new Set(appliedMigrations(conn.sqlite));
    return { conn, current: knownMigrations().every((tag) => applied.has(tag)) };
  } catch (error) {
    conn.sqlite.close();
    throw error;
  }
}
