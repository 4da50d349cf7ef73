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
  sqlite.exec("CREATE TABLE IF NOT EXISTS __migrations (tag TEXT PRIMARY KEY NOT NULL, applied_at INTEGER NOT NULL)");
  const applied = new Set((sqlite.query("SELECT tag FROM __migrations").all() as { tag: string }[]).map((r) => r.tag));
  const known = new Set(MIGRATIONS.map((m) => m.tag));
  const newer = [...applied].find((tag) => !known.has(tag));
  if (newer !== undefined) {
    throw new MigrationError(`the database comes from a newer Tandem (migration ${newer}): run that version or newer`);
  }
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
