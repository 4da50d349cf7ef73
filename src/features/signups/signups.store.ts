/** Queries of signup requests. */
import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { signupRequests, users } from "../../db/schema";

export type SignupRequestRow = typeof signupRequests.$inferSelect;

/** A signup request with the requesting user's name and email. */
export type SignupRequestView = SignupRequestRow & { email: string; displayName: string };

/** Signup requests, read beside their users' names and emails. */
export class SignupsStore {
  constructor(private readonly db: Db) {}

  signupRequests(orgId: string, status?: string): SignupRequestView[] {
    return this.db
      .select({ request: signupRequests, email: users.email, displayName: users.displayName })
      .from(signupRequests)
      .innerJoin(users, eq(users.id, signupRequests.userId))
      .where(
        status
          ? and(eq(signupRequests.orgId, orgId), eq(signupRequests.status, status))
          : eq(signupRequests.orgId, orgId),
      )
      .orderBy(desc(signupRequests.createdAt), desc(signupRequests.id))
      .all()
      .map((r) => ({ ...r.request, email: r.email, displayName: r.displayName }));
  }

  signupRequest(orgId: string, id: string): SignupRequestView | undefined {
    const row = this.db
      .select({ request: signupRequests, email: users.email, displayName: users.displayName })
      .from(signupRequests)
      .innerJoin(users, eq(users.id, signupRequests.userId))
      .where(and(eq(signupRequests.orgId, orgId), eq(signupRequests.id, id)))
      .all()[0];
    return row && { ...row.request, email: row.email, displayName: row.displayName };
  }

  /** The most recent signup request of a user in any org (one org per install). */
  latestSignupRequestOf(userId: string): SignupRequestRow | undefined {
    return this.db
      .select()
      .from(signupRequests)
      .where(eq(signupRequests.userId, userId))
      .orderBy(desc(signupRequests.createdAt), desc(signupRequests.id))
      .limit(1)
      .all()[0];
  }

  hasPendingSignup(orgId: string, userId: string): boolean {
    return (
      this.db
        .select({ id: signupRequests.id })
        .from(signupRequests)
        .where(
          and(eq(signupRequests.orgId, orgId), eq(signupRequests.userId, userId), eq(signupRequests.status, "pending")),
        )
        .all().length > 0
    );
  }

  insertSignupRequest(row: SignupRequestRow): void {
    this.db.insert(signupRequests).values(row).run();
  }

  /** Resolves a pending request; false when it was no longer pending. */
  resolveSignupRequest(id: string, status: "approved" | "denied", by: string | null, now: number): boolean {
    return (
      this.db
        .update(signupRequests)
        .set({ status, resolvedAt: now, resolvedBy: by })
        .where(and(eq(signupRequests.id, id), eq(signupRequests.status, "pending")))
        .returning({ id: signupRequests.id })
        .all().length === 1
    );
  }

  /** Approves whatever pending request the user has (they joined by invite instead). */
  approvePendingSignupsOf(orgId: string, userId: string, now: number): void {
    this.db
      .update(signupRequests)
      .set({ status: "approved", resolvedAt: now })
      .where(
        and(eq(signupRequests.orgId, orgId), eq(signupRequests.userId, userId), eq(signupRequests.status, "pending")),
      )
      .run();
  }
}
