/** Proposal rows. */
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { type Db, prepared } from "../../db/client";
import { changedColumnsUpdater, insertRow } from "../../db/prepared";
import { fileNodes, fileProposals } from "../../db/schema";

export type ProposalRow = typeof fileProposals.$inferSelect;

export class ProposalsStore {
  constructor(private readonly db: Db) {}

  private readonly ofNode = prepared(() =>
    this.db
      .select()
      .from(fileProposals)
      .where(eq(fileProposals.nodeId, sql.placeholder("nodeId")))
      .orderBy(desc(fileProposals.createdAt), desc(fileProposals.id))
      .prepare(),
  );

  /** Every proposal of a file, newest first. */
  list(nodeId: string): ProposalRow[] {
    return this.ofNode().all({ nodeId });
  }

  private readonly ofSpaceWithStatus = prepared(() =>
    this.db
      .select({ proposal: fileProposals })
      .from(fileNodes)
      .innerJoin(fileProposals, eq(fileProposals.nodeId, fileNodes.id))
      .where(
        and(
          eq(fileNodes.spaceId, sql.placeholder("spaceId")),
          isNull(fileNodes.deletedAt),
          eq(fileProposals.status, sql.placeholder("status")),
        ),
      )
      .orderBy(desc(fileProposals.createdAt), desc(fileProposals.id))
      .prepare(),
  );

  /**
   * The proposals of a space's live files with one status, newest first. Read from the space's live files
   * (a partial index) so proposals of deleted files never show.
   */
  ofSpace(spaceId: string, status: ProposalRow["status"]): ProposalRow[] {
    return this.ofSpaceWithStatus()
      .all({ spaceId, status })
      .map((row) => row.proposal);
  }

  get(spaceId: string, id: string): ProposalRow | undefined {
    return this.db
      .select()
      .from(fileProposals)
      .where(and(eq(fileProposals.spaceId, spaceId), eq(fileProposals.id, id)))
      .all()[0];
  }

  private readonly insertProposal = prepared(() => insertRow(this.db, fileProposals));
  private readonly saveProposal = changedColumnsUpdater<ProposalRow>(() => this.db, fileProposals, fileProposals.id);

  insert(row: ProposalRow): void {
    this.insertProposal().run(row);
  }

  save(before: ProposalRow, after: ProposalRow): void {
    this.saveProposal(before, after);
  }
}
