/** The events of file edit proposals, so open files show them without polling. */
import type { ProposalOut } from "./proposals.schemas";

declare module "../../core/events" {
  interface EventPayloads {
    "file.proposal.created": ProposalOut;
    "file.proposal.updated": ProposalOut;
  }
}
