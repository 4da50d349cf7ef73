/** Finding files by name across the space (the API's `scope=space`), in place of the tree. */
import { useEffect, useRef, useState } from "react";
import { useLoad } from "../../lib/hooks";
import { ErrorText, Spinner } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { searchFiles } from "./api";
import { FileIcon } from "./icons";
import { folderPath, type Tree } from "./tree";

/** Search across the space by name (the API's `scope=space`), shown in place of the tree. */
export function SearchResults({
  spaceId,
  query,
  tree,
  onOpen,
}: {
  spaceId: string;
  query: string;
  tree: Tree;
  onOpen: (id: string) => void;
}) {
  const [debounced, setDebounced] = useState(query);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(query.trim()), 200);
    return () => clearTimeout(timer);
  }, [query]);
  const ws = useWorkspace();
  const results = useLoad(debounced ? searchFiles : null, ws.base, spaceId, debounced);
  // The tree changes live: search again so renames, moves and new files show in the results.
  const searched = useRef(tree);
  const reload = results.reload;
  useEffect(() => {
    if (searched.current === tree) return;
    searched.current = tree;
    void reload();
  }, [tree, reload]);
  if (!debounced || (results.loading && !results.data)) return <Spinner label="Searching…" />;
  if (results.error) return <ErrorText error={results.error} />;
  const nodes = (results.data ?? []).filter((n) => tree.byId.has(n.id));
  if (nodes.length === 0) return <p className="muted small tree-empty">Nothing is named like “{debounced}”.</p>;
  return (
    <ul className="search-results" aria-label="Search results">
      {nodes.map((node) => (
        <li key={node.id}>
          <button type="button" onClick={() => onOpen(node.id)}>
            <FileIcon node={node} />
            <span className="tree-name">{node.name}</span>
            <span className="muted small result-path">{folderPath(tree, node.id) || "All files"}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
