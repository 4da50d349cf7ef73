/**
 * One `serve` per data dir. Two servers on one database would each keep their own copy of every open document
 * and of what they remember about access, and overwrite each other's edits. The lock is an exclusive SQLite
 * transaction held open on `tandem.lock` beside the database: the operating system's file lock behind it is
 * released when the process ends, however it ends, so a crash never leaves a stale lock behind.
 *
 * Only `serve` takes it: the CLI's short commands (`users`, `backup`, `provisioning`) are meant to run beside a
 * serving process, and go through SQLite's own locking.
 */
import { Database } from "bun:sqlite";
import { chmodSync, existsSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../config";
import { cannotOpen } from "./client";

export const LOCK_FILE = "tandem.lock";

/** Takes the data dir's lock, or throws ConfigError when another process holds it. Returns the release. */
export function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, LOCK_FILE);
  const created = !existsSync(path);
  let lock: Database;
  try {
    lock = new Database(path, { create: true });
    if (created) chmodSync(path, 0o600);
  } catch (error) {
    throw new ConfigError(cannotOpen(path, error).message);
  }
  try {
    lock.exec("PRAGMA busy_timeout = 0");
    lock.exec("BEGIN EXCLUSIVE");
  } catch (error) {
    lock.close();
    throw new ConfigError(whyNotLocked(dataDir, path, error));
  }
  return () => {
    lock.exec("ROLLBACK");
    lock.close();
  };
}

/**
 * Why the lock could not be taken: another server holds it (busy), or taking it failed for a reason of its own.
 * Taking it writes a small journal beside it, which a full disk refuses.
 */
function whyNotLocked(dataDir: string, path: string, error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === "SQLITE_BUSY" || code === "SQLITE_LOCKED") {
    return `${dataDir} is in use by another \`tandem serve\`: stop it first, or give another --data`;
  }
  if (code === "SQLITE_FULL") return `the disk holding ${dataDir} is full: free some space, then start again`;
  return cannotOpen(path, error).message;
}
