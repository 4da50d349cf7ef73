/** Stored provider keys. */
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { integrations } from "../../db/schema";

export type IntegrationRow = typeof integrations.$inferSelect;

export class IntegrationsStore {
  constructor(private readonly db: Db) {}

  get(orgId: string, provider: string): IntegrationRow | undefined {
    return this.db
      .select()
      .from(integrations)
      .where(and(eq(integrations.orgId, orgId), eq(integrations.provider, provider)))
      .all()[0];
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
