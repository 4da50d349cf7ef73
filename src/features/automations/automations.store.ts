/** Automation rows, their runs, and the webhook deliveries already taken. */
import { and, asc, desc, eq, isNotNull, lt, sql } from "drizzle-orm";
import { type Db, prepared } from "../../db/client";
import { changedColumnsUpdater, insertRow } from "../../db/prepared";
import { automationRuns, automations, webhookDeliveries } from "../../db/schema";

export type AutomationRow = typeof automations.$inferSelect;
export type RunRow = typeof automationRuns.$inferSelect;

/** An automation as a webhook delivery sees it. */
export interface WebhookState {
  id: string;
  spaceId: string;
  kind: string;
  status: string;
  configProblem: string | null;
  secretCiphertext: string | null;
  /** Its runs that wait to start: a flood of deliveries is bounded by their count. */
  queuedRuns: number;
}

const p = sql.placeholder;

/** How long what a webhook delivery reads of an automation is remembered (`webhookState`). */
const WEBHOOK_MEMO_MS = 30_000;
/** Automations remembered at most; the oldest entry goes first. */
const WEBHOOK_MEMO_MAX = 10_000;

/**
 * What a webhook delivery reads of its automation, and only that, in one statement: the whole row through drizzle
 * cost several times this. Its queued runs are counted from `automation_runs_queued_idx` alone, not from its
 * whole history.
 */
export const WEBHOOK_STATE_SQL =
  "SELECT id, space_id AS spaceId, kind, status, config_problem AS configProblem, webhook_secret_ciphertext AS secretCiphertext, (SELECT count(*) FROM automation_runs WHERE automation_id = $id AND status = 'queued') AS queuedRuns FROM automations WHERE id = $id";

/** The run of a delivery id taken since `$since`. */
export const DELIVERY_RUN_SQL =
  "SELECT run_id AS runId FROM webhook_deliveries WHERE automation_id = $automationId AND delivery_id = $deliveryId AND created_at >= $since";

/**
 * A delivery taken, unless its id was taken since `$since` (it changes no row then); it replaces a row of the same
 * id older than that, not pruned yet. One statement where a read and an insert were: every delivery runs it.
 * (With `RETURNING`, read through `.all()`, it cost 8 µs against 5 µs.)
 */
export const TAKE_DELIVERY_SQL =
  "INSERT INTO webhook_deliveries (automation_id, delivery_id, run_id, created_at) VALUES ($automationId, $deliveryId, $runId, $createdAt) ON CONFLICT (automation_id, delivery_id) DO UPDATE SET run_id = excluded.run_id, created_at = excluded.created_at WHERE webhook_deliveries.created_at < $since";

export class AutomationsStore {
  constructor(private readonly db: Db) {}

  /**
   * What webhook deliveries read of an automation (`webhookState`), remembered: each delivery reads it in the
   * transaction that stores it, and the read was about a tenth of what a delivery costs. Correct by construction,
   * as the access memo (`core/access-memo.ts`): this store is the only writer of automations and their runs in
   * this process, and each write keeps the entry right in the same step. A write of the automation drops it; a
   * run queued counts one more, a run leaving the queue one less. Entries last `WEBHOOK_MEMO_MS`, which bounds
   * what the store does not see: a row deleted with its space, a write of another process, a count left high or
   * low by a transaction that rolled back after the step.
   */
  private readonly webhookMemo = new Map<string, { state: WebhookState; at: number }>();

  /** Drops what is remembered: another node wrote (PostgreSQL mode), and it is read again when next needed. */
  forgetRemembered(): void {
    this.webhookMemo.clear();
  }

  private readonly bySpace = prepared(() =>
    this.db
      .select()
      .from(automations)
      .where(eq(automations.spaceId, p("spaceId")))
      .orderBy(asc(automations.createdAt), asc(automations.id))
      .prepare(),
  );

  list(spaceId: string): AutomationRow[] {
    return this.bySpace().all({ spaceId });
  }

