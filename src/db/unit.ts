/**
 * The unit of work: every write runs in one, through `UnitOfWork.write` or the group commit. The callback gets
 * the unit and records what it wrote with `unit.emit(event)`; whatever must follow the write goes in
 * `unit.afterCommit(fn)`. Events reach their in-transaction handlers as they are emitted, and the subscribers
 * (live sockets, caches, the job runner) only once COMMIT succeeded, in the order emitted; a unit that rolls
 * back publishes nothing. A write started inside another one joins it: all of it commits, or none.
 */
import type { DomainEvent, EventBus, Unit } from "../core/events";
import type { Db } from "./client";

/** The events and after-commit steps of one unit, in order, until it commits (or is dropped). */
export class PendingUnit implements Unit {
  private readonly steps: (DomainEvent | (() => void))[] = [];

  constructor(private readonly bus: EventBus) {}

  emit(event: DomainEvent): void {
    // Recorded before its handlers run: what they emit follows it.
    this.steps.push(event);
    this.bus.handle(event, this);
  }

  afterCommit(fn: () => void): void {
    this.steps.push(fn);
  }

  /** The transaction committed: publishes the events and runs the steps, once, in order. */
  committed(): void {
    const steps = this.steps;
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i] as DomainEvent | (() => void);
      if (typeof step !== "function") {
        this.bus.publish(step);
        continue;
      }
      try {
        step();
      } catch (error) {
        this.bus.failed(error);
      }
    }
    steps.length = 0;
  }
}

/** Runs writes as units of work on one connection. */
export class UnitOfWork {
  /** The unit of the write running now: transactions are synchronous, so there is at most one. */
  private current: PendingUnit | null = null;

  constructor(
    private readonly db: Db,
    readonly events: EventBus,
  ) {}

  /** Whether a write is running now (code called from inside one would join it). */
  get writing(): boolean {
    return this.current !== null;
  }

  /**
   * Runs `fn` in a `BEGIN IMMEDIATE` transaction (the write lock taken up front, so no upgrade deadlock), then
   * publishes what it emitted. Called inside a unit already (a job posting its reply as it finishes), `fn`
   * joins it.
   */
  write<T>(fn: (unit: Unit) => T): T {
    if (this.current) return fn(this.current);
    if (this.db.$client.inTransaction) throw new Error("a write inside a transaction that is not a unit of work");
    const unit = new PendingUnit(this.events);
    const value = this.within(unit, (u) => this.db.transaction(() => fn(u), { behavior: "immediate" }));
    unit.committed();
    return value;
  }

  /** A new unit, for a transaction the caller runs itself (the group commit). */
  unit(): PendingUnit {
    return new PendingUnit(this.events);
  }

  /** Runs `fn` as `unit`: writes started inside it join it. */
  within<T>(unit: PendingUnit, fn: (unit: Unit) => T): T {
    const outer = this.current;
    this.current = unit;
    try {
      return fn(unit);
    } finally {
      this.current = outer;
    }
  }
}
