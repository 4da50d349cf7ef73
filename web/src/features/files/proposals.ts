/** Keeping lists of edit proposals current (docs/api.md "Edit proposals"). */
import type { Proposal } from "../../../../src/api-types";

/** Puts `proposal` into a newest-first list (replacing an older copy of it). */
export function upsertProposal(list: readonly Proposal[], proposal: Proposal): Proposal[] {
  const rest = list.filter((p) => p.id !== proposal.id);
  return [proposal, ...rest].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
}

/** Pending proposals grouped by file. */
export function pendingByFile(list: readonly Proposal[]): Map<string, Proposal[]> {
  const byFile = new Map<string, Proposal[]>();
  for (const proposal of list) {
    if (proposal.status !== "pending") continue;
    const entries = byFile.get(proposal.node_id);
    if (entries) entries.push(proposal);
    else byFile.set(proposal.node_id, [proposal]);
  }
  return byFile;
}
