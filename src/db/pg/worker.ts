/**
 * The PostgreSQL thread of `PgDatabase`: one connection, which runs each statement the server's thread sends and
 * answers with the rows in SQLite's shapes (numbers for `bigint` and `numeric`, JSON as its text, 1 and 0 for
 * booleans). The server's thread waits for the answer (see connection.ts).
 */

import { workerData } from "node:worker_threads";
import { SQL } from "bun";
import type { PgAnswer, PgQuery, PgRequest, PgStart } from "./protocol";

const { url, flag, port } = workerData as PgStart;

/** Type ids of PostgreSQL's `bool`, `int8`, `numeric`, `json` and `jsonb`. */
const BOOL = 16;
const INT8 = 20;
const NUMERIC = 1700;
const JSON_TYPE = 114;
const JSONB = 3802;

let connection: Promise<SQL> | null = null;

function connect(): Promise<SQL> {
  connection ??= (async () => {
    const sql = new SQL(url, { max: 1, idleTimeout: 0, connectionTimeout: 10 });
    return await sql.reserve();
  })().catch((error) => {
    connection = null;
    throw error;
  });
  return connection;
}

function answer(reply: PgAnswer): void {
  port.postMessage(reply);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

type Column = { name: string; type: number };

function convert(rows: unknown[][], columns: Column[]): void {
  const kinds = columns.map((c) => c.type);
  if (!kinds.some((k) => k === BOOL || k === INT8 || k === NUMERIC || k === JSON_TYPE || k === JSONB)) return;
  for (const row of rows) {
    for (let i = 0; i < kinds.length; i++) {
      const value = row[i];
      if (value === null || value === undefined) continue;
      const kind = kinds[i];
      if (kind === INT8 || kind === NUMERIC) row[i] = Number(value);
      else if (kind === BOOL) row[i] = value ? 1 : 0;
      else if (kind === JSON_TYPE || kind === JSONB) row[i] = typeof value === "string" ? value : JSON.stringify(value);
    }
  }
}

type Result = unknown[][] & { columns?: Column[]; count?: number | null; command?: string };

/** Sends one statement (at once: the caller does not wait before sending the next) and shapes its answer. */
function run(sql: SQL, query: PgQuery): Promise<PgAnswer> {
  // Several statements, no parameters: the simple protocol.
  if (query.params.length === 0 && query.simple) {
    return sql.unsafe(query.text).then(() => ({ ok: true, names: [], rows: [], changes: 0 }));
  }
  return (sql.unsafe(query.text, query.params as never[]).values() as Promise<Result>).then((result) => {
    // A transaction that a failed statement aborted ends in ROLLBACK when told COMMIT, and PostgreSQL answers no
    // error: it is said as one (SQLite's COMMIT fails when it stores nothing), so no caller takes its writes as
    // stored.
    if (result.command === "ROLLBACK" && /^\s*(COMMIT|END)\b/i.test(query.text)) {
      return {
        ok: false,
        message: "the transaction was rolled back: a statement in it had failed",
        code: "25P02",
        index: 0,
      };
    }
    const columns = result.columns ?? [];
    const rows = Array.from(result) as unknown[][];
    convert(rows, columns);
    return {
      ok: true,
      names: columns.map((c) => c.name),
      rows,
      changes: result.command === "SELECT" ? 0 : (result.count ?? 0),
    };
  });
}

function failure(error: unknown, index: number): PgAnswer {
  const e = error as { message?: string; errno?: string; detail?: string };
  return {
    ok: false,
    message: String(e?.message ?? error),
    code: typeof e?.errno === "string" ? e.errno : undefined,
    detail: e?.detail,
    index,
  };
}

/** Runs statements sent together, pipelined; answers with the last one's result, or the first failure. */
async function runAll(statements: PgQuery[]): Promise<PgAnswer> {
  let sql: SQL;
  try {
    sql = await connect();
  } catch (error) {
    return failure(error, 0);
  }
  const answers = await Promise.allSettled(statements.map((query) => run(sql, query)));
  for (let i = 0; i < answers.length; i++) {
    const settled = answers[i] as PromiseSettledResult<PgAnswer>;
    if (settled.status === "rejected") return failure(settled.reason, i);
    if (!settled.value.ok) return { ...settled.value, index: i };
  }
  return (answers[answers.length - 1] as PromiseFulfilledResult<PgAnswer>).value;
}

port.on("message", (request: PgRequest) => {
  if (request.type === "close") {
    void connection
      ?.then((sql) => sql.close())
      .catch(() => {})
      .finally(() => answer({ ok: true, names: [], rows: [], changes: 0 }));
    if (!connection) answer({ ok: true, names: [], rows: [], changes: 0 });
    return;
  }
  void runAll(request.statements).then(answer);
});
