/**
 * PostgreSQL behind the same synchronous interface as `bun:sqlite`'s `Database`, so drizzle's SQLite driver, the
 * unit of work, the group commit and every store run on it unchanged.
 *
 * Every statement goes to a thread of its own (worker.ts) holding one connection, and the server's thread waits
 * for its answer (`Atomics.wait`), as it waits for SQLite's disk: statements run one at a time, in order, and a
 * transaction is the connection's. A write transaction first takes a transaction-level advisory lock, the same
 * for every node: writes are serialized across nodes as SQLite serializes them across connections, so the rules
 * that read before they write (a position after the last, a name not taken) hold on PostgreSQL too. Reads run
 * outside that lock, on every node at once.
 *
 * A round trip to PostgreSQL costs more than the statement itself, so statements whose answer no one waits for
 * (`BEGIN`, the lock, a savepoint and its release, the rows other nodes read) are held back and sent with the next
 * statement that is waited for, pipelined: a small write is two or three round trips (its transaction's opening
 * with the read of what other nodes wrote, the statements it waits for, its closing with `COMMIT`), not a dozen.
 * A store marks the writes no caller waits for (`runUnanswered`, db/client.ts).
 *
 * SQLite's SQL is translated once per statement (translate.ts); its error codes are given for PostgreSQL's
 * (a broken foreign key or unique key, a full disk, a read-only database), so the callers' checks hold.
 */
import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads";
import type { PgAnswer, PgQuery, PgRequest, PgStart } from "./protocol";
import { type Translated, translate } from "./translate";

/**
 * Where the executable keeps the thread's code (scripts/build.ts bundles it as an entry point of its own); run
 * from source, it sits beside this file.
 */
declare const TANDEM_PG_WORKER: string | undefined;
const WORKER = new URL(typeof TANDEM_PG_WORKER === "string" ? TANDEM_PG_WORKER : "./worker.ts", import.meta.url);

/** The key of the advisory lock every write transaction takes (any number, the same on every node). */
export const WRITE_LOCK = 7_263_360;
/** How long a statement may take before the server gives up on its answer. */
const ANSWER_WAIT_MS = 120_000;

/** SQLite's error codes for PostgreSQL's, where the callers look at them. */
const CODES: Record<string, string> = {
  "23503": "SQLITE_CONSTRAINT_FOREIGNKEY",
  "23505": "SQLITE_CONSTRAINT_UNIQUE",
  "23502": "SQLITE_CONSTRAINT_NOTNULL",
  "23514": "SQLITE_CONSTRAINT_CHECK",
  "53100": "SQLITE_FULL",
  "25006": "SQLITE_READONLY",
  "58030": "SQLITE_IOERR",
  "40P01": "SQLITE_BUSY",
  "55P03": "SQLITE_BUSY",
};

export class PgError extends Error {
  readonly code: string;
  constructor(
    message: string,
    /** PostgreSQL's SQLSTATE. */
    readonly sqlState: string | undefined,
  ) {
    super(message);
    this.name = "PgError";
    this.code = (sqlState && CODES[sqlState]) ?? `PG_${sqlState ?? "ERROR"}`;
  }
}

type Params = unknown[];

/** Statements the connection runs itself: SQLite's transaction words (a savepoint is PostgreSQL's too) and pragmas. */
const CONTROL = /^(PRAGMA\b|BEGIN\b|COMMIT\b|END\b|ROLLBACK\s*;?$)/i;
/** A savepoint's statements: nothing is waited for from them, they go with the next statement. */
const SAVEPOINT = /^(SAVEPOINT|RELEASE|ROLLBACK\s+TO)\b/i;

/** A statement, as `bun:sqlite`'s `Statement` is used here. */
export class PgStatement {
  private readonly translated: Translated;
  /** `BEGIN`, `COMMIT`, `ROLLBACK` or a pragma: the connection takes it itself. */
  private readonly control: boolean;
  /** A savepoint's statement, sent with the next one (`defer`). */
  private readonly later: boolean;

  constructor(
    private readonly db: PgDatabase,
    readonly source: string,
  ) {
    this.control = CONTROL.test(source.trim());
    this.later = SAVEPOINT.test(source.trim());
    this.translated = this.control ? { text: source, names: null, count: 0, limits: [] } : translate(source);
  }

  run(...args: unknown[]): { changes: number; lastInsertRowid: number } {
    if (this.control) {
      this.db.exec(this.source);
      return { changes: 0, lastInsertRowid: 0 };
    }
    if (this.later && this.db.inTransaction) {
      this.defer(...args);
      return { changes: 0, lastInsertRowid: 0 };
    }
    const answer = this.db.send(this.translated.text, this.bind(args));
    return { changes: answer.changes, lastInsertRowid: 0 };
  }

