/** Queues durable jobs, in the unit of the write that causes them; the runner hears of each once committed. */
import type { UnitOfWork } from "../db/unit";
import { newId } from "../lib/ids";
import type { JobsStore } from "./jobs.store";

export class JobQueue {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: JobsStore,
  ) {}

  /** Queues a job of `kind`, due now, in the caller's unit (the write that causes it); its id. */
  enqueue(kind: string, payload: unknown): string {
    return this.uow.write((unit) => {
      const now = Date.now();
      const id = newId();
      this.store.enqueue({
        id,
        kind,
        payload: JSON.stringify(payload),
        status: "queued",
        attempts: 0,
        runAt: now,
        lease: null,
        lockedUntil: null,
        lastError: null,
        createdAt: now,
        updatedAt: now,
      });
      unit.emit({ type: "job.queued", organization_id: "", space_id: "", payload: { kind } });
      return id;
    });
  }

  /** Whether a job of `kind` whose payload has `value` at `path` is queued or running. */
  hasLive(kind: string, path: string, value: string): boolean {
    return this.store.hasLive(kind, path, value);
  }
}
