/** Service-account rows. */
import { and, asc, eq, sql } from "drizzle-orm";
import type { AccessMemo } from "../../core/access-memo";
import { type Db, prepared } from "../../db/client";
import { orgMembers, serviceAccounts, users } from "../../db/schema";
import { nameKey } from "../../lib/text";

export type ServiceAccountRow = typeof serviceAccounts.$inferSelect;

/** A member as a mention can name them. */
export interface Mentionable {
  userId: string;
  name: string;
  /** `name` lower-cased, as a mention is matched. */
  key: string;
  /** The staff account, for staff. */
  staff: ServiceAccountRow | null;
}

const DIRECTORY_TTL_MS = 30_000;

/** Data access for service accounts. */
export class StaffStore {
  private readonly directories = new Map<string, { members: Mentionable[]; generation: number; at: number }>();

  /** Drops what is remembered: another node wrote (PostgreSQL mode), and it is read again when next needed. */
  forgetRemembered(): void {
    this.directories.clear();
  }

  constructor(
    private readonly db: Db,
    /** Its generation tells when a member joined, left or was renamed. */
    private readonly access: AccessMemo,
  ) {}

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
      .select({ userId: users.id, name: users.displayName, staff: serviceAccounts })
      .from(orgMembers)
      .innerJoin(users, eq(users.id, orgMembers.userId))
      .leftJoin(serviceAccounts, eq(serviceAccounts.userId, users.id))
      .where(eq(orgMembers.orgId, sql.placeholder("orgId")))
      .prepare(),
  );

  /**
   * Every member of the organization with the name a mention uses (people too, so the longest name wins),
   * longest name first; where a person and a staff member share a name, the staff member first, so the
   * mention still reaches the one it can wake. Remembered until a membership or name changes (or 30 s pass:
   * the CLI is another process); every message with an `@` reads it.
   */
  mentionables(orgId: string): readonly Mentionable[] {
    const now = Date.now();
    const kept = this.directories.get(orgId);
    if (kept && kept.generation === this.access.generation && now - kept.at < DIRECTORY_TTL_MS) return kept.members;
    const members = this.mentionableRows()
      .all({ orgId })
      .filter((m) => m.name.length > 0)
      .map((m) => ({ ...m, key: m.name.toLowerCase() }))
      .sort((a, b) => b.name.length - a.name.length || Number(b.staff !== null) - Number(a.staff !== null));
    this.directories.set(orgId, { members, generation: this.access.generation, at: now });
    return members;
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

  /** Also drops the remembered directories: a reply reads the account (provider, model, repo) from them. */
  update(id: string, patch: Partial<ServiceAccountRow>): void {
    this.db.update(serviceAccounts).set(patch).where(eq(serviceAccounts.id, id)).run();
    this.directories.clear();
  }

  /** Deleting the backing user cascades to the account, its memberships, roles and sessions. */
  private readonly byHash = prepared(() =>
    this.db
      .select({ id: serviceAccounts.id, userId: serviceAccounts.userId, expiresAt: serviceAccounts.tokenExpiresAt })
      .from(serviceAccounts)
      .where(eq(serviceAccounts.tokenHash, sql.placeholder("hash")))
      .prepare(),
  );

  /** The account an `sa_` token's hash belongs to (every request of staff asks). */
  byTokenHash(hash: string): { id: string; userId: string; expiresAt: number | null } | undefined {
    return this.byHash().all({ hash })[0];
  }
}
