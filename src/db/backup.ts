/**
 * Online backup and restore. A backup is `VACUUM INTO` a new file: a consistent snapshot taken inside one read
 * transaction, safe while the server writes (copying the db and wal files is not). Everything Tandem stores
 * lives in the database, so the one file is the whole backup; the generated secrets of the data dir are not
 * in it, by design.
 *
 * On PostgreSQL a backup is the same kind of file, written from PostgreSQL's tables: one format, so a backup of
 * either engine restores into either (a SQLite install moves to PostgreSQL, or back, through a backup), it is
 * checked the same way, and it needs no PostgreSQL tools. `pg_dump` of the database is a backup too
 * (docs/operations.md), for PostgreSQL's own tools.
 */
import { Database } from "bun:sqlite";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { cannotOpen } from "./client";
import { appliedMigrations, knownMigrations, migrate, newerMigration } from "./migrate";
import type { PgDatabase } from "./pg/connection";
import { type CopyReport, copyFromPostgres, copyToPostgres } from "./pg/copy";
import { knownPgMigrations, pgMigrationState } from "./pg/migrate";

/** A backup or restore that cannot proceed; the message is for the operator. */
export class BackupError extends Error {}

/** What a backup or restore did. */
export interface BackupResult {
  path: string;
  bytes: number;
  migrations: number;
}

/**
 * SQLite's check lists every problem it finds, a database header line first; the operator gets one line: the
 * first problem and how many there are (contract §1: a one-line reason).
 */
function firstProblem(rows: { quick_check: string }[]): string {
  const problems = rows
    .flatMap((row) => row.quick_check.split("\n"))
    .map((line) => line.trim())
    .filter((line) => line !== "" && !/^\*\*\* in database \w+ \*\*\*$/.test(line));
  const first = problems[0] ?? "SQLite's check failed";
  return problems.length > 1 ? `${first} (and ${problems.length - 1} more problems)` : first;
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
    if (check[0]?.quick_check !== "ok") throw new BackupError(`${path} is damaged: ${firstProblem(check)}`);
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

/** Whether a process of this id runs (ours to check: a partial copy of a process that is gone is left over). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}

/** Removes what backups to `out` killed outright left: `out.partial-PID` (and its journal) of a gone process. */
function removeLeftovers(out: string): void {
  const prefix = `${basename(out)}.partial-`;
  for (const name of readdirSync(dirname(out))) {
    const pid = name.startsWith(prefix) ? /^(\d+)(-journal)?$/.exec(name.slice(prefix.length))?.[1] : undefined;
    if (pid !== undefined && !running(Number(pid))) rmSync(join(dirname(out), name), { force: true });
  }
}

/**
 * Writes a consistent copy of the database at `dbPath` to `out`, which must not exist (see `writeBackup`).
 */
export function backupDatabase(dbPath: string, out: string): BackupResult {
  if (!existsSync(dbPath)) throw new BackupError(`no database at ${dbPath}`);
  return writeBackup(out, (partial) => {
    let db: Database;
    try {
      db = new Database(dbPath);
    } catch (error) {
      throw new BackupError(cannotOpen(dbPath, error).message);
    }
    try {
      // A backup that would not restore is no backup: refused before anything is written.
      const newer = newerMigration(db);
      if (newer !== undefined) throw new BackupError(`${dbPath} comes from a newer Tandem (migration ${newer})`);
      db.exec("PRAGMA busy_timeout = 10000");
      db.query("VACUUM INTO ?").run(partial);
    } catch (error) {
      if (error instanceof BackupError) throw error;
      const why = cannotOpen(dbPath, error).message;
      throw new BackupError(why.startsWith("the database") ? why : `backup failed: ${(error as Error).message}`);
    } finally {
      db.close();
    }
  });
}

/**
 * A backup of the PostgreSQL database `pg`: a SQLite database file, made by this build's migrations and filled with
 * every table's rows as they were at one moment (pg/copy.ts), while the nodes go on writing. The same format as a
 * backup on SQLite, so either restores on either engine. `name` names the database in messages.
 */
export function backupPostgres(pg: PgDatabase, name: string, out: string): BackupResult & CopyReport {
  const { missing, newer } = pgMigrationState(pg);
  if (newer !== undefined) throw new BackupError(`${name} comes from a newer Tandem (migration ${newer})`);
  if (missing.length === knownPgMigrations().length) throw new BackupError(`${name} holds no Tandem database`);
  if (missing.length > 0) {
    throw new BackupError(
      `${name} is not yet migrated to this version of Tandem: back it up with the version that serves it, or start this version's \`tandem serve\` first`,
    );
  }
  let report: CopyReport = { tables: [], rows: 0 };
  const result = writeBackup(out, (partial) => {
    const db = new Database(partial);
    try {
      migrate(db);
      report = copyFromPostgres(pg, db);
    } finally {
      db.close();
    }
  });
  return { ...result, ...report };
}

/**
 * Writes a backup to `out`, which must not exist: `write` makes it as `out.partial-PID` (created empty and owner-only,
 * as it holds password hashes), which is checked and renamed when complete, so `out` never names half a backup. A
 * backup that fails removes its partial file, and one killed outright leaves it for the next backup to the same `out`
 * to remove. Two backups to one `out` at once each write their own; the second to finish finds `out` taken.
 */
function writeBackup(out: string, write: (partial: string) => void): BackupResult {
  if (existsSync(out)) throw new BackupError(`${out} already exists`);
  if (!existsSync(dirname(out))) throw new BackupError(`directory ${dirname(out)} does not exist`);
  removeLeftovers(out);
  const partial = `${out}.partial-${process.pid}`;
  const removePartial = () => {
    for (const file of [partial, `${partial}-journal`]) rmSync(file, { force: true });
  };
  try {
    // Owner-only from its first byte (SQLite fills an empty file it finds).
    writeFileSync(partial, "", { mode: 0o600, flag: "wx" });
    write(partial);
    const migrations = checkDatabase(partial);
    publish(partial, out, `${out} already exists`);
    return { path: out, migrations, bytes: statSync(out).size };
  } catch (error) {
    removePartial();
    throw error;
  }
}

/**
 * Gives the finished `partial` its name `out`, unless `out` exists by then (BackupError `taken`). A hard link
 * claims the name in one step (a check, then a rename, let two copies finishing together both succeed, the
 * second replacing the first's file); where the filesystem has no hard links, the check and the rename are the
 * best there is.
 */
function publish(partial: string, out: string, taken: string): void {
  try {
    linkSync(partial, out);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw new BackupError(taken);
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "EMLINK") throw error;
    if (existsSync(out)) throw new BackupError(taken);
    renameSync(partial, out);
    return;
  }
  rmSync(partial);
}

