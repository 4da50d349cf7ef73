/**
 * Online backup and restore. A backup is `VACUUM INTO` a new file: a consistent snapshot taken inside one read
 * transaction, safe while the server writes (copying the db and wal files is not). Everything Tandem stores
 * lives in the database, so the one file is the whole backup; the generated secrets of the data dir are not
 * in it, by design.
 */
import { Database } from "bun:sqlite";
import { chmodSync, copyFileSync, existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { appliedMigrations, newerMigration } from "./migrate";

/** A backup or restore that cannot proceed; the message is for the operator. */
export class BackupError extends Error {}

/** What a backup or restore did. */
export interface BackupResult {
  path: string;
  bytes: number;
  migrations: number;
}

function checkDatabase(path: string): number {
  let db: Database;
  try {
    db = new Database(path, { readonly: true });
  } catch {
    throw new BackupError(`${path} is not a SQLite database`);
  }
  try {
    const check = db.query("PRAGMA quick_check").all() as { quick_check: string }[];
    if (check[0]?.quick_check !== "ok") throw new BackupError(`${path} is damaged: ${check[0]?.quick_check ?? "?"}`);
    const tags = appliedMigrations(db);
    if (tags.length === 0) throw new BackupError(`${path} is not a Tandem database`);
    const newer = newerMigration(db);
    if (newer !== undefined) throw new BackupError(`${path} comes from a newer Tandem (migration ${newer})`);
    return tags.length;
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${path} is not a readable SQLite database`);
  } finally {
    db.close();
  }
}

/** Writes a consistent copy of the database at `dbPath` to `out`, which must not exist. */
export function backupDatabase(dbPath: string, out: string): BackupResult {
  if (!existsSync(dbPath)) throw new BackupError(`no database at ${dbPath}`);
  if (existsSync(out)) throw new BackupError(`${out} already exists`);
  if (!existsSync(dirname(out))) throw new BackupError(`directory ${dirname(out)} does not exist`);
  const db = new Database(dbPath);
  try {
    db.exec("PRAGMA busy_timeout = 10000");
    // Owner-only from its first byte (SQLite fills an empty file it finds): a backup holds password hashes.
    writeFileSync(out, "", { mode: 0o600, flag: "wx" });
    db.query("VACUUM INTO ?").run(out);
  } catch (error) {
    rmSync(out, { force: true });
    throw new BackupError(`backup failed: ${(error as Error).message}`);
  } finally {
    db.close();
  }
  try {
    return { path: out, migrations: checkDatabase(out), bytes: statSync(out).size };
  } catch (error) {
    // A backup that would not restore (a newer Tandem's database) is no backup: nothing is left behind.
    rmSync(out, { force: true });
    throw error;
  }
}

/** Restores a backup into a data dir that has no database yet. */
export function restoreDatabase(from: string, dbPath: string): BackupResult {
  if (!existsSync(from)) throw new BackupError(`${from} does not exist`);
  if (existsSync(dbPath)) throw new BackupError(`${dbPath} already exists: restore needs an empty data dir`);
  // Left by a database removed by hand: SQLite would replay it over the restored file and break it.
  for (const leftover of [`${dbPath}-wal`, `${dbPath}-shm`]) {
    if (existsSync(leftover)) {
      throw new BackupError(
        `${leftover} is left from an earlier database: remove it, or restore into an empty data dir`,
      );
    }
  }
  const migrations = checkDatabase(from);
  // A restore cut off earlier left its copy under this name: ours to remove.
  for (const name of readdirSync(dirname(dbPath))) {
    if (/^\.restore-\d+\.db$/.test(name)) rmSync(join(dirname(dbPath), name), { force: true });
  }
  const partial = join(dirname(dbPath), `.restore-${process.pid}.db`);
  copyFileSync(from, partial);
  chmodSync(partial, 0o600);
  renameSync(partial, dbPath);
  return { path: dbPath, bytes: statSync(dbPath).size, migrations };
}
