/** Proposal rows to JSON. */
import { iso, isoOrNull } from "../../lib/ids";
import type { ProposalOut } from "./proposals.schemas";
import type { ProposalRow } from "./proposals.store";

export function presentProposal(row: ProposalRow): ProposalOut {
  return {
    id: row.id,
    space_id: row.spaceId,
    node_id: row.nodeId,
    author_user_id: row.authorUserId,
    base_content_sha256: row.baseContentSha256,
    proposed_content: row.proposedContent,
    note: row.note,
    status: row.status as ProposalOut["status"],
    created_at: iso(row.createdAt),
    resolved_at: isoOrNull(row.resolvedAt),
    resolved_by: row.resolvedBy,
  };
}
