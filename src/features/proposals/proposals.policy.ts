/** Staff propose, people decide: only a person may accept or reject, and only a pending proposal. */
import type { OrgActor } from "../../core/actor";
import { conflict, forbidden } from "../../core/errors";
import type { ProposalRow } from "./proposals.store";

/** Accepting and rejecting: a person. */
export function assertMayResolve(actor: OrgActor): void {
  if (actor.serviceAccountId !== null) throw forbidden("only a person can accept or reject a proposal");
}

/** Only a pending proposal is resolved. */
export function assertPending(proposal: ProposalRow): void {
  if (proposal.status !== "pending") throw conflict("proposal is not pending");
}
