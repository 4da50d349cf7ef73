/**
 * The checkpoint thread of `Checkpointer`: its own connection to the database, which copies what the WAL holds
 * into the database file a moment after anything was written.
 */
import { Database } from "bun:sqlite";

declare const self: Worker;

export type CheckpointRequest =
  | { type: "start"; path: string; everyMs: number; restartPages: number }
  | { type: "stop" };
export type CheckpointReport = { type: "failed"; message: string } | { type: "caught-up" } | { type: "stopped" };

/** A failure that lasts (a full disk) is reported once a minute, not at every look. */
const REPORT_EVERY_MS = 60_000;

let timer: ReturnType<typeof setInterval> | undefined;
/** Closes the connection: its statements first, or SQLite would keep it (and the WAL) open. */
let close = () => {};
let lastReport = 0;

const report = (message: CheckpointReport) => self.postMessage(message);

function start(path: string, everyMs: number, restartPages: number): void {
  const conn = new Database(path, { strict: true });
  // Until its statements exist (a failure below still closes it).
  close = () => conn.close();
  conn.exec("PRAGMA busy_timeout = 5000");
  // Synced as the server's own connection would sync them: the WAL before the copy, the database after it.
  conn.exec("PRAGMA synchronous = NORMAL");
  const version = conn.prepare("PRAGMA data_version");
  // PASSIVE copies what it can without waiting for the writer or any reader, and never blocks them.
  const checkpoint = conn.prepare("PRAGMA wal_checkpoint(PASSIVE)");
  close = () => {
    version.finalize();
    checkpoint.finalize();
    conn.close();
  };
  let seen: number | undefined;
  timer = setInterval(() => {
    try {
      // Changes only when another connection committed: an idle server does no work here.
      const now = (version.get() as { data_version: number }).data_version;
      if (now === seen) return;
      seen = now;
      const { log, checkpointed } = checkpoint.get() as { busy: number; log: number; checkpointed: number };
      // A WAL this long only starts over once the writer itself checkpoints the last few pages: tell it now,
      // while few are left, so its turn is short.
      if (log >= restartPages && checkpointed > 0) report({ type: "caught-up" });
    } catch (error) {
      seen = undefined;
      if (Date.now() - lastReport < REPORT_EVERY_MS) return;
      lastReport = Date.now();
      report({ type: "failed", message: error instanceof Error ? error.message : String(error) });
    }
  }, everyMs);
}

self.onmessage = (event: MessageEvent<CheckpointRequest>) => {
  const request = event.data;
  if (request.type === "start") {
    try {
      start(request.path, request.everyMs, request.restartPages);
    } catch (error) {
      report({ type: "failed", message: error instanceof Error ? error.message : String(error) });
    }
    return;
  }
  if (timer) clearInterval(timer);
  close();
  report({ type: "stopped" });
};
