/** Opens the SQLite database with the pragmas every connection needs, and wraps it in drizzle. */
import { Database } from "bun:sqlite";
import { accessSync, chmodSync, constants, existsSync, mkdirSync, statfsSync } from "node:fs";
import { dirname } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { lazy } from "../lib/lazy";
import { PgDatabase, PgStatement, redact } from "./pg/connection";

/**
 * The drizzle database every store works on: the query builder only (stores import their tables), since
 * handing drizzle the schema for its relational queries costs startup time and nothing here uses them.
 */
export type Db = ReturnType<typeof drizzle>;

/** A drizzle transaction handle, for store functions that take part in a caller's transaction. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** Either a database or a transaction: stores accept both. */
export type DbOrTx = Db | Tx;

/** The raw connection beside its drizzle wrapper. */
export interface Connection {
  /** SQLite's connection, or PostgreSQL's behind the same interface (pg/connection.ts). */
  readonly sqlite: Database;
  readonly db: Db;
  /** Which engine: `sqlite` (the data dir's file) or `postgres` (TANDEM_DATABASE_URL). */
  readonly engine: "sqlite" | "postgres";
}

/**
 * bun:sqlite leaves synchronous=FULL and foreign keys off; WAL + NORMAL is durable at each checkpoint and
 * loses nothing on a process crash. secure_delete zeroes freed pages so deleted secrets leave the file.
 * journal_size_limit truncates the WAL after checkpoints so it cannot stay at its high-water mark.
 */
export function applyPragmas(sqlite: Database): void {
  // First: switching to WAL takes a lock that another process opening the same new file may hold.
  sqlite.exec("PRAGMA busy_timeout = 5000");
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA secure_delete = ON");
  sqlite.exec("PRAGMA journal_size_limit = 67108864");
  sqlite.exec("PRAGMA temp_store = MEMORY");
  sqlite.exec("PRAGMA cache_size = -16000");
}

/** How long opening waits for another process that holds a new database's lock while it sets it up. */
const OPEN_WAIT_MS = 5000;

/**
 * `applyPragmas`, tried again while another process holds the lock: two processes opening the same new file
 * at once (`tandem setup` run twice) can meet where SQLite answers "database is locked" without waiting
 * (its busy timeout does not cover every lock of the switch to WAL). The pragmas can all be applied again.
 */
function applyPragmasWhenFree(sqlite: Database): void {
  const deadline = Date.now() + OPEN_WAIT_MS;
  for (;;) {
    try {
      applyPragmas(sqlite);
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== "SQLITE_BUSY" || Date.now() > deadline) throw error;
      Bun.sleepSync(10);
    }
  }
}

/** Opens (creating when missing) the database file at `path`. */
export function openDatabase(path: string): Connection {
  const created = !existsSync(path);
  assertWritable(path);
  let sqlite: Database | undefined;
  try {
    sqlite = new Database(path, { create: true, strict: true });
    // Password hashes and encrypted secrets live here: owner-only, whatever the umask (WAL files follow).
    if (created) chmodSync(path, 0o600);
    applyPragmasWhenFree(sqlite);
  } catch (error) {
    sqlite?.close();
    throw cannotOpen(path, error);
  }
  return { sqlite, db: drizzle({ client: sqlite }), engine: "sqlite" };
}

/** Connects to the PostgreSQL database at `url` (pg/connection.ts: the same interface as SQLite's). */
export function openPostgres(url: string): Connection {
  let pg: PgDatabase;
  try {
    pg = new PgDatabase(url);
  } catch (error) {
    throw new Error(`cannot connect to the database ${redact(url)}: ${error instanceof Error ? error.message : error}`);
  }
  const sqlite = pg as unknown as Database;
  return { sqlite, db: drizzle({ client: sqlite }), engine: "postgres" };
}

/**
 * SQLite opens a file it may not write read-only without a word, and the first write then fails with "attempt
 * to write a readonly database", naming nothing. So the database, its WAL and shared-memory files (a failed
 * start may leave a read-only one behind) and their directory are checked first, by name.
 */
function assertWritable(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (!existsSync(file)) continue;
    try {
      accessSync(file, constants.R_OK | constants.W_OK);
    } catch {
      throw cannotOpen(file, new Error("this user may not read and write it"));
    }
  }
  try {
    accessSync(dirname(path), constants.W_OK | constants.X_OK);
  } catch {
    throw cannotOpen(path, new Error(`this user may not write its directory ${dirname(path)}`));
  }
}

