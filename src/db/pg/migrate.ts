/**
 * Applies PostgreSQL's migrations (`migrations/pg/`), each once and in its own transaction, recorded by tag in
 * `__migrations` as SQLite's are. Nodes starting together take turns: each transaction holds the write lock.
 */
import { embeddedPgMigrations } from "../migrations.macro" with { type: "macro" };
import type { PgDatabase } from "./connection";

const PG_MIGRATIONS = embeddedPgMigrations();

/** Tags of PostgreSQL's migrations this build knows. */
export function knownPgMigrations(): string[] {
  return PG_MIGRATIONS.map((m) => m.tag);
}

const CREATE_LOG =
  'CREATE TABLE IF NOT EXISTS "__migrations" ("tag" text COLLATE "C" PRIMARY KEY NOT NULL, "applied_at" bigint NOT NULL)';

/** Runs one migration's statements and records its tag, in the caller's transaction. */
function apply(pg: PgDatabase, migration: { tag: string; statements: string[] }): void {
  for (const statement of migration.statements) pg.exec(statement);
  pg.query('INSERT INTO "__migrations" (tag, applied_at) VALUES (?, ?)').run(migration.tag, Date.now());
}

/**
 * Every migration, in the caller's transaction, on a database that has none yet: `migrate-to-postgres` and
 * `restore` make the schema and copy the rows in one transaction, so a copy that fails leaves the database empty.
 */
export function migrateEmptyPostgres(pg: PgDatabase): void {
  pg.exec(CREATE_LOG);
  for (const migration of PG_MIGRATIONS) apply(pg, migration);
}

/** The tags of this build's migrations the database lacks, or the first one it has that this build does not know. */
export function pgMigrationState(pg: PgDatabase): { missing: string[]; newer: string | undefined } {
  const exists = pg
    .query(
      "SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = '__migrations'",
    )
    .get();
  const applied = new Set(
    exists ? (pg.query('SELECT tag FROM "__migrations"').all() as { tag: string }[]).map((r) => r.tag) : [],
  );
  const known = knownPgMigrations();
  return { missing: known.filter((tag) => !applied.has(tag)), newer: [...applied].find((tag) => !known.includes(tag)) };
}

export function migratePostgres(pg: PgDatabase): string[] {
  pg.transaction(() => {
    pg.exec(CREATE_LOG);
  })();
  const { missing, newer } = pgMigrationState(pg);
  if (newer !== undefined) {
    throw new Error(`the database comes from a newer Tandem (migration ${newer}): run that version or newer`);
  }
  const ran: string[] = [];
  for (const migration of PG_MIGRATIONS) {
    if (!missing.includes(migration.tag)) continue;
    pg.transaction(() => {
      // Another node may have applied it since the list was read: under the write lock, look again.
      if (pg.query('SELECT 1 FROM "__migrations" WHERE tag = ?').get(migration.tag)) return;
      apply(pg, migration);
      ran.push(migration.tag);
    })();
  }
  return ran;
}
