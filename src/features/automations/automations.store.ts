/** Automation rows, their runs, and the webhook deliveries already taken. */
import { and, asc, desc, eq, isNotNull, lt, sql } from "drizzle-orm";
import { type Db, prepared } from "../../db/client";
import { changedColumnsUpdater, insertRow } from "../../db/prepared";
import { automationRuns, automations, webhookDeliveries } from "../../db/schema";

export type AutomationRow = typeof automations.$inferSelect;
export type RunRow = typeof automationRuns.$inferSelect;

const p = sql.placeholder;

export class AutomationsStore {
  constructor(private readonly db: Db) {}

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
  }

  delete(id: string): void {
    this.db.delete(automations).where(eq(automations.id, id)).run();
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

  insertRun(row: RunRow): void {
    this.insertRunRow().run(row);
  }

  run(id: string): RunRow | undefined {
    return this.runById().all({ id })[0];
  }

  saveRun(before: RunRow, after: RunRow): void {
    this.saveRunRow(before, after);
  }

  /** The newest `limit` runs created before `before`, newest first. */
  runs(automationId: string, before: number, limit: number): RunRow[] {
    return this.runsPage().all({ automationId, before, limit });
  }

  /** How many runs of the automation wait to start: a flood of deliveries is bounded by it. */
  queuedRuns(automationId: string): number {
    return (
      this.db.$client
        .query<{ n: number }, { $id: string }>(
          "SELECT count(*) AS n FROM automation_runs WHERE automation_id = $id AND status = 'queued'",
        )
        .get({ $id: automationId })?.n ?? 0
    );
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

  /** The run of a delivery taken before (its id seen within the last 24 hours). */
  deliveryRun(automationId: string, deliveryId: string): string | undefined {
    return this.db
      .select({ runId: webhookDeliveries.runId })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.automationId, automationId), eq(webhookDeliveries.deliveryId, deliveryId)))
      .all()[0]?.runId;
  }

  insertDelivery(row: typeof webhookDeliveries.$inferInsert): void {
    this.db.insert(webhookDeliveries).values(row).run();
  }

  /** Forgets deliveries taken before `before` (they may run again after 24 hours). */
  pruneDeliveries(before: number): void {
    this.db.delete(webhookDeliveries).where(lt(webhookDeliveries.createdAt, before)).run();
  }
}
