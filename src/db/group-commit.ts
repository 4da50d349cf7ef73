/**
 * Group commit: writes queued during one turn of the event loop run in a single `BEGIN IMMEDIATE ... COMMIT`,
 * each in its own savepoint, so one write failing rolls back only itself. A commit is most of the cost of a
 * small write, so under load this multiplies write throughput; alone, a write waits one turn at most.
 *
 * A queued function runs synchronously inside the shared transaction, as a unit of work of its own (`unit.ts`):
 * what it emits is published once the shared transaction has committed, and only if its savepoint stood. A
 * write it starts (`UnitOfWork.write`) joins its unit.
 *
 * A savepoint costs two statements, as much as a small insert: a job that makes at most one write, as its last
 * step, says so (`oneWrite`) and runs without one. Throwing before that write leaves nothing to undo, and SQLite
 * undoes a statement that fails by itself. PostgreSQL does not: a failed statement aborts the whole transaction,
 * so there every job has its savepoint (`failedStatementAborts`).
 */
import type { Database } from "bun:sqlite";
import type { Unit } from "../core/events";
import type { PendingUnit, UnitOfWork } from "./unit";

interface Job {
  fn: (unit: Unit) => unknown;
  oneWrite: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** The queue of one connection. */
export class GroupCommit {
  private queue: Job[] = [];
  private scheduled = false;
  /** Prepared once: `exec` would compile each of these anew for every write. */
  private readonly begin;
  private readonly commit;
  private readonly savepoint;
  private readonly release;
  private readonly rollbackTo;

  constructor(
    private readonly sqlite: Database,
    private readonly uow: UnitOfWork,
    /** A statement that fails aborts the transaction (PostgreSQL), rather than undoing only itself (SQLite). */
    private readonly failedStatementAborts = false,
  ) {
    this.begin = sqlite.prepare("BEGIN IMMEDIATE");
    this.commit = sqlite.prepare("COMMIT");
    this.savepoint = sqlite.prepare("SAVEPOINT job");
    this.release = sqlite.prepare("RELEASE job");
    this.rollbackTo = sqlite.prepare("ROLLBACK TO job");
  }

  /**
   * Runs `fn` in the next shared transaction; resolves once that transaction has committed. `oneWrite`: `fn`
   * writes at most one statement, and nothing after it can throw (see above).
   */
  run<T>(fn: (unit: Unit) => T, options: { oneWrite?: boolean } = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        fn,
        oneWrite: options.oneWrite === true && !this.failedStatementAborts,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    const jobs = this.queue;
    this.queue = [];
    this.scheduled = false;
    const outcomes: { ok: boolean; value: unknown; unit?: PendingUnit }[] = [];
    try {
      this.begin.run();
    } catch (error) {
      for (const job of jobs) job.reject(error);
      return;
    }
    try {
      for (const job of jobs) {
        if (!job.oneWrite) this.savepoint.run();
        const unit = this.uow.unit();
        try {
          const value = this.uow.within(unit, job.fn);
          if (!job.oneWrite) this.release.run();
          outcomes.push({ ok: true, value, unit });
        } catch (error) {
          // Some errors (a full disk) make SQLite roll back the whole transaction: nothing of the batch stands.
          if (!this.sqlite.inTransaction) throw error;
          if (!job.oneWrite) {
            this.rollbackTo.run();
            this.release.run();
          }
          outcomes.push({ ok: false, value: error });
        }
      }
      this.commit.run();
    } catch (error) {
      // The commit failed, or SQLite ended the transaction (disk full, I/O error): nothing of this batch was stored.
      if (this.sqlite.inTransaction) this.sqlite.exec("ROLLBACK");
      for (const job of jobs) job.reject(error);
      return;
    }
    // Every unit's events go out before any caller goes on: in commit order, whoever listens.
    for (const outcome of outcomes) outcome.unit?.committed();
    jobs.forEach((job, i) => {
      const outcome = outcomes[i] as { ok: boolean; value: unknown };
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.value);
    });
  }
}