  get(spaceId: string, id: string): AutomationRow | undefined {
    return this.db
      .select()
      .from(automations)
      .where(and(eq(automations.spaceId, spaceId), eq(automations.id, id)))
      .all()[0];
  }

  private readonly byIdStatement = prepared(() =>
    this.db
      .select()
      .from(automations)
      .where(eq(automations.id, p("id")))
      .prepare(),
  );

  /** An automation by id alone (an inbound webhook, a run), whatever its space. */
  byId(id: string): AutomationRow | undefined {
    return this.byIdStatement().all({ id })[0];
  }

  /** Every automation of the organization (a staff member's account went away: checked again). */
  ofOrg(orgId: string): AutomationRow[] {
    return this.db.select().from(automations).where(eq(automations.orgId, orgId)).all();
  }

  private readonly insertAutomation = prepared(() => insertRow(this.db, automations));
  private readonly saveAutomation = changedColumnsUpdater<AutomationRow>(() => this.db, automations, automations.id);

  insert(row: AutomationRow): void {
    this.insertAutomation().run(row);
  }

  save(before: AutomationRow, after: AutomationRow): void {
    this.saveAutomation(before, after);
    // A run's bookkeeping (`last_run_at`, `last_error`) leaves what a delivery reads as it was.
    const changed =
      before.status !== after.status ||
      before.configProblem !== after.configProblem ||
      before.webhookSecretCiphertext !== after.webhookSecretCiphertext ||
      before.kind !== after.kind ||
      before.spaceId !== after.spaceId;
    if (changed) this.forgetWebhook(after.id);
  }

  delete(id: string): void {
    this.db.delete(automations).where(eq(automations.id, id)).run();
    this.forgetWebhook(id);
  }

  // Schedules

  /** Every automation with a next scheduled run, for the scheduler's start (`automations_next_run_idx`). */
  scheduled(): { id: string; nextRunAt: number }[] {
    return this.db
      .select({ id: automations.id, nextRunAt: automations.nextRunAt })
      .from(automations)
      .where(isNotNull(automations.nextRunAt))
      .all() as { id: string; nextRunAt: number }[];
  }

  private readonly claimTickStatement = prepared(() =>
    this.db.$client.prepare(
      "UPDATE automations SET next_run_at = $next WHERE id = $id AND next_run_at = $at AND status = 'active'",
    ),
  );

  /**
   * Takes the tick due at `at` and moves the schedule on to `next`: true only for the one writer that found it
   * still due at `at` (a tick is taken once, whatever runs it).
   */
  claimTick(id: string, at: number, next: number | null): boolean {
    return this.claimTickStatement().run({ $id: id, $at: at, $next: next }).changes === 1;
  }

  // Runs

  private readonly insertRunRow = prepared(() => insertRow(this.db, automationRuns));
  private readonly saveRunRow = changedColumnsUpdater<RunRow>(() => this.db, automationRuns, automationRuns.id);
  private readonly runById = prepared(() =>
    this.db
      .select()
      .from(automationRuns)
      .where(eq(automationRuns.id, p("id")))
      .prepare(),
  );
  private readonly runsPage = prepared(() =>
    this.db
      .select()
      .from(automationRuns)
      .where(and(eq(automationRuns.automationId, p("automationId")), lt(automationRuns.createdAt, p("before"))))
      .orderBy(desc(automationRuns.createdAt), desc(automationRuns.id))
      .limit(p("limit"))
      .prepare(),
  );

  private readonly lastRun = prepared(() =>
    this.db
      .select({ createdAt: automationRuns.createdAt })
      .from(automationRuns)
      .where(eq(automationRuns.automationId, p("automationId")))
      .orderBy(desc(automationRuns.createdAt))
      .limit(1)
      .prepare(),
  );

  /** When the automation's newest run was queued: a new one is stamped later, so `before` pages lose none. */
  latestRunAt(automationId: string): number | undefined {
    return this.lastRun().all({ automationId })[0]?.createdAt;
  }

