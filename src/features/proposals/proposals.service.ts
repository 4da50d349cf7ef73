/**
 * File edit proposals (contract §6, §7): a whole new text for a text file, proposed by anyone who can read it
 * (staff above all), accepted or rejected by a person. Accepting applies it through the file's live document,
 * so everyone editing sees it, and only if the file is still what the proposal was based on.
 */

import type { SpaceActor } from "../../core/actor";
import { notFound } from "../../core/errors";
import { spaceEvent } from "../../core/events";
import type { UnitOfWork } from "../../db/unit";
import { isUuid, newId } from "../../lib/ids";
import type { FilesService } from "../files/files.service";
import { assertMayResolve, assertPending } from "./proposals.policy";
import { presentProposal } from "./proposals.present";
import type { ProposalRow, ProposalsStore } from "./proposals.store";

const proposalNotFound = () => notFound("proposal not found");

export class ProposalsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: ProposalsStore,
    private readonly files: FilesService,
  ) {}

  list(actor: SpaceActor, fileId: string): ProposalRow[] {
    return this.store.list(this.files.textFile(actor, fileId).id);
  }

  /** The proposals of the space's live files with one status (pending by default), newest first. */
  ofSpace(actor: SpaceActor, status: ProposalRow["status"] = "pending"): ProposalRow[] {
    return this.store.ofSpace(actor.space.id, status);
  }

  create(
    actor: SpaceActor,
    fileId: string,
    input: { proposed_content: string; note?: string | undefined },
  ): ProposalRow {
    // The proposal is based on the text as stored now, typing of this moment included.
    this.files.fresh(actor, fileId);
    return this.uow.write((unit) => {
      const node = this.files.textFile(actor, fileId);
      this.files.checkTextSize(Buffer.byteLength(input.proposed_content));
      const row: ProposalRow = {
        id: newId(),
        spaceId: actor.space.id,
        nodeId: node.id,
        authorUserId: actor.userId,
        baseContentSha256: node.checksumSha256 ?? "",
        proposedContent: input.proposed_content,
        note: input.note ?? "",
        status: "pending",
        createdAt: Date.now(),
        resolvedAt: null,
        resolvedBy: null,
      };
      this.store.insert(row);
      unit.emit(spaceEvent(actor, "file.proposal.created", presentProposal(row)));
      return row;
    });
  }

  /** Applies the proposal (409 `file changed since the proposal` when the file moved on), then records it. */
  async accept(actor: SpaceActor, id: string): Promise<ProposalRow> {
    // Recorded first, so a reject racing this accept finds it resolved; put back if the text cannot land. Its
    // event waits until the text has landed: until then it may still go back to pending.
    const accepted = this.resolve(actor, id, "accepted");
    try {
      const node = this.files.textFile(actor, accepted.nodeId);
      await this.files.writeText(actor, node, accepted.proposedContent, accepted.baseContentSha256);
    } catch (error) {
      this.uow.write(() =>
        this.store.save(accepted, { ...accepted, status: "pending", resolvedAt: null, resolvedBy: null }),
      );
      throw error;
    }
    this.uow.write((unit) => unit.emit(spaceEvent(actor, "file.proposal.updated", presentProposal(accepted))));
    return accepted;
  }

  reject(actor: SpaceActor, id: string): ProposalRow {
    return this.uow.write((unit) => {
      const rejected = this.resolve(actor, id, "rejected");
      unit.emit(spaceEvent(actor, "file.proposal.updated", presentProposal(rejected)));
      return rejected;
    });
  }

  private resolve(actor: SpaceActor, id: string, status: "accepted" | "rejected"): ProposalRow {
    return this.uow.write(() => {
      const current = this.pending(actor, id);
      // A proposal belongs to its file: once the file is deleted, it answers like the file (404).
      this.files.textFile(actor, current.nodeId);
      const resolved: ProposalRow = { ...current, status, resolvedAt: Date.now(), resolvedBy: actor.userId };
      this.store.save(current, resolved);
      return resolved;
    });
  }

  private pending(actor: SpaceActor, id: string): ProposalRow {
    const proposal = isUuid(id) ? this.store.get(actor.space.id, id) : undefined;
    if (!proposal) throw proposalNotFound();
    assertMayResolve(actor);
    assertPending(proposal);
    return proposal;
  }
}
