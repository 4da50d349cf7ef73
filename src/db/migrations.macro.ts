/**
 * Bun macro: runs at bundle time (and at transpile time under `bun run`) and inlines every migration of
 * `migrations/` in journal order, so the compiled binary needs no folder on disk.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** One migration as drizzle-kit wrote it. */
export interface EmbeddedMigration {
  tag: string;
  statements: string[];
}

/** Reads `migrations/meta/_journal.json` and the SQL files it names. */
export function embeddedMigrations(): EmbeddedMigration[] {
  const dir = join(import.meta.dir, "..", "..", "migrations");
  const journal = JSON.parse(readFileSync(join(dir, "meta", "_journal.json"), "utf8")) as {
    entries: { idx: number; tag: string }[];
  };
  return [...journal.entries]
    .sort((a, b) => a.idx - b.idx)
    .map((entry) => ({
      tag: entry.tag,
      statements: readFileSync(join(dir, `${entry.tag}.sql`), "utf8")
        .split("--> statement-breakpoint")
        .map((s) => s.trim())
        .filter((s) => s.length > 0),
    }));
}

/**
 * PostgreSQL's migrations, `migrations/pg/*.sql` in the order of their names: the schema derived from SQLite's
 * migrations (`scripts/pg-schema.ts`) and what is PostgreSQL's own (functions, search).
 */
export function embeddedPgMigrations(): EmbeddedMigration[] {
  const dir = join(import.meta.dir, "..", "..", "migrations", "pg");
  return readdirSync(dir)
    .filter((name) => name.endsWith(".sql"))
    .sort()
    .map((name) => ({
      tag: `pg/${name.slice(0, -".sql".length)}`,
      statements: readFileSync(join(dir, name), "utf8")
        .split("--> statement-breakpoint")
        .map((s) => s.trim())
        .filter((s) => s.length > 0),
    }));
}
