/**
 * Applies the embedded migrations in journal order, then the steps written in code, each in its own
 * transaction and each once (recorded by tag in `__migrations`).
 */
import type { Database } from "bun:sqlite";
import { nameKey } from "../lib/text";
import { embeddedMigrations } from "./migrations.macro" with { type: "macro" };

const SQL_MIGRATIONS = embeddedMigrations();

/** Tables whose `name_key` is `nameKey(name)`, with the id column of their rows. */
const KEYED_TABLES = ["file_nodes", "chat_rooms", "roles", "service_accounts"];

/**
 * Migration 0002 filled the name keys with SQLite's `lower()`, which folds ASCII only: `Über` kept `Über`
 * while a name made since gets `über`, so the two did not clash and a search missed the old one. The keys
 * are made again as the app makes them. Where two siblings now share a key (both names were made in the
 * meantime), the older one's key gets a suffix of U+0001 (which no name holds): neither name changes, both
 * stay findable by name, and a new sibling of that name is still refused.
 */
function unicodeNameKeys(sqlite: Database): void {
  for (const table of KEYED_TABLES) {
    const rows = sqlite.query(`SELECT id, name, name_key FROM ${table}`).all() as {
      id: string;
      name: string;
      name_key: string;
    }[];
    const update = sqlite.query(`UPDATE ${table} SET name_key = ? WHERE id = ?`);
    for (const row of rows) {
      const key = nameKey(row.name);
      if (key === row.name_key) continue;
      for (let suffix = ""; ; suffix += "\u0001") {
        try {
          update.run(key + suffix, row.id);
          break;
        } catch (error) {
          if (!String((error as Error).message).includes("UNIQUE")) throw error;
        }
      }
    }
  }
}

/** A migration: SQL statements drizzle-kit wrote, or a step SQL cannot express, run once in order. */
type Migration = { tag: string; statements: string[] } | { tag: string; run: (sqlite: Database) => void };

/** Steps in code come after the SQL migrations of their time; each tag is applied once, like the others. */
const MIGRATIONS: Migration[] = [...SQL_MIGRATIONS, { tag: "code_0001_unicode_name_keys", run: unicodeNameKeys }];

/** Thrown when a migration leaves a foreign-key violation behind. */
export class MigrationError extends Error {}

/**
 * drizzle-kit's table-recreate migrations toggle foreign_keys inside a transaction, where it does nothing:
 * with foreign keys on, dropping a parent table would cascade-delete its children. So foreign keys are off
 * for the whole run and checked once after it.
 */
export function migrate(sqlite: Database): string[] {
  assertNotNewer(sqlite);
  sqlite.exec("CREATE TABLE IF NOT EXISTS __migrations (tag TEXT PRIMARY KEY NOT NULL, applied_at INTEGER NOT NULL)");
  const applied = new Set(appliedMigrations(sqlite));
  const pending = MIGRATIONS.filter((m) => !applied.has(m.tag));
  if (pending.length === 0) return [];
  const ran: string[] = [];
  sqlite.exec("PRAGMA foreign_keys = OFF");
  try {
    for (const migration of pending) {
      sqlite
        .transaction(() => {
          // Another process on the same fresh data dir (a `setup` beside the first `serve`) may have applied it
          // since the list was read: under the write lock, look again.
          if (sqlite.query("SELECT 1 FROM __migrations WHERE tag = ?").get(migration.tag)) return;
          if ("run" in migration) migration.run(sqlite);
          else for (const statement of migration.statements) sqlite.exec(statement);
          sqlite.query("INSERT INTO __migrations (tag, applied_at) VALUES (?, ?)").run(migration.tag, Date.now());
          ran.push(migration.tag);
        })
        .immediate();
    }
    const violations = sqlite.query("PRAGMA foreign_key_check").all();
    if (violations.length > 0) {
      throw new MigrationError(`migrations left ${violations.length} foreign key violation(s)`);
    }
  } finally {
    sqlite.exec("PRAGMA foreign_keys = ON");
  }
  return ran;
}

/** Tags of the migrations this build knows, in order. */
export function knownMigrations(): string[] {
  return MIGRATIONS.map((m) => m.tag);
}

/** Tags of the migrations applied to a database; none for a database no Tandem has migrated. Reads only. */
export function appliedMigrations(sqlite: Database): string[] {
  const table = sqlite.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__migrations'").get();
  if (!table) return [];
  return (sqlite.query("SELECT tag FROM __migrations").all() as { tag: string }[]).map((r) => r.tag);
}

/** The first applied migration this build does not know: the database comes from a newer Tandem. */
export function newerMigration(sqlite: Database): string | undefined {
  const known = new Set(knownMigrations());
  return appliedMigrations(sqlite).find((tag) => !known.has(tag));
}

/** Refuses a database a newer Tandem has migrated; reads only, so it may run before anything is written. */
export function assertNotNewer(sqlite: Database): void {
  const newer = newerMigration(sqlite);
  if (newer !== undefined) {
    throw new MigrationError(`the database comes from a newer Tandem (migration ${newer}): run that version or newer`);
  }
}
