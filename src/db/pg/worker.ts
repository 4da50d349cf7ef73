/**
 * The PostgreSQL thread of `PgDatabase`: one connection, which runs each statement the server's thread sends and
 * answers with the rows in SQLite's shapes (numbers for `bigint` and `numeric`, JSON as its text, 1 and 0 for
 * booleans). The server's thread waits for the answer (see connection.ts).
 */

import { workerData } from "node:worker_threads";
import { SQL } from "bun";
import type { PgAnswer, PgRequest, PgStart } from "./protocol";

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

async function run(request: PgRequest): Promise<PgAnswer> {
  const sql = await connect();
  if (request.params.length === 0 && request.simple) {
    // Several statements, no parameters: the simple protocol.
    await sql.unsafe(request.text);
    return { ok: true, names: [], rows: [], changes: 0 };
  }
  const result = (await sql.unsafe(request.text, request.params as never[]).values()) as unknown as unknown[][] & {
    columns?: Column[];
    count?: number | null;
    command?: string;
  };
  // A transaction that a failed statement aborted ends in ROLLBACK when told COMMIT, and PostgreSQL answers no
  // error: it is said as one (SQLite's COMMIT fails when it stores nothing), so no caller takes its writes as stored.
  if (result.command === "ROLLBACK" && /^\s*(COMMIT|END)\b/i.test(request.text)) {
    return { ok: false, message: "the transaction was rolled back: a statement in it had failed", code: "25P02" };
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
  run(request).then(answer, (error: unknown) => {
    const e = error as { message?: string; errno?: string; code?: string; detail?: string };
    answer({
      ok: false,
      message: String(e?.message ?? error),
      code: typeof e?.errno === "string" ? e.errno : undefined,
      detail: e?.detail,
    });
  });
});
