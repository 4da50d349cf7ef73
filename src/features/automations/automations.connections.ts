/**
 * The runs of a reverse tunnel (contract §8): each connection of its connector is one run, `running` while it
 * is connected, ended when it closes with `output {requests}`. No job carries them: a connection is not queued,
 * it happens. A server that stopped without ending them (a crash, `kill -9`) ends them when it starts again;
 * with several nodes on PostgreSQL, the runs no live node holds are ended (tunnels.nodes.ts says which are held).
 */
import type { UnitOfWork } from "../../db/unit";
import { isUuid, newId } from "../../lib/ids";
import { presentAutomation, presentRun } from "./automations.present";
import { automationEvent } from "./automations.service";
import type { AutomationRow, AutomationsStore, RunRow } from "./automations.store";

/** How a connection ended: normally, or with what went wrong; `requests` null when no one counted them. */
export interface ConnectionEnd {
  requests: number | null;
  error: string | null;
}

/** What a run left `running` by a previous process says. */
const LEFT_RUNNING = "the server stopped while the tunnel was connected";

export class ConnectionRuns {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: AutomationsStore,
  ) {}

  /** An automation by id alone, whatever its space (the tunnel routes name none); its visibility is the caller's. */
  automation(id: string): AutomationRow | undefined {
    return isUuid(id) ? this.store.byId(id.toLowerCase()) : undefined;
  }

  /**
   * A connection began: its run, `running` from now, and the automation's `last_run_at`, announced as any run's
   * start; `also` runs in the same transaction (another node's tunnels learn who holds it), and may refuse by
   * throwing. Undefined when the automation went away meanwhile.
   */
  start(automationId: string, also?: (run: RunRow) => void): RunRow | undefined {
    return this.uow.write((unit) => {
      const automation = this.store.byId(automationId);
      if (!automation) return undefined;
      const now = Date.now();
      const run: RunRow = {
        id: newId(),
        automationId,
        spaceId: automation.spaceId,
        trigger: "connection",
        status: "running",
        attempt: 1,
        input: null,
        output: null,
        error: null,
        startedAt: now,
        finishedAt: null,
        createdAt: now,
      };
      this.store.insertRun(run);
      also?.(run);
      unit.emit(automationEvent(automation, "automation.run.started", presentRun(run)));
      const updated = { ...automation, lastRunAt: now };
      this.store.save(automation, updated);
      unit.emit(automationEvent(updated, "automation.updated", presentAutomation(updated)));
      return run;
    });
  }

  /**
   * The connection ended: `succeeded` with how many requests it carried, or `failed` saying why; `also` runs in
   * the same transaction, whatever became of the run.
   */
  end(runId: string, end: ConnectionEnd, also?: () => void): void {
    this.uow.write((unit) => {
      also?.();
      const run = this.store.run(runId);
      const automation = run && this.store.byId(run.automationId);
      // Deleted with its automation, or ended already.
      if (!run || !automation || run.status !== "running") return;
      const ended: RunRow = {
        ...run,
        status: end.error === null ? "succeeded" : "failed",
        finishedAt: Date.now(),
        output: end.requests === null ? null : JSON.stringify({ requests: end.requests }),
        error: end.error,
      };
      this.store.saveRun(run, ended);
      unit.emit(automationEvent(automation, "automation.run.finished", presentRun(ended)));
      if (automation.lastError === end.error) return;
      const updated = { ...automation, lastError: end.error };
      this.store.save(automation, updated);
      unit.emit(automationEvent(updated, "automation.updated", presentAutomation(updated)));
    });
  }

  /**
   * Ends the runs a previous process left `running` (it stopped without ending them), but those `held` says a live
   * process holds; how many there were. `held` is asked after the running runs are read: a run that starts
   * meanwhile is not among them, and one among them is already held.
   */
  endLeftRunning(held: () => ReadonlySet<string> = () => new Set()): number {
    const running = this.store.runningConnections();
    const kept = running.length > 0 ? held() : new Set<string>();
    const left = running.filter((run) => !kept.has(run.id));
    for (const run of left) this.end(run.id, { requests: null, error: LEFT_RUNNING });
    return left.length;
  }
}
