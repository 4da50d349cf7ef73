/** Queries of invites. */
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { invites } from "../../db/schema";

export type InviteRow = typeof invites.$inferSelect;

export class InvitesStore {
  constructor(private readonly db: Db) {}

  invites(orgId: string): InviteRow[] {
    return this.db
      .select()
      .from(invites)
      .where(eq(invites.orgId, orgId))
      .orderBy(desc(invites.createdAt), desc(invites.id))
      .all();
  }

  invite(orgId: string, id: string): InviteRow | undefined {
    return this.db
      .select()
      .from(invites)
      .where(and(eq(invites.orgId, orgId), eq(invites.id, id)))
      .all()[0];
  }

  inviteByTokenHash(tokenHash: string): InviteRow | undefined {
    return this.db.select().from(invites).where(eq(invites.tokenHash, tokenHash)).all()[0];
  }

  insertInvite(row: InviteRow): void {
    this.db.insert(invites).values(row).run();
  }

  /** Marks an invite used; false when another request used it first. */
  consumeInvite(id: string, userId: string, now: number): boolean {
    return (
      this.db
        .update(invites)
        .set({ acceptedAt: now, acceptedBy: userId })
        .where(and(eq(invites.id, id), isNull(invites.acceptedAt)))
        .returning({ id: invites.id })
        .all().length === 1
    );
  }

  deleteInvite(id: string): void {
    this.db.delete(invites).where(eq(invites.id, id)).run();
  }

  /** A deleted role: invites not yet accepted no longer hand it out. */
  dropRole(roleId: string): void {
    this.db
      .update(invites)
      .set({
        roleIds: sql`(SELECT json_group_array(value) FROM json_each(${invites.roleIds}) WHERE value <> ${roleId})`,
      })
      .where(
        and(
          isNull(invites.acceptedAt),
          sql`EXISTS (SELECT 1 FROM json_each(${invites.roleIds}) WHERE value = ${roleId})`,
        ),
      )
      .run();
  }
}
