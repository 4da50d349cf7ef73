/**
 * The schedule of every automation with a cron, as one timer: the automations' `next_run_at` are kept in memory
 * (read once at start, then followed through `automation.updated` and `automation.deleted`), and one timeout is
 * set for the earliest. Nothing is polled per automation.
 *
 * A tick is taken in a unit of work that moves `next_run_at` on (only if it is still the one due: a tick is
 * taken once) and queues the run with its job; the next tick is the cron's first after now, so after a downtime
 * a missed tick runs once, not once per tick missed.
 */
import type { DomainEvent, EventBus } from "../../core/events";
import type { UnitOfWork } from "../../db/unit";
import type { Logger } from "../../lib/log";
import { nextTick } from "./automations.config";
import { presentAutomation } from "./automations.present";
import { type AutomationsService, automationEvent } from "./automations.service";
import type { AutomationsStore } from "./automations.store";

/** The longest the timer sleeps: a clock set forward, or a schedule changed elsewhere, is noticed by then. */
const MAX_SLEEP_MS = 60_000;

export class Scheduler {
  /** Next run by automation. */
  private readonly due = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private rearm: ReturnType<typeof setImmediate> | null = null;
  private stopped = true;
  private unsubscribe: (() => void) | null = null;
  /** When a failure to take a tick was last logged: once a minute while it lasts. */
  private lastFailureLog = 0;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: AutomationsStore,
    private readonly automations: Pick<AutomationsService, "queueRun">,
    private readonly log: Logger,
  ) {}

  start(events: EventBus): void {
    if (!this.stopped) return;
    this.stopped = false;
    for (const { id, nextRunAt } of this.store.scheduled()) this.due.set(id, nextRunAt);
    this.unsubscribe = events.subscribe((event) => this.follow(event), "everywhere");
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    if (this.rearm) clearImmediate(this.rearm);
    this.timer = null;
    this.rearm = null;
  }

  /** An automation's schedule changed: keep its next run, and set the timer again once the turn is done. */
  private follow(event: DomainEvent): void {
    if (event.type === "automation.deleted") this.due.delete(event.payload.id);
    else if (event.type === "automation.updated") {
      const at = event.payload.next_run_at;
      this.track(event.payload.id, at === null ? null : Date.parse(at));
    } else return;
    this.rearm ??= setImmediate(() => {
      this.rearm = null;
      this.arm();
    });
  }

  private track(id: string, at: number | null): void {
    if (at === null) this.due.delete(id);
    else this.due.set(id, at);
  }

  /** One timeout, for the earliest next run (or the longest sleep). */
  private arm(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    let earliest = Number.POSITIVE_INFINITY;
    for (const at of this.due.values()) if (at < earliest) earliest = at;
    const wait = Math.min(Math.max(0, earliest - Date.now()), MAX_SLEEP_MS);
    this.timer = setTimeout(() => this.tick(), wait);
    this.timer.unref?.();
  }

  /** Takes every tick that is due, in one unit of work. */
  private tick(): void {
    this.timer = null;
    const now = Date.now();
    const due = [...this.due].filter(([, at]) => at <= now);
    if (due.length > 0) {
      try {
        this.uow.write((unit) => {
          for (const [id, at] of due) {
            const row = this.store.byId(id);
            const current = row?.status === "active" && row.configProblem === null ? row.nextRunAt : null;
            // What is kept here was behind what is stored (changed meanwhile): follow the store.
            if (!row || current !== at) {
              this.track(id, current);
              continue;
            }
            const next = nextTick(JSON.parse(row.config), new Date(Math.max(now, at)));
            if (!this.store.claimTick(id, at, next)) {
              // Taken by another writer: follow what it stored.
              this.track(id, this.store.byId(id)?.nextRunAt ?? null);
              continue;
            }
            this.automations.queueRun(row, "schedule", null);
            const moved = { ...row, nextRunAt: next };
            unit.emit(automationEvent(moved, "automation.updated", presentAutomation(moved)));
          }
        });
      } catch (error) {
        // A full disk: the ticks stay due and are taken at the next wake-up; nothing is lost.
        if (now - this.lastFailureLog >= 60_000) {
          this.lastFailureLog = now;
          this.log.error({ err: error }, "taking due automation ticks failed; trying again");
        }
        this.timer = setTimeout(() => this.tick(), 1000);
        this.timer.unref?.();
        return;
      }
    }
    this.arm();
  }
}
