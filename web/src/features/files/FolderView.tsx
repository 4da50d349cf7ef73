/** The open folder (or the top): what is in it, with sizes and when each changed; files dropped on it upload there. */
import { useState } from "react";
import type { FileNode } from "../../../../src/api-types";
import { dateTime, Empty, timeAgo } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { Breadcrumbs } from "./FileView";
import { FileIcon } from "./icons";
import { NameInput } from "./NameInput";
import { formatSize, type Tree } from "./tree";

/** The open folder (or the root): what is in it, with sizes and when each changed. */
export function FolderView({
  tree,
  folder,
  onOpen,
  onUpload,
  canWrite,
  renaming,
  onRename,
  onStopRenaming,
  onMenu,
}: {
  tree: Tree;
  folder: FileNode | null;
  onOpen: (id: string | null) => void;
  onUpload: (files: File[], parentId: string | null) => void;
  canWrite: boolean;
  renaming: boolean;
  onRename: (node: FileNode, name: string) => Promise<string | null>;
  onStopRenaming: () => void;
  onMenu: (node: FileNode, at: { x: number; y: number }) => void;
}) {
  const ws = useWorkspace();
  const [dropping, setDropping] = useState(false);
  const children = tree.childrenOf.get(folder?.id ?? "") ?? [];
  return (
    <section
      className={`folder-view${dropping ? " drop" : ""}`}
      aria-label={folder ? folder.name : "All files"}
      onDragOver={(event) => {
        if (!canWrite || !event.dataTransfer.types.includes("Files")) return;
        event.preventDefault();
        setDropping(true);
      }}
      onDragLeave={() => setDropping(false)}
      onDrop={(event) => {
        if (!canWrite || event.dataTransfer.files.length === 0) return;
        event.preventDefault();
        setDropping(false);
        onUpload([...event.dataTransfer.files], folder?.id ?? null);
      }}
    >
      <header className="file-head">
        {folder && <Breadcrumbs tree={tree} node={folder} onOpen={onOpen} />}
        <div className="file-title row">
          {folder && renaming ? (
            <NameInput
              label={`New name for ${folder.name}`}
              initial={folder.name}
              depth={0}
              className="title-edit grow"
              onSave={(name) => onRename(folder, name)}
              onCancel={onStopRenaming}
            />
          ) : (
            <h2 className="grow">{folder ? folder.name : "All files"}</h2>
          )}
          {folder && (
            <button
              type="button"
              aria-label={`More actions for ${folder.name}`}
              title={`More actions for ${folder.name}`}
              onClick={(event) => {
                const box = event.currentTarget.getBoundingClientRect();
                onMenu(folder, { x: box.right, y: box.bottom });
              }}
            >
              ⋯
            </button>
          )}
        </div>
        <p className="muted small">
          {children.length === 0 ? "Empty" : `${children.length} ${children.length === 1 ? "item" : "items"}`}
          {folder && (
            <>
              {" "}
              · created by {ws.nameOf(folder.created_by)}{" "}
              <span title={dateTime(folder.created_at)}>{timeAgo(folder.created_at)}</span>
            </>
          )}
        </p>
      </header>
      {children.length === 0 ? (
        <Empty>
          {folder ? "This folder is empty." : "This space has no files yet."}
          {canWrite ? " Create a file or folder, upload, or drop files here." : ""}
        </Empty>
      ) : (
        <table className="folder-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col" className="folder-meta">
                Size
              </th>
              <th scope="col" className="folder-meta">
                Changed
              </th>
            </tr>
          </thead>
          <tbody>
            {children.map(({ node }) => (
              <tr key={node.id}>
                <td className="folder-name">
                  <button type="button" className="link folder-entry" title={node.name} onClick={() => onOpen(node.id)}>
                    <FileIcon node={node} />
                    <span className="folder-entry-name">{node.name}</span>
                  </button>
                </td>
                <td className="muted folder-meta">{node.kind === "folder" ? "—" : formatSize(node.size_bytes)}</td>
                <td className="muted folder-meta" title={dateTime(node.updated_at)}>
                  {timeAgo(node.updated_at)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
