/** Queries of the organization of this install. */
import type { Database } from "bun:sqlite";
import { asc, eq, sql } from "drizzle-orm";
import { type Db, prepared } from "../../db/client";
import { organizations, orgMembers } from "../../db/schema";

export type OrgRow = typeof organizations.$inferSelect;

/** The organizations table; which ones a user belongs to is read from the memberships beside it. */
export class OrganizationStore {
  constructor(private readonly db: Db) {}

  private readonly orgById = prepared(() =>
    this.db
      .select()
      .from(organizations)
      .where(eq(organizations.id, sql.placeholder("id")))
      .prepare(),
  );

  /** The organization of this install, if set up. */
  private readonly firstOrg = prepared(() =>
    this.db.select().from(organizations).orderBy(asc(organizations.createdAt)).limit(1).prepare(),
  );

  /** The organization of this install, if set up. */
  onlyOrg(): OrgRow | undefined {
    return this.firstOrg().all()[0];
  }

  org(id: string): OrgRow | undefined {
    return this.orgById().all({ id })[0];
  }

  insertOrg(row: OrgRow): void {
    this.db.insert(organizations).values(row).run();
  }

  updateOrg(id: string, patch: Partial<Pick<OrgRow, "name" | "openSignupsEnabled">>, now: number): void {
    this.db
      .update(organizations)
      .set({ ...patch, updatedAt: now })
      .where(eq(organizations.id, id))
      .run();
  }

  private readonly orgsOf = prepared(() =>
    this.db
      .select({ org: organizations })
      .from(orgMembers)
      .innerJoin(organizations, eq(organizations.id, orgMembers.orgId))
      .where(eq(orgMembers.userId, sql.placeholder("userId")))
      .orderBy(asc(organizations.createdAt))
      .prepare(),
  );

  orgsOfUser(userId: string): OrgRow[] {
    return this.orgsOf()
      .all({ userId })
      .map((r) => r.org);
  }
}

/**
 * Whether the install has its organization, at startup: a plain query, since building drizzle's first query
 * while its code is still cold costs a couple of milliseconds of every start.
 */
export function hasOrganization(sqlite: Database): boolean {
  return sqlite.query("SELECT 1 FROM organizations LIMIT 1").get() !== null;
}
