/** What the server's thread and the PostgreSQL thread say to each other (see connection.ts and worker.ts). */

/** Handed to the thread when it starts. */
export interface PgStart {
  url: string;
  /** Set to 1 (and notified) once an answer is on the port. */
  flag: Int32Array;
  port: import("node:worker_threads").MessagePort;
}

/** One statement; `simple`: several statements without parameters, sent as one text. */
export interface PgQuery {
  text: string;
  params: unknown[];
  simple: boolean;
}

/**
 * `statements` are sent at once, without waiting between them (PostgreSQL's pipelining): one round trip. The
 * answer is the last one's.
 */
export type PgRequest = { type: "query"; statements: PgQuery[] } | { type: "close" };

export type PgAnswer =
  | { ok: true; names: string[]; rows: unknown[][]; changes: number }
  /** `index`: which of the statements sent together failed (those after it were not run). */
  | { ok: false; message: string; code?: string; detail?: string; index: number };