/**
 * SQLite says only "unable to open database file", "attempt to write a readonly database", "disk I/O error" or
 * "file is not a database": the operator gets the file's name, and what to do about it. A filesystem mounted
 * read-only, or a full disk, is said as such: SQLite's words for them name neither.
 */
export function cannotOpen(path: string, error: unknown): Error {
  const why = error instanceof Error ? error.message : String(error);
  if (/not a database|malformed|corrupt/i.test(why)) {
    return new Error(
      `the database ${path} is damaged or not a database: ${why} (restore a backup with \`tandem restore\`)`,
    );
  }
  const filesystem = filesystemProblem(dirname(path));
  if (filesystem) return new Error(`cannot open the database ${path}: ${filesystem}`);
  return new Error(`cannot open the database ${path}: ${why} (it and its directory must be readable and writable)`);
}

/**
 * Makes the data dir (mode 0700) and its missing parents. A refusal names the dir and what to do about it: a
 * read-only filesystem, a full disk, a user who may not create it, not the bare `EROFS: ..., mkdir`.
 */
export function makeDataDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    let parent = dirname(dir);
    while (!existsSync(parent) && dirname(parent) !== parent) parent = dirname(parent);
    const code = (error as { code?: unknown }).code;
    const why =
      filesystemProblem(parent) ??
      (code === "EACCES" || code === "EPERM"
        ? `this user may not create it in ${parent}: create it as a user who may, or give another --data`
        : code === "ENOTDIR" || code === "EEXIST"
          ? `something on its path is a file, not a directory: give another --data`
          : error instanceof Error
            ? error.message
            : String(error));
    throw new Error(`cannot create the data dir ${dir}: ${why}`);
  }
}

/** What keeps anything from being written in `dir`, whatever the permissions: a read-only filesystem, or a full disk. */
function filesystemProblem(dir: string): string | null {
  try {
    accessSync(dir, constants.W_OK);
  } catch (error) {
    if ((error as { code?: unknown }).code === "EROFS") {
      return `the filesystem holding ${dir} is read-only: mount it read-write, then try again`;
    }
  }
  try {
    if (statfsSync(dir).bavail === 0) return `the disk holding ${dir} is full: free some space, then try again`;
  } catch {
    // No answer about the filesystem: the generic reason stands.
  }
  return null;
}

/**
 * Prepares a statement on first use and reuses it after: start-up stays fast (preparing every statement of
 * every store up front cost ~8 ms), and request paths still never re-prepare.
 */
export const prepared: <T>(make: () => T) => () => T = lazy;

/**
 * How a column of text that may hold NUL (a text file's, kept as its bytes came) is written and read: SQLite's text
 * holds any character, PostgreSQL's holds no NUL, so there the column is `bytea` (pg/schema.ts, `TEXT_AS_BYTES`)
 * holding the text's UTF-8 bytes.
 */
export interface NulText {
  /** The value to bind for `text`. */
  write(text: string): string;
  /** The text of a value read from the column. */
  read(value: string): string;
}

const ANY_TEXT: NulText = { write: (text) => text, read: (value) => value };
const TEXT_BYTES: NulText = {
  write: (text) => Buffer.from(text, "utf8") as unknown as string,
  read: (value) => (typeof value === "string" ? value : Buffer.from(value as unknown as Uint8Array).toString("utf8")),
};

/** Whether `db` is PostgreSQL's (pg/connection.ts), for the few statements spelled otherwise there. */
export function isPostgres(db: Db): boolean {
  return db.$client instanceof PgDatabase;
}

/**
 * Runs a write no caller needs an answer from. On PostgreSQL within a transaction it goes with the transaction's
 * next statement (pg/connection.ts `defer`): no round trip of its own; should it fail, that statement fails and
 * the transaction is rolled back. Elsewhere it simply runs.
 */
export function runUnanswered(statement: { run(...args: never[]): unknown }, params: Record<string, unknown>): void {
  if (statement instanceof PgStatement && statement.inTransaction) statement.defer(params);
  else statement.run(params as never);
}

/** The `NulText` of `db`'s engine. */
export function nulText(db: Db): NulText {
  return db.$client instanceof PgDatabase ? TEXT_BYTES : ANY_TEXT;
}
