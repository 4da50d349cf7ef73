/**
 * A space's files as the file screen shows them: the API's flat list nested into a tree, and the proposals
 * waiting for review by file, both kept current by the live events (`file.*`, `file.proposal.*`); a reconnect
 * fetches them again.
 */
import { useCallback, useMemo } from "react";
import type { FileNode, Proposal } from "../../../../src/api-types";
import { useLiveEvents } from "../../lib/events";
import { useLoad } from "../../lib/hooks";
import { listProposals, listTree } from "./api";
import { pendingByFile, upsertProposal } from "./proposals";
import { buildTree, removeSubtree, upsertNode } from "./tree";

/** The files of `spaceId`; `update` changes the list as an answer of the API says (an event may come later). */
export function useSpaceFiles(base: string, spaceId: string) {
  const loaded = useLoad(listTree, base, spaceId);
  const pendingLoad = useLoad(listProposals, base, spaceId, "pending");
  const nodes = loaded.data;
  const tree = useMemo(() => buildTree(nodes ?? []), [nodes]);
  const setNodes = loaded.setData;
  const update = useCallback(
    (change: (nodes: FileNode[]) => FileNode[]) => setNodes((data) => (data ? change(data) : data)),
    [setNodes],
  );

  useLiveEvents((event) => {
    if (event.type === "resync") {
      void loaded.reload();
      void pendingLoad.reload();
      return;
    }
    if (event.space_id !== spaceId) return;
    switch (event.type) {
      case "file.created":
      case "file.updated":
        update((list) => upsertNode(list, event.payload as FileNode));
        break;
      case "file.deleted":
        update((list) => removeSubtree(list, (event.payload as FileNode).id));
        break;
      case "file.proposal.created":
      case "file.proposal.updated": {
        const proposal = event.payload as Proposal;
        pendingLoad.setData((data) => {
          const list = data ?? [];
          return proposal.status === "pending"
            ? upsertProposal(list, proposal)
            : list.filter((p) => p.id !== proposal.id);
        });
        break;
      }
    }
  });

  /** The proposals waiting, by file (of files still there). */
  const pending = useMemo(() => {
    const byFile = pendingByFile(pendingLoad.data ?? []);
    for (const id of byFile.keys()) if (!tree.byId.has(id)) byFile.delete(id);
    return byFile;
  }, [pendingLoad.data, tree]);
  const pendingCount = useMemo(() => new Map([...pending].map(([id, list]) => [id, list.length])), [pending]);

  return { nodes, tree, update, pending, pendingCount, error: loaded.error, pendingError: pendingLoad.error };
}
