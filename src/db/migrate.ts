/** Applies the embedded migrations in journal order, each in its own transaction. */
import type { Database } from "bun:sqlite";
import { embeddedMigrations } from "./migrations.macro" with { type: "macro" };

const MIGRATIONS = embeddedMigrations();

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
  sqlite.exec("PRAGMA foreign_keys = OFF");
  try {
    for (const migration of pending) {
      sqlite
        .transaction(() => {
          for (const statement of migration.statements) sqlite.exec(statement);
          sqlite.query("INSERT INTO __migrations (tag, applied_at) VALUES (?, ?)").run(migration.tag, Date.now());
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
  return pending.map((m) => m.tag);
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
