/** Edit proposals as the API answers them (docs/api.md "Edit proposals"), and keeping lists of them current. */

/** A proposed whole new text for a text file, waiting for (or past) a person's review. */
export interface Proposal {
  id: string;
  space_id: string;
  node_id: string;
  author_user_id: string | null;
  base_content_sha256: string;
  proposed_content: string;
  note: string;
  status: "pending" | "accepted" | "rejected";
  created_at: string;
  resolved_at: string | null;
  resolved_by: string | null;
}

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
