/**
 * The worker pool: claims due jobs, runs up to `concurrency` at once, renews each claim's lease while the job
 * runs, and aborts a job whose lease was lost. A job kind finishes its job itself, inside the transaction of its
 * last write (`JobContext.complete`), so "the reply is posted" and "the job is done" are one fact; anything it
 * throws is retried with backoff up to `maxAttempts`, then handed to the kind's `giveUp`.
 *
 * At start every running job is reclaimed at once: one process serves a data dir, so a running job there belongs
 * to a process that is gone, and the lease guard keeps a stale worker from finishing anything anyway. Several
 * nodes on one PostgreSQL database (`nodes`) name themselves in their leases: a running job may be another
 * node's, and is taken back when its lease lapses or its node is gone (silent for a few seconds, or replaced by
 * its next process), whichever comes first.
 *
 * The runner's own writes (claims, renewals, retries) run from timers: one that fails (a full disk) is logged
 * and tried again on the next turn, never thrown into the event loop, where it would stop the server. Jobs
 * wait meanwhile; none is lost.
 */
import type { Unit } from "../core/events";
import type { UnitOfWork } from "../db/unit";
import { newId } from "../lib/ids";
import type { Logger } from "../lib/log";
import type { JobRow, JobsStore } from "./jobs.store";

/** Thrown inside `complete` when the claim was lost: the transaction rolls back. */
export class LeaseLost extends Error {
  constructor() {
    super("the job's lease was lost");
  }
}

/**
 * Thrown by a job kind that wants to be tried again at `at` (epoch ms), by its own rule (an outside service's
 * pause, its own count of attempts): the runner schedules it then, whatever its own attempt count says.
 */
export class RetryLater extends Error {
  constructor(
    readonly at: number,
    message: string,
  ) {
    super(message);
  }
}

/** What a running job can do. */
export interface JobContext {
  readonly job: JobRow;
  /** Aborted when the lease is lost or the runner stops. */
  readonly signal: AbortSignal;
  /** Saves progress that must not be redone after a restart, in the caller's transaction when in one. */
  saveProgress(payload: unknown): void;
  /** After a restart, resumes the job no earlier than `at` (epoch ms): a provider asked to be left alone. */
  resumeNotBefore(at: number): void;
  /** Runs `write` and ends the job, in one unit of work; throws LeaseLost (rolling back) when not ours. */
  complete<T>(write: (unit: Unit) => T): T;
}

/** One kind of job. Its top comment states its retry and idempotency rule. */
export interface JobKind {
  readonly kind: string;
  run(context: JobContext): Promise<void>;
  /** Every attempt failed: record the failure for good, through `context.complete`. */
  giveUp(context: JobContext, error: unknown): Promise<void> | void;
}

export interface RunnerOptions {
  concurrency: number;
  /** How long a claim lasts without renewal. */
  leaseMs?: number;
  /** How often a running job's lease is renewed. */
  heartbeatMs?: number;
  /** How often the queue is looked at without a wake-up (jobs due later, lapsed leases). */
  pollMs?: number;
  maxAttempts?: number;
  /** The pause before attempt n + 1 is `retryBaseMs * 2^(n-1)`. */
  retryBaseMs?: number;
  /** Several nodes claiming from one table (PostgreSQL): this node's id, and the ids of the nodes alive now. */
  nodes?: { self: string; alive(): ReadonlySet<string> };
}

