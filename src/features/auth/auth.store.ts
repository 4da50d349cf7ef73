/** Refresh-token rows and the `sa_` token lookup. */
import { and, eq, isNull, sql } from "drizzle-orm";
import { type Db, prepared } from "../../db/client";
import { refreshTokens, serviceAccounts } from "../../db/schema";

export type RefreshTokenRow = typeof refreshTokens.$inferSelect;

/** Data access for tokens. */
export class AuthStore {
  constructor(private readonly db: Db) {}

  private readonly staffByHash = prepared(() =>
    this.db
      .select({ id: serviceAccounts.id, userId: serviceAccounts.userId, expiresAt: serviceAccounts.tokenExpiresAt })
      .from(serviceAccounts)
      .where(eq(serviceAccounts.tokenHash, sql.placeholder("hash")))
      .prepare(),
  );

  staffByTokenHash(hash: string): { id: string; userId: string; expiresAt: number | null } | undefined {
    return this.staffByHash().all({ hash })[0];
  }

  insertRefresh(row: RefreshTokenRow): void {
    this.db.insert(refreshTokens).values(row).run();
  }

  refreshByHash(tokenHash: string): RefreshTokenRow | undefined {
    return this.db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, tokenHash)).all()[0];
  }

  /** Marks a token used; false when it was already used or revoked. */
  markUsed(id: string, now: number): boolean {
    return (
      this.db
        .update(refreshTokens)
        .set({ usedAt: now })
        .where(and(eq(refreshTokens.id, id), isNull(refreshTokens.usedAt), isNull(refreshTokens.revokedAt)))
        .returning({ id: refreshTokens.id })
        .all().length === 1
    );
  }

  revokeFamily(familyId: string, now: number): void {
    this.db
      .update(refreshTokens)
      .set({ revokedAt: now })
      .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)))
      .run();
  }

  revokeUser(userId: string, now: number): void {
    this.db
      .update(refreshTokens)
      .set({ revokedAt: now })
      .where(and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)))
      .run();
  }

  /** Drops tokens that can never be used again, so the table does not grow without bound. */
  pruneExpired(now: number): void {
    this.db.delete(refreshTokens).where(sql`${refreshTokens.expiresAt} < ${now}`).run();
  }
}
