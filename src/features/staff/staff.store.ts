/** Service-account rows. */
import { and, asc, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { serviceAccounts, users } from "../../db/schema";
import { nameKey } from "../../lib/text";

export type ServiceAccountRow = typeof serviceAccounts.$inferSelect;

/** Data access for service accounts. */
export class StaffStore {
  constructor(private readonly db: Db) {}

  list(orgId: string): ServiceAccountRow[] {
    return this.db
      .select()
      .from(serviceAccounts)
      .where(eq(serviceAccounts.orgId, orgId))
      .orderBy(asc(serviceAccounts.createdAt), asc(serviceAccounts.id))
      .all();
  }

  get(orgId: string, id: string): ServiceAccountRow | undefined {
    return this.db
      .select()
      .from(serviceAccounts)
      .where(and(eq(serviceAccounts.orgId, orgId), eq(serviceAccounts.id, id)))
      .all()[0];
  }

  byName(orgId: string, name: string): ServiceAccountRow | undefined {
    return this.db
      .select()
      .from(serviceAccounts)
      .where(and(eq(serviceAccounts.orgId, orgId), eq(serviceAccounts.nameKey, nameKey(name))))
      .all()[0];
  }

  insert(row: ServiceAccountRow): void {
    this.db.insert(serviceAccounts).values(row).run();
  }

  update(id: string, patch: Partial<ServiceAccountRow>): void {
    this.db.update(serviceAccounts).set(patch).where(eq(serviceAccounts.id, id)).run();
  }

  /** Deleting the backing user cascades to the account, its memberships, roles and sessions. */
  deleteWithUser(userId: string): void {
    this.db.delete(users).where(eq(users.id, userId)).run();
  }
}