  all(...args: unknown[]): Record<string, unknown>[] {
    const { names, rows } = this.db.send(this.translated.text, this.bind(args));
    return rows.map((row) => toObject(names, row));
  }

  get(...args: unknown[]): Record<string, unknown> | null {
    const { names, rows } = this.db.send(this.translated.text, this.bind(args));
    const row = rows[0];
    return row ? toObject(names, row) : null;
  }

  values(...args: unknown[]): unknown[][] {
    return this.db.send(this.translated.text, this.bind(args)).rows;
  }

  /** Whether its connection is in a transaction (where a statement may be held back: `defer`). */
  get inTransaction(): boolean {
    return this.db.inTransaction;
  }

  /** Runs in the open transaction, sent with the next statement waited for: its answer is not needed. */
  defer(...args: unknown[]): void {
    this.db.defer(this.translated.text, this.bind(args));
  }

  finalize(): void {}

  private bind(args: unknown[]): Params {
    const { names, count, limits } = this.translated;
    let params: Params;
    if (names) {
      const given = (args[0] ?? {}) as Record<string, unknown>;
      params = names.map((name) => value(name in given ? given[name] : given[`$${name}`]));
    } else if (count === 0) {
      return [];
    } else {
      const flat = args.length === 1 && Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
      params = flat.slice(0, count).map(value);
    }
    for (const n of limits) {
      const limit = params[n - 1];
      if (typeof limit === "number" && limit < 0) params[n - 1] = null;
    }
    return params;
  }
}

function toObject(names: string[], row: unknown[]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (let i = 0; i < names.length; i++) object[names[i] as string] = row[i];
  return object;
}

/** A value as SQLite would have bound it. */
function value(v: unknown): unknown {
  if (v === undefined) return null;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "bigint") return v.toString();
  if (v instanceof Uint8Array && !(v.constructor === Uint8Array)) return new Uint8Array(v);
  return v;
}

type TransactionFn<T> = ((...args: unknown[]) => T) & {
  deferred: (...args: unknown[]) => T;
  immediate: (...args: unknown[]) => T;
  exclusive: (...args: unknown[]) => T;
};

/** The part of `bun:sqlite`'s `Database` the server uses, over PostgreSQL. */
export class PgDatabase {
  private readonly worker: Worker;
  private readonly port: import("node:worker_threads").MessagePort;
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private readonly statements = new Map<string, PgStatement>();
  /** Statements of the open transaction held back until the next one that is waited for (`defer`). */
  private pending: PgQuery[] = [];
  private depth = 0;
  private closed = false;
  readonly filename: string;

  constructor(url: string) {
    this.filename = redact(url);
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    const start: PgStart = { url, flag: this.flag, port: port2 };
    this.worker = new Worker(WORKER, { workerData: start, transferList: [port2] as never });
    this.worker.unref();
    // The first statement both waits for the thread to start and checks the database answers.
    this.send("SELECT 1", []);
  }

  get inTransaction(): boolean {
    return this.depth > 0;
  }

  prepare(sql: string): PgStatement {
    return new PgStatement(this, sql);
  }

  /** A statement made once per text, as `bun:sqlite` caches `query()`. */
  query(sql: string): PgStatement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = new PgStatement(this, sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Runs SQL without parameters: SQLite's transaction words and pragmas are taken here. */
  exec(sql: string): void {
    const text = sql.trim();
    if (/^PRAGMA\b/i.test(text)) return;
    if (/^BEGIN\b/i.test(text)) this.begin();
    else if (/^(COMMIT|END)\b/i.test(text)) this.end("COMMIT");
    else if (/^ROLLBACK\s*;?$/i.test(text)) this.end("ROLLBACK");
    else this.send(translate(text).text, [], true);
  }

  run(sql: string, ...params: unknown[]): { changes: number; lastInsertRowid: number } {
    if (params.length === 0 && CONTROL.test(sql.trim())) {
      this.exec(sql);
      return { changes: 0, lastInsertRowid: 0 };
    }
    return this.prepare(sql).run(...params);
  }

  /** `bun:sqlite`'s `db.transaction(fn)`: BEGIN, the write lock, fn, COMMIT (ROLLBACK when fn throws). */
  transaction<T>(fn: (...args: unknown[]) => T): TransactionFn<T> {
    const wrapped = (...args: unknown[]): T => {
      this.begin();
      return this.committed(() => fn(...args));
    };
    return Object.assign(wrapped, { deferred: wrapped, immediate: wrapped, exclusive: wrapped });
  }

  /**
   * `fn` in a read-only transaction that sees the whole database as it was at its first read, without the write
   * lock: `tandem backup` reads every table at one moment while the nodes go on writing.
   */
  snapshot<T>(fn: () => T): T {
    if (this.depth > 0) throw new PgError("cannot start a transaction within a transaction", undefined);
    this.send("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", []);
    this.depth = 1;
    return this.committed(fn);
  }

  /** `fn` in the transaction begun: committed when it returns, rolled back when it throws. */
  private committed<T>(fn: () => T): T {
    let result: T;
    try {
      result = fn();
    } catch (error) {
      this.end("ROLLBACK");
      throw error;
    }
    this.end("COMMIT");
    return result;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.request({ type: "close" });
    } catch {
      // The thread is ended below either way.
    }
    void this.worker.terminate();
  }

