/** The audit log's table (`audit_events`): one insert per act, read newest first, pruned after a year. */
import { and, desc, eq, lt } from "drizzle-orm";
import { type Db, prepared } from "../../db/client";
import { insertRow } from "../../db/prepared";
import { auditEvents } from "../../db/schema";

export type AuditRow = typeof auditEvents.$inferSelect;

/** The time of an organization's newest record. */
export const NEWEST_SQL = "SELECT max(created_at) AS at FROM audit_events WHERE org_id = $org";

/** A batch of the records older than `$before`, organization by organization (one install holds one). */
export const DELETE_OLD_SQL = `DELETE FROM audit_events WHERE rowid IN (
  SELECT a.rowid FROM organizations o JOIN audit_events a ON a.org_id = o.id AND a.created_at < $before LIMIT $limit
)`;

/** What a page is filtered by. */
export interface AuditFilter {
  before: number;
  limit: number;
  actorUserId?: string | undefined;
  action?: string | undefined;
}

export class AuditStore {
  constructor(private readonly db: Db) {}

  private readonly insertEvent = prepared(() => insertRow(this.db, auditEvents));

  insert(row: AuditRow): void {
    this.insertEvent().run(row);
  }

  private readonly newest = prepared(() => this.db.$client.prepare(NEWEST_SQL));

  /** The time of the organization's newest record (`audit_events_org_idx`: one index step). */
  latest(orgId: string): number | undefined {
    const [row] = this.newest().all({ org: orgId }) as { at: number | null }[];
    return row?.at ?? undefined;
  }

  /**
   * Newest first, before `before` (exclusive), by one actor or of one action: each filter has its index
   * (`audit_events_actor_idx`, `audit_events_action_idx`), the page without one `audit_events_org_idx`.
   */
  list(orgId: string, filter: AuditFilter): AuditRow[] {
    return this.db
      .select()
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.orgId, orgId),
          filter.actorUserId ? eq(auditEvents.actorUserId, filter.actorUserId) : undefined,
          filter.action ? eq(auditEvents.action, filter.action) : undefined,
          lt(auditEvents.createdAt, filter.before),
        ),
      )
      .orderBy(desc(auditEvents.createdAt))
      .limit(filter.limit)
      .all();
  }

  /** Removes up to `limit` records older than `before` (through `audit_events_org_idx`): how many it removed. */
  deleteOlderThan(before: number, limit: number): number {
    return this.deleteOld().run({ before, limit }).changes;
  }

  private readonly deleteOld = prepared(() => this.db.$client.prepare(DELETE_OLD_SQL));
}
