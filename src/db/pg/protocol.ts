/** What the server's thread and the PostgreSQL thread say to each other (see connection.ts and worker.ts). */

/** Handed to the thread when it starts. */
export interface PgStart {
  url: string;
  /** Set to 1 (and notified) once an answer is on the port. */
  flag: Int32Array;
  port: import("node:worker_threads").MessagePort;
}

export type PgRequest =
  | { type: "query"; text: string; params: unknown[]; simple: boolean }
  | { type: "close"; params: []; text: ""; simple: false };

export type PgAnswer =
  | { ok: true; names: string[]; rows: unknown[][]; changes: number }
  | { ok: false; message: string; code?: string; detail?: string };
