/**
 * The job table: enqueue inside the caller's transaction, claim with one UPDATE ... RETURNING, and every later
 * write guarded by the claim's lease, so a worker that lost its claim (it stalled, the process was replaced)
 * can change nothing.
 */
import { type Db, prepared } from "../db/client";
import { insertRow } from "../db/prepared";
import { jobs } from "../db/schema";
import { nextStamp } from "../lib/ids";

export type JobRow = typeof jobs.$inferSelect;

/** The oldest due job is claimed (`jobs_status_run_idx`). */
export const CLAIM_SQL = `UPDATE jobs SET status = 'running', attempts = attempts + 1, lease = $lease,
  locked_until = $until, updated_at = $now
  WHERE id = (SELECT id FROM jobs WHERE status = 'queued' AND run_at <= $now ORDER BY run_at, id LIMIT 1)
  RETURNING *`;

/** Claims whose lease lapsed go back to the queue (the running rows, at most the worker count, by `jobs_status_run_idx`). */
export const RECLAIM_SQL = `UPDATE jobs SET status = 'queued', lease = NULL, locked_until = NULL, updated_at = $now
  WHERE status = 'running' AND locked_until < $before`;

/** When the next queued job is due (`jobs_status_run_idx`). */
export const NEXT_DUE_SQL = "SELECT min(run_at) AS at FROM jobs WHERE status = 'queued'";

/** Whether a running job's lease lapsed. */
export const LAPSED_SQL = "SELECT 1 AS lapsed FROM jobs WHERE status = 'running' AND locked_until < $now LIMIT 1";

type Raw = Record<string, unknown>;

/** A row as bun:sqlite returns it, in the schema's property names. */
function toRow(raw: Raw): JobRow {
  return {
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
  constructor(private readonly db: Db) {}

  private readonly insertJob = prepared(() => insertRow(this.db, jobs));
  private readonly claimJob = prepared(() => this.db.$client.query<Raw, Record<string, string | number>>(CLAIM_SQL));
  private readonly reclaimJobs = prepared(() => this.db.$client.query(RECLAIM_SQL));
  private readonly lapsed = prepared(() =>
    this.db.$client.query<{ lapsed: number }, Record<string, number>>(LAPSED_SQL),
  );
  private readonly nextDue = prepared(() => this.db.$client.query<{ at: number | null }, []>(NEXT_DUE_SQL));
  private readonly renewLease = prepared(() =>
    this.db.$client.query("UPDATE jobs SET locked_until = $until WHERE id = $id AND lease = $lease"),
  );
  private readonly settle = prepared(() =>
    this.db.$client.query(
      `UPDATE jobs SET status = $status, lease = NULL, locked_until = NULL, last_error = $error, run_at = $runAt,
        updated_at = $now WHERE id = $id AND lease = $lease`,
    ),
  );
  private readonly savePayload = prepared(() =>
    this.db.$client.query("UPDATE jobs SET payload = $payload, updated_at = $now WHERE id = $id AND lease = $lease"),
  );

  /** The newest `created_at` given to a job by this process. */
  private latestCreatedAt: number | undefined;

  /**
   * Queues a job; call inside the transaction of the write that causes it. Each job gets a `created_at` of its
   * own (a millisecond after the last when several come at once), so the staff activity, which pages by that
   * time, never has two entries on one instant to skip at a page boundary. A restart takes longer than any
   * burst runs ahead of the clock, so the last stamp need not be read back from the table.
   */
  enqueue(row: JobRow): void {
    const createdAt = nextStamp(this.latestCreatedAt, row.createdAt);
    this.latestCreatedAt = createdAt;
    this.insertJob().run(createdAt === row.createdAt ? row : { ...row, createdAt });
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

  /** Whether some running job's lease ended before `now`. */
  hasLapsed(now: number): boolean {
    return this.lapsed().all({ $now: now }).length > 0;
  }

  /** When the next queued job is due, if any is queued. */
  nextDueAt(): number | undefined {
    return this.nextDue().all()[0]?.at ?? undefined;
  }

  /** Extends the lease; false when it is no longer ours. */
  renew(id: string, lease: string, until: number): boolean {
    return this.renewLease().run({ $id: id, $lease: lease, $until: until }).changes > 0;
  }

  /** Ends the claim: `done` or `failed` for good, or `queued` again at `runAt`. False when the lease was lost. */
  finish(
    id: string,
    lease: string,
    outcome: { status: "done" | "failed" | "queued"; error?: string | null; runAt?: number },
  ): boolean {
    const now = Date.now();
    return (
      this.settle().run({
        $id: id,
        $lease: lease,
        $status: outcome.status,
        $error: outcome.error ?? null,
        $runAt: outcome.runAt ?? now,
        $now: now,
      }).changes > 0
    );
  }

  /** Records progress that must survive a restart (a launched run); false when the lease was lost. */
  saveProgress(id: string, lease: string, payload: string): boolean {
    return this.savePayload().run({ $id: id, $lease: lease, $payload: payload, $now: Date.now() }).changes > 0;
  }
}
