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

export const LOCK_FILE = "tandem.lock";

/** Takes the data dir's lock, or throws ConfigError when another process holds it. Returns the release. */
export function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, LOCK_FILE);
  const created = !existsSync(path);
  const lock = new Database(path, { create: true });
  if (created) chmodSync(path, 0o600);
  try {
    lock.exec("PRAGMA busy_timeout = 0");
    lock.exec("BEGIN EXCLUSIVE");
  } catch {
    lock.close();
    throw new ConfigError(`${dataDir} is in use by another \`tandem serve\`: stop it first, or give another --data`);
  }
  return () => {
    lock.exec("ROLLBACK");
    lock.close();
  };
}
