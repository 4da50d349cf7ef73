/** Parts of the files screen's side panel: its toolbar, the files with proposals to review, uploads under way. */
import type { RefObject } from "react";
import type { FileNode, Proposal } from "../../../../src/api-types";
import { FileIcon } from "./icons";
import { folderPath, type Tree } from "./tree";
import type { Upload } from "./use-uploads";

/** New file, New folder and Upload, into `folderName`; the hidden field is only how the file picker opens. */
export function FilesToolbar({
  folderName,
  onNew,
  onUpload,
  input,
  onChosen,
}: {
  folderName: string;
  /** Starts naming a new text file or folder; `from` gets the keyboard back when that is cancelled. */
  onNew: (kind: "text" | "folder", from: HTMLElement) => void;
  onUpload: () => void;
  input: RefObject<HTMLInputElement | null>;
  onChosen: (files: File[]) => void;
}) {
  return (
    <div className="files-toolbar">
      <button type="button" onClick={(event) => onNew("text", event.currentTarget)}>
        New file
      </button>
      <button type="button" onClick={(event) => onNew("folder", event.currentTarget)}>
        New folder
      </button>
      <button type="button" title={`Upload into ${folderName}`} onClick={onUpload}>
        Upload
      </button>
      <input
        ref={input}
        type="file"
        multiple
        className="sr-only"
        tabIndex={-1}
        // The Upload button is the control; this field only opens the browser's file picker for it.
        aria-hidden="true"
        aria-label="Files to upload"
        onChange={(event) => {
          const files = [...(event.currentTarget.files ?? [])];
          event.currentTarget.value = "";
          onChosen(files);
        }}
      />
    </div>
  );
}

/** "Review proposals (N)" and, once opened, the files with proposals waiting, by name. */
export function PendingProposals({
  tree,
  pending,
  open,
  onToggle,
  onOpen,
}: {
  tree: Tree;
  pending: ReadonlyMap<string, readonly Proposal[]>;
  open: boolean;
  onToggle: () => void;
  onOpen: (id: string) => void;
}) {
  const waiting = [...pending.entries()]
    .map(([id, list]) => ({ node: tree.byId.get(id) as FileNode, count: list.length }))
    .sort((a, b) => a.node.name.localeCompare(b.node.name, undefined, { sensitivity: "base", numeric: true }));
  const totalWaiting = waiting.reduce((sum, w) => sum + w.count, 0);
  if (waiting.length === 0) return null;
  return (
    <>
      <button
        type="button"
        className={`pending-toggle${open ? " active" : ""}`}
        aria-expanded={open}
        aria-label={`Review proposals (${totalWaiting})`}
        onClick={onToggle}
      >
        Review proposals <span className="count-badge">{totalWaiting}</span>
      </button>
      {open && (
        <ul className="search-results pending-list" aria-label="Files with proposed changes">
          {waiting.map(({ node, count }) => (
            <li key={node.id}>
              <button type="button" onClick={() => onOpen(node.id)}>
                <FileIcon node={node} />
                <span className="tree-name">{node.name}</span>
                <span className="muted small result-path">
                  {count} {count === 1 ? "proposal" : "proposals"} · {folderPath(tree, node.id) || "All files"}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** The uploads under way, each with its progress. */
export function UploadList({ uploads }: { uploads: readonly Upload[] }) {
  if (uploads.length === 0) return null;
  return (
    <ul className="uploads" aria-label="Uploads">
      {uploads.map((u) => (
        <li key={u.key}>
          <span className="tree-name small">{u.name}</span>
          <progress max={1} value={u.progress} aria-label={`Uploading ${u.name}`} />
        </li>
      ))}
    </ul>
  );
}
