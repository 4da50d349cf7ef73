/**
 * Whether the data dir can still keep what the server is told, for `/health`. A filesystem that failed under a
 * running server leaves its open database answering from open files while nothing new can be stored, or while
 * what it stores goes to files no longer in the data dir (lost at the next start): the open connection alone
 * cannot tell. So the check looks from outside: the data dir is a directory, the database file and its
 * write-ahead log are the very files opened at the start, the database answers a query, and a small file can
 * be written and removed in the data dir. It runs at most once a second, its answer kept in between. On
 * PostgreSQL the database is not in the data dir (which holds the keys): its files are not looked at there.
 */
import type { Database } from "bun:sqlite";
import { rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { prepared } from "./client";

/** The file written and removed by each check. */
const PROBE_FILE = ".health-check";

/** How long one check's answer stands. */
const CHECK_EVERY_MS = 1000;

/** A file as the filesystem names it: its device and inode. Null when there is none at the path. */
type FileId = string | null;

function fileId(path: string): FileId {
  try {
    const stat = statSync(path);
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return null;
  }
}

/** What a failed write of the probe says, in words fit for an answer. */
function writeProblem(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "ENOSPC" || code === "EDQUOT") return "the data directory's disk is full";
  if (code === "EROFS") return "the data directory's filesystem is read-only";
  return "the data directory cannot be written to";
}

/** The health of the data dir and the database this process has open. */
export class StorageHealth {
  private readonly dbFile: FileId;
  private walFile: FileId;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private last: string | null = null;
  private readonly answers = prepared(() => this.sqlite.query<{ one: number }, []>("SELECT 1 AS one"));

  constructor(
    private readonly sqlite: Database,
    private readonly dataDir: string,
    /** The SQLite file; null on PostgreSQL. */
    private readonly dbPath: string | null,
  ) {
    this.dbFile = dbPath === null ? null : fileId(dbPath);
    this.walFile = dbPath === null ? null : fileId(`${dbPath}-wal`);
  }

  /** What is wrong, in words without a path, or null when all is well; checked at most once a second. */
  problem(now = performance.now()): string | null {
    if (now - this.checkedAt < CHECK_EVERY_MS) return this.last;
    this.checkedAt = now;
    this.last = this.check();
    return this.last;
  }

  private check(): string | null {
    try {
      if (!statSync(this.dataDir).isDirectory()) return "the data directory is gone: a file stands in its place";
    } catch {
      return "the data directory is gone";
    }
    const files = this.dbPath === null ? null : this.fileProblem(this.dbPath);
    if (files) return files;
    try {
      this.answers().all();
    } catch {
      return "the database does not answer";
    }
    const probe = join(this.dataDir, PROBE_FILE);
    try {
      writeFileSync(probe, "ok\n");
      rmSync(probe, { force: true });
    } catch (error) {
      return writeProblem(error);
    }
    return null;
  }

  /** Whether the SQLite file and its write-ahead log are still the ones opened at the start. */
  private fileProblem(dbPath: string): string | null {
    const db = fileId(dbPath);
    if (db === null) return "the database file is gone from the data directory";
    if (db !== this.dbFile) return "the database file was replaced while the server runs";
    // The write-ahead log lives as long as the server's connection: gone, the writes it holds are too.
    const wal = fileId(`${dbPath}-wal`);
    this.walFile ??= wal;
    if (this.walFile !== null && wal !== this.walFile) {
      return wal === null
        ? "the database's write-ahead log is gone from the data directory"
        : "the database's write-ahead log was replaced while the server runs";
    }
    return null;
  }
}
