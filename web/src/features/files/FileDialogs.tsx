/** The file tree's dialogs: moving a node to another folder, and deleting one after saying what goes with it. */
import type { FormEvent } from "react";
import type { FileNode } from "../../../../src/api-types";
import { ConfirmDialog } from "../../lib/dialogs";
import { useAction } from "../../lib/hooks";
import { ErrorText, FormButtons, Modal } from "../../lib/ui";
import { countBelow, folderPath, isWithin, type Tree } from "./tree";

/** "Move to…": the folders `node` can go to (not itself nor below it). */
export function MoveDialog({
  node,
  tree,
  onMove,
  onDone,
  onClose,
}: {
  node: FileNode;
  tree: Tree;
  onMove: (parentId: string | null) => Promise<void>;
  /** Moved: the moved row takes the keyboard (`onMove` asks for it). */
  onDone: () => void;
  /** Closed without moving (Cancel, Escape, ✕). */
  onClose: () => void;
}) {
  const { run, busy, error } = useAction(async (parentId: string | null) => {
    await onMove(parentId);
    onDone();
  });
  // Folders it can go to: not itself nor below itself (the API would answer `cannot move a folder into itself`).
  const folders = [...tree.byId.values()]
    .filter((n) => n.kind === "folder" && !isWithin(tree, n.id, node.id))
    .map((n) => ({ id: n.id, path: [folderPath(tree, n.id), n.name].filter(Boolean).join(" / ") }))
    .sort((a, b) => a.path.localeCompare(b.path, undefined, { sensitivity: "base", numeric: true }));
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const value = String(new FormData(event.currentTarget).get("parent") ?? "");
    void run(value === "" ? null : value);
  };
  return (
    <Modal title={`Move ${node.name}`} onClose={onClose}>
      <form className="stack" onSubmit={submit}>
        <label className="field">
          <span>Destination folder</span>
          <select name="parent" defaultValue={node.parent_id ?? ""}>
            <option value="">All files (top level)</option>
            {folders.map((f) => (
              <option key={f.id} value={f.id}>
                {f.path}
              </option>
            ))}
          </select>
        </label>
        <ErrorText error={error} />
        <FormButtons onCancel={onClose} disabled={busy} label="Move" />
      </form>
    </Modal>
  );
}

/** "Delete…": asks first, counting what a folder holds. */
export function DeleteDialog({
  node,
  tree,
  onDelete,
  onClose,
}: {
  node: FileNode;
  tree: Tree;
  onDelete: () => Promise<void>;
  onClose: () => void;
}) {
  const inside = node.kind === "folder" ? countBelow(tree, node.id) : 0;
  return (
    <ConfirmDialog title={`Delete ${node.name}?`} confirmLabel="Delete" onConfirm={onDelete} onClose={onClose}>
      <p>
        {node.kind === "folder" ? (
          <>
            The folder <strong>{node.name}</strong>
            {inside > 0 ? ` and the ${inside} ${inside === 1 ? "item" : "items"} inside it` : ""} will be deleted for
            everyone in this space.
          </>
        ) : (
          <>
            <strong>{node.name}</strong> will be deleted for everyone in this space; anyone editing it is disconnected.
          </>
        )}
      </p>
    </ConfirmDialog>
  );
}