  /**
   * Runs a statement in the open transaction without waiting for it: it is sent with the next statement that is
   * waited for. Should it fail, that statement fails with its error, and the transaction is rolled back.
   */
  defer(text: string, params: Params = []): void {
    if (this.depth === 0) throw new PgError("a statement is held back only within a transaction", undefined);
    this.pending.push({ text, params, simple: false });
  }

  /** Sends one statement, with those held back before it, and waits for its answer. */
  send(text: string, params: Params, simple = false): { names: string[]; rows: unknown[][]; changes: number } {
    const statements = this.pending;
    this.pending = [];
    statements.push({ text, params, simple });
    const answer = this.request({ type: "query", statements });
    if (answer.ok) return answer;
    const failed = statements[answer.index]?.text ?? text;
    const detail = answer.detail ? ` (${answer.detail})` : "";
    const error = new PgError(
      `${answer.message}${detail} in: ${failed.length > 300 ? `${failed.slice(0, 300)}…` : failed}`,
      answer.code,
    );
    // A statement held back failed: its caller went on as if it had run, so nothing of this transaction may stand
    // (SQLite rolls back the whole transaction on the errors its callers do not expect, too).
    if (answer.index < statements.length - 1) {
      try {
        this.end("ROLLBACK");
      } catch {
        // The connection failed too (it answers nothing more): the error that matters is the statement's.
      }
    }
    throw error;
  }

  /**
   * Runs as a transaction begins, its first statement run once it holds the write lock (it is sent with the
   * lock's): other nodes' writes committed before it are heard before its own statements (cluster.ts).
   */
  afterLock: (() => void) | null = null;
  /** Runs inside a transaction just before its COMMIT is sent (cluster.ts: one notification per transaction). */
  beforeCommit: (() => void) | null = null;
  /** Runs once a transaction ended, committed or not. */
  afterEnd: (() => void) | null = null;

  private begin(): void {
    if (this.depth > 0) throw new PgError("cannot start a transaction within a transaction", undefined);
    this.depth = 1;
    this.defer("BEGIN");
    this.defer(`SELECT pg_advisory_xact_lock(${WRITE_LOCK})`);
    try {
      this.afterLock?.();
    } catch (error) {
      this.end("ROLLBACK");
      throw error;
    }
  }

  private end(word: "COMMIT" | "ROLLBACK"): void {
    if (this.depth === 0) return;
    try {
      if (word === "COMMIT") {
        this.beforeCommit?.();
        this.send(word, []);
      } else {
        // What was held back is dropped; a transaction not sent yet has nothing to roll back.
        const sent = this.pending[0]?.text !== "BEGIN";
        this.pending = [];
        if (sent) this.send(word, []);
      }
    } finally {
      this.pending = [];
      this.depth = 0;
      this.afterEnd?.();
    }
  }

  private request(request: PgRequest): PgAnswer {
    if (this.closed && request.type !== "close") throw new PgError("the database connection is closed", undefined);
    Atomics.store(this.flag, 0, 0);
    this.port.postMessage(request);
    const deadline = Date.now() + ANSWER_WAIT_MS;
    for (;;) {
      const got = receiveMessageOnPort(this.port);
      if (got) return got.message as PgAnswer;
      const left = deadline - Date.now();
      if (left <= 0) throw new PgError("PostgreSQL did not answer in time", "57014");
      Atomics.wait(this.flag, 0, 0, left);
      Atomics.store(this.flag, 0, 0);
    }
  }
}

/** A connection URL without its password, to name the database in messages. */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    if (parsed.searchParams.has("password")) parsed.searchParams.set("password", "***");
    return parsed.toString();
  } catch {
    return "postgres://…";
  }
}
