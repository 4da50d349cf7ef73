/**
 * Checkpoints off the request thread. In WAL mode a commit appends its pages to the WAL, and a checkpoint copies
 * them into the database file and syncs it: milliseconds of disk sync. SQLite runs one inside the commit that
 * takes the WAL past `wal_autocheckpoint` pages (1,000 by default), so every few hundred writes one request,
 * and every other request waiting on the event loop behind it, took that long: about a third of the cost of a
 * chat post under load.
 *
 * Here a worker thread with its own connection checkpoints a moment after anything was written (PASSIVE: it
 * never waits for the writer, nor makes it wait). Under steady writes it never quite catches up (pages come in
 * while it syncs), and the WAL only starts over from its beginning once everything in it is copied: so past
 * `RESTART_PAGES` the worker says when it has just caught up, and the server's connection checkpoints the few
 * pages written since, a short step, after which its next write starts the WAL over. Should the worker fail,
 * the server's own automatic checkpoint at `SAFETY_PAGES` bounds the WAL as before, at a larger size.
 */
import type { Database } from "bun:sqlite";
import type { CheckpointReport, CheckpointRequest } from "./checkpoint.worker";

/**
 * Where the executable keeps the worker (scripts/build.ts bundles it as a second entry point, and every module of
 * the executable has the executable's own `import.meta.url`); run from source, it sits beside this file.
 */
declare const TANDEM_CHECKPOINT_WORKER: string | undefined;
const WORKER = new URL(
  typeof TANDEM_CHECKPOINT_WORKER === "string" ? TANDEM_CHECKPOINT_WORKER : "./checkpoint.worker.ts",
  import.meta.url,
).href;

/** Pages (4 KiB) past which the WAL is brought back to its beginning once the worker has caught up. */
const RESTART_PAGES = 4096;
/** Pages the WAL may hold before the writer's own connection checkpoints, whatever the worker does. */
const SAFETY_PAGES = 16384;
/** How often the worker looks whether anything was written. */
const EVERY_MS = 100;
/** How long a stop waits for the worker to close its connection. */
const STOP_WAIT_MS = 2000;

export class Checkpointer {
  private readonly worker: Worker;
  private readonly stopped = Promise.withResolvers<void>();
  private stopping = false;

  /** Starts checkpointing the database at `path`, which `writer` (the server's connection) writes. */
  constructor(writer: Database, path: string, onFailure: (message: string) => void) {
    writer.exec(`PRAGMA wal_autocheckpoint = ${SAFETY_PAGES}`);
    // `smol`: the thread runs a few statements; a smaller heap is enough.
    this.worker = new Worker(WORKER, { smol: true });
    this.worker.onmessage = (event: MessageEvent<CheckpointReport>) => {
      const report = event.data;
      if (report.type === "failed") onFailure(report.message);
      else if (report.type === "caught-up" && !this.stopping) this.restart(writer, onFailure);
      else this.stopped.resolve();
    };
    // A thread that cannot start or dies leaves the server's own checkpoints, at SAFETY_PAGES.
    this.worker.onerror = (event) => {
      onFailure(event.message);
      this.stopped.resolve();
    };
    this.send({ type: "start", path, everyMs: EVERY_MS, restartPages: RESTART_PAGES });
    // The thread never keeps the process alive: `stop` ends it, and so does the process's exit.
    // (Bun's Worker has `unref`; the DOM typings of `Worker` do not say so.)
    (this.worker as Worker & { unref(): void }).unref();
  }

  /** Closes the worker's connection (before the server closes its own, which then removes the WAL). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.send({ type: "stop" });
    await Promise.race([this.stopped.promise, Bun.sleep(STOP_WAIT_MS)]);
    this.worker.terminate();
  }

  /** The writer's short checkpoint after the worker's (between two requests: no transaction is open). */
  private restart(writer: Database, onFailure: (message: string) => void): void {
    try {
      if (!writer.inTransaction) writer.exec("PRAGMA wal_checkpoint(PASSIVE)");
    } catch (error) {
      onFailure(error instanceof Error ? error.message : String(error));
    }
  }

  private send(request: CheckpointRequest): void {
    this.worker.postMessage(request);
  }
}