export class JobRunner {
  private readonly kinds = new Map<string, JobKind>();
  private readonly running = new Map<string, AbortController>();
  private readonly leaseMs: number;
  private readonly heartbeatMs: number;
  private readonly pollMs: number;
  private readonly maxAttempts: number;
  private readonly retryBaseMs: number;
  private timer: ReturnType<typeof setInterval> | null = null;
  /** A wake-up at the time of the soonest job put back for later, so it runs then and not at a later poll. */
  private alarm: { at: number; timer: ReturnType<typeof setTimeout> } | null = null;
  /** When a failure of the runner's own writes was last logged: at most one line a minute while it lasts. */
  private lastFailureLog = 0;
  private filling = false;
  private waking = false;
  private stopped = true;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: JobsStore,
    private readonly log: Logger,
    private readonly options: RunnerOptions,
  ) {
    this.leaseMs = options.leaseMs ?? 30_000;
    this.heartbeatMs = options.heartbeatMs ?? 10_000;
    this.pollMs = options.pollMs ?? 1000;
    this.maxAttempts = options.maxAttempts ?? 3;
    this.retryBaseMs = options.retryBaseMs ?? 5000;
    // A job queued on any node wakes every node's runner: whichever claims it first runs it.
    uow.events.subscribe((event) => {
      if (event.type === "job.queued") this.wake();
    }, "everywhere");
  }

  register(kind: JobKind): this {
    this.kinds.set(kind.kind, kind);
    return this;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const now = Date.now();
    const reclaimed = this.uow.write(() => this.reclaimLeftBehind(now));
    if (reclaimed > 0) this.log.info({ jobs: reclaimed }, "resuming jobs of the previous run");
    this.timer = setInterval(() => this.safely("looking at the job queue", () => this.tick()), this.pollMs);
    this.timer.unref?.();
    this.wake();
    // A job waiting out a pause when the last run stopped (a provider's Retry-After) runs at its time.
    const next = this.store.nextRunAt();
    if (next !== null && next > now) this.wakeAt(next);
  }

  /** At start: every running job (one process), or those of nodes gone and lapsed leases (several nodes). */
  private reclaimLeftBehind(now: number): number {
    if (!this.options.nodes) return this.store.reclaim(Number.MAX_SAFE_INTEGER, now);
    return this.reclaimAll(this.ofGoneNodes(), now) + this.store.reclaim(now, now);
  }

  /** Returns these claims' jobs to the queue, each if its lease still holds it; how many. */
  private reclaimAll(claims: { seq: number; lease: string }[], now: number): number {
    return claims.filter(({ seq, lease }) => this.store.reclaimOne(seq, lease, now)).length;
  }

  /**
   * The claims of running jobs whose node is gone (read outside any write: most looks find none). A lease
   * without a node (an older version's) is left to lapse.
   */
  private ofGoneNodes(): { seq: number; lease: string }[] {
    const nodes = this.options.nodes;
    if (!nodes) return [];
    const mine = `${nodes.self}/`;
    const others = this.store.runningLeases().filter(({ lease }) => !lease.startsWith(mine) && lease.includes("/"));
    if (others.length === 0) return [];
    const alive = nodes.alive();
    return others.filter(({ lease }) => !alive.has(lease.slice(0, lease.indexOf("/"))));
  }

  /** A claim's lease: a new id, after this node's where several share the table (what a start looks at). */
  private newLease(): string {
    return this.options.nodes ? `${this.options.nodes.self}/${newId()}` : newId();
  }

  /** Stops claiming and aborts running jobs; their claims lapse and the next start resumes them. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.alarm) clearTimeout(this.alarm.timer);
    this.alarm = null;
    for (const controller of this.running.values()) controller.abort();
  }

  /**
   * Something was queued (`job.queued`): look now rather than at the next poll. With every worker busy there is nothing to do:
   * the next one to finish looks at the queue (posts that mention staff in a burst skip a turn of the loop each).
   */
  wake(): void {
    if (this.stopped || this.waking || this.running.size >= this.options.concurrency) return;
    this.waking = true;
    setImmediate(() => {
      this.waking = false;
      this.fill();
    });
  }

  /** Looks at the queue at `at` (a job put back until then), unless an earlier wake-up is already set. */
  private wakeAt(at: number): void {
    if (this.stopped || (this.alarm && this.alarm.at <= at)) return;
    if (this.alarm) clearTimeout(this.alarm.timer);
    const timer = setTimeout(
      () => {
        this.alarm = null;
        this.wake();
      },
      Math.max(0, at - Date.now()),
    );
    timer.unref?.();
    this.alarm = { at, timer };
  }

  /**
   * Writes only when there is something to do: an idle server reads an empty index and an empty table once a
   * second; with every worker busy, the queue is not read at all, however long it is.
   */
  private tick(): void {
    const now = Date.now();
    if (this.store.hasLapsed(now)) this.uow.write(() => this.store.reclaim(now, now));
    const gone = this.ofGoneNodes();
    if (gone.length > 0) this.uow.write(() => this.reclaimAll(gone, now));
    if (this.running.size < this.options.concurrency && this.store.hasDue(now)) this.fill();
  }

  private fill(): void {
    if (this.filling || this.stopped) return;
    this.filling = true;
    try {
      this.safely("claiming a job", () => {
        while (this.running.size < this.options.concurrency) {
          const lease = this.newLease();
          const now = Date.now();
          const job = this.uow.write(() => this.store.claim(lease, now, now + this.leaseMs));
          if (!job) break;
          this.launch(job, lease);
        }
      });
    } finally {
      this.filling = false;
    }
  }

  /** Runs one of the runner's own steps; a failure is logged (not every second) and the next turn tries again. */
  private safely(what: string, step: () => void): void {
    try {
      step();
    } catch (error) {
      const now = Date.now();
      if (now - this.lastFailureLog < 60_000) return;
      this.lastFailureLog = now;
      this.log.error({ err: error }, `${what} failed; trying again`);
    }
  }

  private launch(job: JobRow, lease: string): void {
    const controller = new AbortController();
    this.running.set(job.id, controller);
    const heartbeat = setInterval(() => {
      this.safely("renewing a job's lease", () => {
        const renewed = this.uow.write(() => this.store.renew(job.seq, lease, Date.now() + this.leaseMs));
        if (!renewed) controller.abort();
      });
    }, this.heartbeatMs);
    heartbeat.unref?.();
    const context = this.context(job, lease, controller.signal);
    void this.execute(job, lease, context).finally(() => {
      clearInterval(heartbeat);
      this.running.delete(job.id);
      this.fill();
    });
  }

  private async execute(job: JobRow, lease: string, context: JobContext): Promise<void> {
    const kind = this.kinds.get(job.kind);
    try {
      if (!kind) throw new Error(`no job kind ${job.kind}`);
      await kind.run(context);
    } catch (error) {
      if (error instanceof LeaseLost || context.signal.aborted) return;
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof RetryLater) {
        this.retryAt(job, lease, message, error.at);
        return;
      }
      if (kind && job.attempts >= this.maxAttempts) {
        this.log.warn({ job_id: job.id, kind: job.kind, err: error }, "job failed for good");
        try {
          await kind.giveUp(context, error);
        } catch (failure) {
          if (!(failure instanceof LeaseLost))
            this.log.error({ job_id: job.id, err: failure }, "giving up on a job failed");
        }
        return;
      }
      const runAt = Date.now() + this.retryBaseMs * 2 ** (job.attempts - 1);
      this.log.warn(
        { job_id: job.id, kind: job.kind, attempt: job.attempts, err: error },
        "job failed; retrying later",
      );
      this.retryAt(job, lease, message, runAt);
    }
  }

  /**
   * Puts the job back in the queue until `at`, and wakes then. Not recorded (a full disk): the claim lapses and the
   * job is taken up again from the start.
   */
  private retryAt(job: JobRow, lease: string, message: string, at: number): void {
    this.safely("scheduling a retry", () => {
      if (this.uow.write(() => this.store.retryLater(job.seq, lease, message, at))) this.wakeAt(at);
    });
  }

  private context(job: JobRow, lease: string, signal: AbortSignal): JobContext {
    return {
      job,
      signal,
      saveProgress: (payload) => {
        const saved = this.uow.write(() => this.store.saveProgress(job.seq, lease, JSON.stringify(payload)));
        if (!saved) throw new LeaseLost();
      },
      resumeNotBefore: (at) => {
        const held = this.uow.write(() => this.store.resumeNotBefore(job.seq, lease, at));
        if (!held) throw new LeaseLost();
      },
      complete: (write) =>
        this.uow.write((unit) => {
          const value = write(unit);
          if (!this.store.end(job.seq, lease)) throw new LeaseLost();
          return value;
        }),
    };
  }
}
