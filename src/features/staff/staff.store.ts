/** Service-account rows. */
import { and, asc, eq, sql } from "drizzle-orm";
import { type Db, prepared } from "../../db/client";
import { orgMembers, serviceAccounts, users } from "../../db/schema";
import { nameKey } from "../../lib/text";

export type ServiceAccountRow = typeof serviceAccounts.$inferSelect;

/** A member as a mention can name them. */
export interface Mentionable {
  userId: string;
  name: string;
  /** Set for staff. */
  serviceAccountId: string | null;
}

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

  private readonly mentionableRows = prepared(() =>
    this.db
      .select({ userId: users.id, name: users.displayName, serviceAccountId: serviceAccounts.id })
      .from(orgMembers)
      .innerJoin(users, eq(users.id, orgMembers.userId))
      .leftJoin(serviceAccounts, eq(serviceAccounts.userId, users.id))
      .where(eq(orgMembers.orgId, sql.placeholder("orgId")))
      .prepare(),
  );

  /** Every member of the organization with the name a mention uses: people too, so the longest name wins. */
  mentionables(orgId: string): Mentionable[] {
    return this.mentionableRows().all({ orgId });
  }

  private readonly byUser = prepared(() =>
    this.db
      .select()
      .from(serviceAccounts)
      .where(
        and(eq(serviceAccounts.orgId, sql.placeholder("orgId")), eq(serviceAccounts.userId, sql.placeholder("userId"))),
      )
      .prepare(),
  );

  /** The staff account backed by a user. */
  byUserId(orgId: string, userId: string): ServiceAccountRow | undefined {
    return this.byUser().all({ orgId, userId })[0];
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
