/**
 * The job table: enqueue inside the caller's transaction, claim with one UPDATE ... RETURNING, and every later
 * write guarded by the claim's lease, so a worker that lost its claim (it stalled, the process was replaced)
 * can change nothing. A job that ends is deleted: the table is the live queue only, so reading it in `seq`
 * order (its rowid, no index to keep up) stays short.
 */
import { type Db, prepared } from "../db/client";
import { insertRow } from "../db/prepared";
import { jobs } from "../db/schema";
import { nextStamp } from "../lib/ids";

export type JobRow = typeof jobs.$inferSelect;

/** A job to queue: its `seq` is given by the table. */
export type NewJob = Omit<JobRow, "seq">;

/**
 * The first job in queue order that is due is claimed: the scan from the start of the table passes only the
 * running jobs (at most the worker count) and the ones waiting to retry.
 */
export const CLAIM_SQL = `UPDATE jobs SET status = 'running', attempts = attempts + 1, lease = $lease,
  locked_until = $until, updated_at = $now
  WHERE seq = (SELECT seq FROM jobs WHERE status = 'queued' AND run_at <= $now ORDER BY seq LIMIT 1)
  RETURNING *`;

/** Claims whose lease lapsed go back to the queue (`jobs_running_idx`). */
/**
 * On PostgreSQL the oldest due job is taken `FOR UPDATE SKIP LOCKED`: nodes claiming at once each take another
 * (every write holds the write lock there too, so this is a second guard, not the only one).
 */
export const CLAIM_SQL_PG = CLAIM_SQL.replace("ORDER BY seq LIMIT 1)", "ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED)");
export const RECLAIM_SQL = `UPDATE jobs SET status = 'queued', lease = NULL, locked_until = NULL, updated_at = $now
  WHERE status = 'running' AND locked_until < $before`;

/** Whether a claim lapsed (`jobs_running_idx`). */
export const LAPSED_SQL = "SELECT 1 AS lapsed FROM jobs WHERE status = 'running' AND locked_until < $now LIMIT 1";

/** Whether a job is due: the claim's scan, read only. */
export const DUE_SQL = "SELECT 1 AS due FROM jobs WHERE status = 'queued' AND run_at <= $now LIMIT 1";

/** When the soonest queued job is due (the table holds only live jobs: a short scan, once at start). */
export const NEXT_RUN_SQL = "SELECT min(run_at) AS at FROM jobs WHERE status = 'queued'";

/** Whether a live job of a kind has a value in its payload (a retry of a reply still under way). */
export const LIVE_WITH_SQL =
  "SELECT 1 AS live FROM jobs WHERE kind = $kind AND json_extract(payload, $path) = $value LIMIT 1";

type Raw = Record<string, unknown>;

/** A row as bun:sqlite returns it, in the schema's property names. */
function toRow(raw: Raw): JobRow {
  return {
    seq: raw.seq as number,
    id: raw.id as string,
    kind: raw.kind as string,
    payload: raw.payload as string,
    status: raw.status as string,
    attempts: raw.attempts as number,
    runAt: raw.run_at as number,
    lease: raw.lease as string | null,
    lockedUntil: raw.locked_until as number | null,
    lastError: raw.last_error as string | null,
    createdAt: raw.created_at as number,
    updatedAt: raw.updated_at as number,
  };
}

export class JobsStore {
  constructor(
    private readonly db: Db,
    private readonly engine: "sqlite" | "postgres" = "sqlite",
  ) {}

  private readonly insertJob = prepared(() => insertRow(this.db, jobs));
  private readonly claimJob = prepared(() =>
    this.db.$client.query<Raw, Record<string, string | number>>(this.engine === "postgres" ? CLAIM_SQL_PG : CLAIM_SQL),
  );
  private readonly reclaimJobs = prepared(() => this.db.$client.query(RECLAIM_SQL));
  private readonly lapsed = prepared(() =>
    this.db.$client.query<{ lapsed: number }, Record<string, number>>(LAPSED_SQL),
  );
  private readonly due = prepared(() => this.db.$client.query<{ due: number }, Record<string, number>>(DUE_SQL));
  private readonly renewLease = prepared(() =>
    this.db.$client.query("UPDATE jobs SET locked_until = $until WHERE seq = $seq AND lease = $lease"),
  );
  private readonly requeue = prepared(() =>
    this.db.$client.query(
      `UPDATE jobs SET status = 'queued', lease = NULL, locked_until = NULL, last_error = $error, run_at = $runAt,
        updated_at = $now WHERE seq = $seq AND lease = $lease`,
    ),
  );
  private readonly remove = prepared(() =>
    this.db.$client.query("DELETE FROM jobs WHERE seq = $seq AND lease = $lease"),
  );
  private readonly deferJob = prepared(() =>
    this.db.$client.query("UPDATE jobs SET run_at = $runAt, updated_at = $now WHERE seq = $seq AND lease = $lease"),
  );
  private readonly savePayload = prepared(() =>
    this.db.$client.query("UPDATE jobs SET payload = $payload, updated_at = $now WHERE seq = $seq AND lease = $lease"),
  );

