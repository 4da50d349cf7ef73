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

export function migratePostgres(pg: PgDatabase): string[] {
  pg.transaction(() => {
    pg.exec(
      'CREATE TABLE IF NOT EXISTS "__migrations" ("tag" text COLLATE "C" PRIMARY KEY NOT NULL, "applied_at" bigint NOT NULL)',
    );
  })();
  const applied = new Set((pg.query('SELECT tag FROM "__migrations"').all() as { tag: string }[]).map((r) => r.tag));
  const known = new Set(knownPgMigrations());
  const newer = [...applied].find((tag) => !known.has(tag));
  if (newer !== undefined) {
    throw new Error(`the database comes from a newer Tandem (migration ${newer}): run that version or newer`);
  }
  const ran: string[] = [];
  for (const migration of PG_MIGRATIONS) {
    if (applied.has(migration.tag)) continue;
    pg.transaction(() => {
      // Another node may have applied it since the list was read: under the write lock, look again.
      if (pg.query('SELECT 1 FROM "__migrations" WHERE tag = ?').get(migration.tag)) return;
      for (const statement of migration.statements) pg.exec(statement);
      pg.query('INSERT INTO "__migrations" (tag, applied_at) VALUES (?, ?)').run(migration.tag, Date.now());
      ran.push(migration.tag);
    })();
  }
  return ran;
}