  insertRun(row: RunRow): void {
    this.insertRunRow().run(row);
    if (row.status === "queued") this.countQueued(row.automationId, 1);
  }

  run(id: string): RunRow | undefined {
    return this.runById().all({ id })[0];
  }

  saveRun(before: RunRow, after: RunRow): void {
    this.saveRunRow(before, after);
    if (before.status === "queued" && after.status !== "queued") this.countQueued(after.automationId, -1);
  }

  /** The newest `limit` runs created before `before`, newest first. */
  runs(automationId: string, before: number, limit: number): RunRow[] {
    return this.runsPage().all({ automationId, before, limit });
  }

  /** Runs of tunnels still marked `running`: at a server's start, those its previous process left. */
  runningConnections(): RunRow[] {
    return this.db
      .select({ run: automationRuns })
      .from(automationRuns)
      .innerJoin(automations, eq(automations.id, automationRuns.automationId))
      .where(and(eq(automations.kind, "reverse_tunnel"), eq(automationRuns.status, "running")))
      .all()
      .map((row) => row.run);
  }

  // Webhook deliveries

  private readonly webhookStatement = prepared(() =>
    this.db.$client.query<WebhookState, { $id: string }>(WEBHOOK_STATE_SQL),
  );
  private readonly deliveryStatement = prepared(() =>
    this.db.$client.query<{ runId: string }, { $automationId: string; $deliveryId: string; $since: number }>(
      DELIVERY_RUN_SQL,
    ),
  );
  private readonly takeStatement = prepared(() => this.db.$client.prepare(TAKE_DELIVERY_SQL));

  /**
   * What a webhook delivery needs to know of the automation `id` (any kind), whatever its space: remembered for
   * a while (`webhookMemo`), or read now when `fresh`. The answer is the store's: read it, never change it.
   */
  webhookState(id: string, fresh = false): WebhookState | undefined {
    const now = Date.now();
    const hit = this.webhookMemo.get(id);
    if (hit && !fresh && now - hit.at < WEBHOOK_MEMO_MS) return hit.state;
    const state = this.webhookStatement().all({ $id: id })[0];
    this.webhookMemo.delete(id);
    if (state === undefined) return undefined;
    if (this.webhookMemo.size >= WEBHOOK_MEMO_MAX) {
      this.webhookMemo.delete(this.webhookMemo.keys().next().value as string);
    }
    this.webhookMemo.set(id, { state, at: now });
    return state;
  }

  /** Drops what is remembered of a webhook (its row turned out to be gone). */
  forgetWebhook(id: string): void {
    this.webhookMemo.delete(id);
  }

  private countQueued(automationId: string, change: number): void {
    const hit = this.webhookMemo.get(automationId);
    if (hit) hit.state.queuedRuns += change;
  }

  /** The run of a delivery taken since `since` (a row older than that is forgotten, pruned or not). */
  deliveryRun(automationId: string, deliveryId: string, since: number): string | undefined {
    return this.deliveryStatement().all({ $automationId: automationId, $deliveryId: deliveryId, $since: since })[0]
      ?.runId;
  }

  /**
   * Records a delivery as taken by the run `row.runId`, unless its id was taken since `since`: false then, and
   * nothing changes (`deliveryRun` tells by which run). One taken before `since` is replaced.
   */
  takeDelivery(row: typeof webhookDeliveries.$inferInsert, since: number): boolean {
    const taken = this.takeStatement().run({
      $automationId: row.automationId,
      $deliveryId: row.deliveryId,
      $runId: row.runId,
      $createdAt: row.createdAt,
      $since: since,
    });
    return taken.changes === 1;
  }

  /** Forgets deliveries taken before `before` (they may run again after 24 hours). */
  pruneDeliveries(before: number): void {
    this.db.delete(webhookDeliveries).where(lt(webhookDeliveries.createdAt, before)).run();
  }
}