  /** The newest `created_at` given to a job by this process. */
  private latestCreatedAt: number | undefined;

  /**
   * Queues a job; call inside the transaction of the write that causes it. Each job gets a `created_at` of its
   * own (a millisecond after the last when several come at once), so the staff activity, which pages by that
   * time, never has two entries on one instant to skip at a page boundary. A restart takes longer than any
   * burst runs ahead of the clock, so the last stamp need not be read back from the table.
   */
  enqueue(row: NewJob): void {
    const createdAt = nextStamp(this.latestCreatedAt, row.createdAt);
    this.latestCreatedAt = createdAt;
    this.insertJob().run({ ...row, seq: null, createdAt });
  }

  /** The oldest due queued job, now running under `lease` until `until`. */
  claim(lease: string, now: number, until: number): JobRow | undefined {
    // `.all()`, not `.get()`: a `RETURNING` statement left un-reset pins the WAL.
    const raw = this.claimJob().all({ $lease: lease, $until: until, $now: now })[0];
    return raw ? toRow(raw) : undefined;
  }

  /** Returns to the queue every running job whose lease ended before `before`; how many. */
  reclaim(before: number, now: number): number {
    return this.reclaimJobs().run({ $before: before, $now: now }).changes;
  }

  /** The running jobs' claims. */
  runningLeases(): { seq: number; lease: string }[] {
    return this.runningClaims().all() as { seq: number; lease: string }[];
  }

  /** Returns one running job to the queue, if `lease` still holds it (a start found its node gone). */
  reclaimOne(seq: number, lease: string, now: number): boolean {
    return this.reclaimClaim().run({ $seq: seq, $lease: lease, $now: now }).changes > 0;
  }

  private readonly runningClaims = prepared(() =>
    this.db.$client.query("SELECT seq, lease FROM jobs WHERE status = 'running' AND lease IS NOT NULL"),
  );
  private readonly reclaimClaim = prepared(() =>
    this.db.$client.query(
      `UPDATE jobs SET status = 'queued', lease = NULL, locked_until = NULL, updated_at = $now
        WHERE seq = $seq AND lease = $lease AND status = 'running'`,
    ),
  );

  /** Whether some running job's lease ended before `now`. */
  hasLapsed(now: number): boolean {
    return this.lapsed().all({ $now: now }).length > 0;
  }

  /** When the soonest queued job is due; null when none waits. */
  nextRunAt(): number | null {
    return (this.db.$client.query(NEXT_RUN_SQL).get() as { at: number | null } | null)?.at ?? null;
  }

  /** Whether some queued job is due at `now`. */
  hasDue(now: number): boolean {
    return this.due().all({ $now: now }).length > 0;
  }

  /** Extends the lease; false when it is no longer ours. */
  renew(seq: number, lease: string, until: number): boolean {
    return this.renewLease().run({ $seq: seq, $lease: lease, $until: until }).changes > 0;
  }

  /** Ends the claim for good: the job leaves the queue. False when the lease was lost. */
  end(seq: number, lease: string): boolean {
    return this.remove().run({ $seq: seq, $lease: lease }).changes > 0;
  }

  /**
   * Makes the job due no earlier than `runAt` should its claim lapse (a restart): a running job is not claimed
   * again before then. False when the lease was lost.
   */
  resumeNotBefore(seq: number, lease: string, runAt: number): boolean {
    return this.deferJob().run({ $seq: seq, $lease: lease, $runAt: runAt, $now: Date.now() }).changes > 0;
  }

  /** Puts the job back in the queue, due at `runAt`, with the error that ended this attempt. False when the lease was lost. */
  retryLater(seq: number, lease: string, error: string, runAt: number): boolean {
    return this.requeue().run({ $seq: seq, $lease: lease, $error: error, $runAt: runAt, $now: Date.now() }).changes > 0;
  }

  private readonly liveWith = prepared(() =>
    this.db.$client.query<{ live: number }, Record<string, string>>(LIVE_WITH_SQL),
  );

  /**
   * Whether a live job (queued or running) of `kind` has `value` at `path` of its payload (`$.replaces`). The
   * table holds only the live queue, so the scan is short, and a caller asks this rarely (a person's retry).
   */
  hasLive(kind: string, path: string, value: string): boolean {
    return this.liveWith().all({ $kind: kind, $path: path, $value: value }).length > 0;
  }

  /** Records progress that must survive a restart (a launched run); false when the lease was lost. */
  saveProgress(seq: number, lease: string, payload: string): boolean {
    return this.savePayload().run({ $seq: seq, $lease: lease, $payload: payload, $now: Date.now() }).changes > 0;
  }
}
