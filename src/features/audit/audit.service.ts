/**
 * The audit log: who did what to what, when and from which address. No service calls it: its handlers
 * (`audit.records.ts`) hear the events of the acts it records and write each record in the transaction of the
 * act, so an act and its record commit together, and an act refused or rolled back leaves none. Owners
 * (`org.manage`) read it newest first; records older than a year are removed in batches.
 */
import type { OrgActor, Principal } from "../../core/actor";
import { pageOf } from "../../core/paging";
import type { UnitOfWork } from "../../db/unit";
import { newId, nextStamp } from "../../lib/ids";
import type { ActorKind, AuditAction, AuditQuery } from "./audit.schemas";
import type { AuditRow, AuditStore } from "./audit.store";

/** How long a record is kept. */
export const AUDIT_RETENTION_MS = 365 * 24 * 3600 * 1000;

/** How many old records one step of the cleanup removes: a few milliseconds, between other requests. */
const PRUNE_BATCH = 1000;

/** Who acts when an event names no actor: the server itself, or (in a `tandem` command) the command line. */
export type Origin = "server" | "command_line";

/** What an act was done to, as it was named at the time. */
export interface AuditTarget {
  type: string;
  id: string | null;
  label: string;
}

/** One act to record. */
export interface AuditEntry {
  orgId: string;
  action: AuditAction;
  target: AuditTarget;
  details: Record<string, unknown>;
}

/** What the log asks of other features, to name people as they are called now. */
export interface ActorDirectory {
  user(userId: string): { displayName: string } | undefined;
}

export class AuditLog {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: AuditStore,
    private readonly directory: ActorDirectory,
    private readonly origin: Origin = "server",
  ) {}

  /** Records `entry` as done by `actor` (none: this process on its own), in the unit of the act. */
  record(actor: Principal | undefined, entry: AuditEntry): void {
    this.uow.write(() => {
      const who = this.who(actor);
      this.store.insert({
        id: newId(),
        orgId: entry.orgId,
        ...who,
        action: entry.action,
        targetType: entry.target.type,
        targetId: entry.target.id,
        targetLabel: entry.target.label,
        details: JSON.stringify(entry.details),
        // Strictly after the organization's newest record, so paging by `before` never skips or repeats one.
        createdAt: nextStamp(this.store.latest(entry.orgId)),
      });
    });
  }

  /** A page of the organization's records, newest first. */
  list(actor: OrgActor, query: AuditQuery): AuditRow[] {
    const { limit, before } = pageOf(query);
    return this.store.list(actor.orgId, { limit, before, actorUserId: query.actor_user_id, action: query.action });
  }

  /**
   * Removes the records older than a year, a batch per transaction with the event loop free in between; how many
   * it removed. Run with the server's other maintenance, hourly.
   */
  async prune(now = Date.now()): Promise<number> {
    let removed = 0;
    for (;;) {
      const n = this.uow.write(() => this.store.deleteOlderThan(now - AUDIT_RETENTION_MS, PRUNE_BATCH));
      removed += n;
      if (n < PRUNE_BATCH) return removed;
      await Bun.sleep(0);
    }
  }

  private who(actor: Principal | undefined): Pick<AuditRow, "actorUserId" | "actorKind" | "actorLabel" | "address"> {
    if (!actor) {
      const label = this.origin === "command_line" ? "command line" : "Tandem";
      return { actorUserId: null, actorKind: this.origin, actorLabel: label, address: null };
    }
    const kind: ActorKind = actor.serviceAccountId ? "service_account" : "user";
    return {
      actorUserId: actor.userId,
      actorKind: kind,
      actorLabel: this.directory.user(actor.userId)?.displayName ?? "",
      address: actor.address || null,
    };
  }
}