/** The copies that restores cut off (killed, a power loss) left in `dataDir`. */
export function interruptedRestores(dataDir: string): string[] {
  if (!existsSync(dataDir)) return [];
  return readdirSync(dataDir).filter((name) => /^\.restore-\d+\.db$/.test(name));
}

/** Restores a backup into a data dir that has no database yet. */
export function restoreDatabase(from: string, dbPath: string): BackupResult {
  const taken = `${dbPath} already exists: restore needs an empty data dir`;
  if (!existsSync(from)) throw new BackupError(`${from} does not exist`);
  if (existsSync(dbPath)) throw new BackupError(taken);
  // Left by a database removed by hand: SQLite would replay it over the restored file and break it.
  for (const leftover of [`${dbPath}-wal`, `${dbPath}-shm`]) {
    if (existsSync(leftover)) {
      throw new BackupError(
        `${leftover} is left from an earlier database: remove it, or restore into an empty data dir`,
      );
    }
  }
  const migrations = checkDatabase(from);
  // A restore cut off earlier left its copy under this name: ours to remove (not one that is still copying).
  for (const name of interruptedRestores(dirname(dbPath))) {
    if (!running(Number(/\d+/.exec(name)?.[0]))) rmSync(join(dirname(dbPath), name), { force: true });
  }
  const partial = join(dirname(dbPath), `.restore-${process.pid}.db`);
  try {
    copyFileSync(from, partial);
    chmodSync(partial, 0o600);
    publish(partial, dbPath, taken);
  } catch (error) {
    // A full disk, say, or another restore was first: nothing of this copy stays.
    rmSync(partial, { force: true });
    if (error instanceof BackupError) throw error;
    throw new BackupError(`restore failed: ${(error as Error).message}`);
  }
  return { path: dbPath, bytes: statSync(dbPath).size, migrations };
}

/**
 * Restores a backup (of either engine: both are SQLite files) into the PostgreSQL database `pg`, which must be
 * empty (pg/copy.ts). A backup of an older Tandem is migrated first, in a copy made in `workDir`: the file given
 * stays as it is. `name` names the database in messages.
 */
export function restorePostgres(
  from: string,
  pg: PgDatabase,
  name: string,
  workDir: string,
): BackupResult & CopyReport {
  if (!existsSync(from)) throw new BackupError(`${from} does not exist`);
  const migrations = checkDatabase(from);
  const current = migrations === knownMigrations().length;
  const copy = join(workDir, `.pg-restore-${process.pid}.db`);
  try {
    if (!current) copyFileSync(from, copy);
    const db = new Database(current ? from : copy, { readonly: current });
    try {
      if (!current) migrate(db);
      const report = copyToPostgres(db, pg, name);
      return { path: name, bytes: statSync(from).size, migrations, ...report };
    } finally {
      db.close();
    }
  } finally {
    for (const file of [copy, `${copy}-wal`, `${copy}-shm`, `${copy}-journal`]) rmSync(file, { force: true });
  }
}
