/** Stored provider keys. */
import { and, eq, sql } from "drizzle-orm";
import { type Db, prepared } from "../../db/client";
import { integrations } from "../../db/schema";

export type IntegrationRow = typeof integrations.$inferSelect;

export class IntegrationsStore {
  constructor(private readonly db: Db) {}

  private readonly byProvider = prepared(() =>
    this.db
      .select()
      .from(integrations)
      .where(
        and(eq(integrations.orgId, sql.placeholder("orgId")), eq(integrations.provider, sql.placeholder("provider"))),
      )
      .prepare(),
  );

  /** Read by every reply job (the key it calls its provider with), hence prepared. */
  get(orgId: string, provider: string): IntegrationRow | undefined {
    return this.byProvider().all({ orgId, provider })[0];
  }

  /** Every stored key, for the start-up check that they can be read. */
  all(): IntegrationRow[] {
    return this.db.select().from(integrations).all();
  }

  put(row: IntegrationRow): void {
    this.db
      .insert(integrations)
      .values(row)
      .onConflictDoUpdate({
        target: [integrations.orgId, integrations.provider],
        set: {
          keyCiphertext: row.keyCiphertext,
          keyHint: row.keyHint,
          updatedBy: row.updatedBy,
          updatedAt: row.updatedAt,
        },
      })
      .run();
  }

  delete(orgId: string, provider: string): void {
    this.db
      .delete(integrations)
      .where(and(eq(integrations.orgId, orgId), eq(integrations.provider, provider)))
      .run();
  }
}
