/** Staff propose, people decide: only a person may accept or reject, and only a pending proposal. */
import type { OrgActor } from "../../http/actor";
import { conflict, forbidden } from "../../http/errors";
import type { ProposalRow } from "./proposals.store";

export function assertMayResolve(actor: OrgActor, proposal: ProposalRow): void {
  if (actor.serviceAccountId !== null) throw forbidden("only a person can accept or reject a proposal");
  if (proposal.status !== "pending") throw conflict("proposal is not pending");
}
