/** Refresh-token rows and the `sa_` token lookup. */
import { and, eq, isNull, ne, sql } from "drizzle-orm";
import { type Db, prepared } from "../../db/client";
import { refreshTokens } from "../../db/schema";

export type RefreshTokenRow = typeof refreshTokens.$inferSelect;

/**
 * How long a session's state, once read, is taken as it was. Revocations in this process update it at once;
 * one written by another process (`tandem users reset-password`) is seen within this time.
 */
export const SESSION_RECHECK_MS = 5_000;
const SESSIONS_REMEMBERED = 10_000;

/** Data access for tokens. */
export class AuthStore {
  constructor(private readonly db: Db) {}

  /** Sessions (refresh-token families) by id: live or ended, as last read, and when. */
  private readonly sessions = new Map<string, { live: boolean; at: number }>();
  private readonly endListeners = new Set<() => void>();
  private endAnnounced = false;
  private revocationCount = 0;

  /** Goes up with every revocation written in this process. */
  get revocations(): number {
    return this.revocationCount;
  }

  private readonly liveToken = prepared(() =>
    this.db.$client.query<{ one: number }, { family: string }>(
      "SELECT 1 AS one FROM refresh_tokens WHERE family_id = $family AND revoked_at IS NULL LIMIT 1",
    ),
  );

  /**
   * True while the session has a refresh token that was not revoked: a sign-out, a reused refresh token, a
   * password reset or a denied signup revokes them all, and the session's access tokens end with it.
   */
  sessionLive(familyId: string, now: number, maxAgeMs = SESSION_RECHECK_MS): boolean {
    const known = this.sessions.get(familyId);
    if (known && now - known.at < maxAgeMs) return known.live;
    const live = this.liveToken().all({ family: familyId }).length > 0;
    this.sessions.delete(familyId);
    if (this.sessions.size >= SESSIONS_REMEMBERED) this.sessions.delete(this.sessions.keys().next().value as string);
    this.sessions.set(familyId, { live, at: now });
    return live;
  }

  /**
   * Calls `listener` when sessions may have ended: after a revocation here (once its transaction is over), and
   * at every `checkSessions`, which the server runs every few seconds for revocations by another process.
   * The listener asks `sessionLive` about the sessions it cares for.
   */
  onSessionsEnded(listener: () => void): () => void {
    this.endListeners.add(listener);
    return () => this.endListeners.delete(listener);
  }

  /** Tells the listeners to look again now. */
  checkSessions(): void {
    for (const listener of this.endListeners) listener();
  }

  /** A revocation was written: the listeners look once the transaction it is in has ended. */
  /**
   * Another node wrote (PostgreSQL mode): remembered sessions are read again, and the listeners look whether
   * theirs ended there.
   */
  forgetRemembered(): void {
    this.sessions.clear();
    this.sessionsEnded();
  }

  /** Told of each revocation made here, inside its transaction: on PostgreSQL, the other nodes are told. */
  relay: (() => void) | null = null;

  private sessionsEnded(): void {
    this.revocationCount++;
    if (this.endAnnounced || this.endListeners.size === 0) return;
    this.endAnnounced = true;
    setImmediate(() => {
      this.endAnnounced = false;
      this.checkSessions();
    });
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
    this.sessions.delete(familyId);
    this.db
      .update(refreshTokens)
      .set({ revokedAt: now })
      .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)))
      .run();
    this.relay?.();
    this.sessionsEnded();
  }

  /** Ends every session of the user, or every one but `keepFamilyId` (the session changing its password). */
  revokeUser(userId: string, now: number, keepFamilyId?: string): void {
    // Which remembered sessions are this user's is not known here: every one is read again on its next use.
    this.sessions.clear();
    const mine = and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt));
    this.db
      .update(refreshTokens)
      .set({ revokedAt: now })
      .where(keepFamilyId === undefined ? mine : and(mine, ne(refreshTokens.familyId, keepFamilyId)))
      .run();
    this.relay?.();
    this.sessionsEnded();
  }

  /** Drops tokens that can never be used again, so the table does not grow without bound. */
  pruneExpired(now: number): void {
    this.db.delete(refreshTokens).where(sql`${refreshTokens.expiresAt} < ${now}`).run();
  }
}
