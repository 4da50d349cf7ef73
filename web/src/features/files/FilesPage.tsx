/**
 * A space's files (URL /spaces/:spaceId/files/:nodeId?): the tree beside the open file or folder. The tree is
 * the API's flat list nested here and kept current by the live events (`file.*`, and `file.proposal.*` for the
 * files waiting for a review); a reconnect refetches it. Creating, renaming, moving, deleting, uploading and
 * downloading happen in place; a text file opens in the collaborative editor.
 */

import { type FormEvent, useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { FileNode, Proposal, Space } from "../../../../src/api-types";
import { messageOf } from "../../lib/api";
import { ConfirmDialog } from "../../lib/dialogs";
import { useLiveEvents } from "../../lib/events";
import { useAction, useLoad, useStored } from "../../lib/hooks";
import { navigate } from "../../lib/router";
import { dateTime, Empty, ErrorText, FormButtons, Modal, Spinner, timeAgo, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import {
  createFolder,
  createTextFile,
  deleteNode,
  listProposals,
  listTree,
  patchNode,
  saveFile,
  searchFiles,
  uploadFile,
} from "./api";
import { FileMenu, type MenuItem } from "./FileMenu";
import { type Draft, FileTree, type TreeActions } from "./FileTree";
import { Breadcrumbs, FileView } from "./FileView";
import { FileIcon } from "./icons";
import { NameInput } from "./NameInput";
import { pendingByFile, upsertProposal } from "./proposals";
import {
  ancestorsOf,
  buildTree,
  countBelow,
  folderPath,
  formatSize,
  isWithin,
  removeSubtree,
  type Tree,
  upsertNode,
} from "./tree";

/** An upload on its way, for the progress list. */
interface Upload {
  key: number;
  name: string;
  progress: number;
}

let uploadKeys = 0;

function MoveDialog({
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

function DeleteDialog({
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

/** The open folder (or the root): what is in it, with sizes and when each changed. */
function FolderView({
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

/** Search across the space by name (the API's `scope=space`), shown in place of the tree. */
function SearchResults({
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

function FilesScreen({ space, nodeId }: { space: Space; nodeId: string | null }) {
  const ws = useWorkspace();
  const canWrite = ws.can("files.write");

  const loaded = useLoad(listTree, ws.base, space.id);
  const pendingLoad = useLoad(listProposals, ws.base, space.id, "pending");
  const nodes = loaded.data;
  const tree = useMemo(() => buildTree(nodes ?? []), [nodes]);
  const setNodes = loaded.setData;
  const update = useCallback(
    (change: (nodes: FileNode[]) => FileNode[]) => setNodes((data) => (data ? change(data) : data)),
    [setNodes],
  );

  const [storedOpen, setStoredOpen] = useStored<string[]>(`tandem.files.expanded.${space.id}`, []);
  const expanded = useMemo(() => new Set(storedOpen), [storedOpen]);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [renaming, setRenaming] = useState<{ id: string; where: "tree" | "header" } | null>(null);
  const [menu, setMenu] = useState<{ node: FileNode; at: { x: number; y: number }; where: "tree" | "header" } | null>(
    null,
  );
  const [moving, setMoving] = useState<FileNode | null>(null);
  /**
   * What had the keyboard when the menu opened ("More actions for …", a row), and what started the new file or
   * folder being named: a dialog or field closed without its action gives the keyboard back there (the menu
   * item that opened the dialog is gone by then).
   */
  const menuOpener = useRef<HTMLElement | null>(null);
  const draftOpener = useRef<HTMLElement | null>(null);
  /** An element outside the tree to focus once the dialog in front of it has closed. */
  const [refocus, setRefocus] = useState<HTMLElement | null>(null);
  /** A tree row to give the keyboard to once it shows (after a rename, a move or a delete). */
  const [focusTarget, setFocusTarget] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<FileNode | null>(null);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [query, setQuery] = useState("");
  /**
   * A file whose editor should take the keyboard once it has loaded: one just created, or one opened with Enter
   * from the tree. `n` tells requests apart, so Enter on the file already open asks again. A click in the tree
   * leaves the keyboard in the tree, as a file explorer does, so F2, Delete and the arrows keep working there.
   */
  const [focusEditor, setFocusEditor] = useState<{ id: string; n: number } | null>(null);
  const [showPending, setShowPending] = useState(false);
  const uploadInput = useRef<HTMLInputElement>(null);
  /**
   * The folder "Upload here" chose (null: the root). Undefined for the toolbar's Upload: its files go to the folder
   * open when they are chosen, like New file and New folder, whichever way the file field was filled.
   */
  const uploadTarget = useRef<string | null | undefined>(undefined);

  useLiveEvents((event) => {
    if (event.type === "resync") {
      void loaded.reload();
      void pendingLoad.reload();
      return;
    }
    if (event.space_id !== space.id) return;
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

  const selected = nodeId ? tree.byId.get(nodeId) : undefined;
  const pending = useMemo(() => {
    const byFile = pendingByFile(pendingLoad.data ?? []);
    for (const id of byFile.keys()) if (!tree.byId.has(id)) byFile.delete(id);
    return byFile;
  }, [pendingLoad.data, tree]);
  const pendingCount = useMemo(() => new Map([...pending].map(([id, list]) => [id, list.length])), [pending]);

  // Opening a node (by URL, search, a link) unfolds its folders, and a folder itself, once: folding them again
  // afterwards is the reader's choice.
  const revealed = useRef<string | null>(null);
  useEffect(() => {
    const node = nodeId ? tree.byId.get(nodeId) : undefined;
    if (!node || revealed.current === node.id) return;
    revealed.current = node.id;
    const wanted = ancestorsOf(tree, node.id).map((n) => n.id);
    if (node.kind === "folder") wanted.push(node.id);
    const missing = wanted.filter((id) => !expanded.has(id));
    if (missing.length > 0) setStoredOpen([...expanded, ...missing]);
  }, [nodeId, tree, expanded, setStoredOpen]);

  // A request is for the file it named: once another node is open it is spent, so coming back by a click does
  // not move the keyboard into the editor.
  useEffect(() => {
    setFocusEditor((request) => (request && request.id !== nodeId ? null : request));
  }, [nodeId]);

  const open = useCallback(
    (id: string | null) => navigate(id ? `/spaces/${space.id}/files/${id}` : `/spaces/${space.id}/files`),
    [space.id],
  );
  const toggle = (id: string, force?: boolean) => {
    const next = new Set(expanded);
    const show = force ?? !next.has(id);
    if (show) next.add(id);
    else next.delete(id);
    // Folders that no longer exist are forgotten as the list is rewritten.
    setStoredOpen([...next].filter((n) => tree.byId.has(n)));
  };

  /** Where "New file", "New folder" and "Upload" put things: the open folder, or the open file's folder. */
  const currentFolder = selected ? (selected.kind === "folder" ? selected.id : selected.parent_id) : null;

  const startDraft = (kind: Draft["kind"], parentId: string | null, from: HTMLElement | null = null) => {
    draftOpener.current = from;
    setQuery("");
    setShowPending(false);
    if (parentId) toggle(parentId, true);
    setDraft({ kind, parentId });
  };

  const rename = async (node: FileNode, name: string): Promise<string | null> => {
    try {
      const renamed = await patchNode(ws.base, space.id, node.id, { name });
      update((list) => upsertNode(list, renamed));
      if (renaming?.where === "tree") setFocusTarget(node.id);
      setRenaming(null);
      return null;
    } catch (err) {
      return messageOf(err);
    }
  };

  const move = async (node: FileNode, parentId: string | null) => {
    const moved = await patchNode(ws.base, space.id, node.id, { parent_id: parentId });
    update((list) => upsertNode(list, moved));
    if (parentId) toggle(parentId, true);
    setFocusTarget(node.id);
    const where = parentId ? (tree.byId.get(parentId)?.name ?? "the folder") : "All files";
    toast(`Moved ${node.name} to ${where}`);
  };

  const upload = (files: File[], parentId: string | null) => {
    if (!canWrite) return;
    if (parentId) toggle(parentId, true);
    for (const file of files) {
      const key = ++uploadKeys;
      setUploads((list) => [...list, { key, name: file.name, progress: 0 }]);
      uploadFile(ws.base, space.id, file, parentId, (progress) =>
        setUploads((list) => list.map((u) => (u.key === key ? { ...u, progress } : u))),
      )
        .then((node) => {
          update((list) => upsertNode(list, node));
          if (files.length === 1) open(node.id);
        })
        .catch((err) => toast(`Could not upload ${file.name}: ${messageOf(err)}`, "error"))
        .finally(() => setUploads((list) => list.filter((u) => u.key !== key)));
    }
  };

  const download = (node: FileNode) => {
    saveFile(ws.base, space.id, node.id, node.name).catch((err) =>
      toast(`Could not download ${node.name}: ${messageOf(err)}`, "error"),
    );
  };

  const remove = async (node: FileNode) => {
    await deleteNode(ws.base, space.id, node.id);
    update((list) => removeSubtree(list, node.id));
    setFocusTarget(node.parent_id ?? "");
    if (nodeId && isWithin(tree, nodeId, node.id)) open(node.parent_id);
    toast(`Deleted ${node.name}`);
  };

  const pickUpload = (parentId?: string | null) => {
    const input = uploadInput.current;
    if (!input) return;
    uploadTarget.current = parentId;
    // A picker closed without files forgets its folder, so the next files go to the open one.
    input.addEventListener(
      "cancel",
      () => {
        uploadTarget.current = undefined;
      },
      { once: true },
    );
    input.click();
  };

  const treeActions: TreeActions = {
    open: (node, withKeyboard) => {
      if (withKeyboard && node.kind === "file" && node.editable && canWrite)
        setFocusEditor((request) => ({ id: node.id, n: (request?.n ?? 0) + 1 }));
      open(node.id);
    },
    openRoot: () => open(null),
    toggle,
    rename,
    create: async (d, name) => {
      try {
        const body = { name, parent_id: d.parentId };
        const node = await (d.kind === "folder" ? createFolder : createTextFile)(ws.base, space.id, body);
        update((list) => upsertNode(list, node));
        setDraft(null);
        // A new file takes the cursor into its text; a new folder's row takes the keyboard, to fill it next.
        if (node.kind === "file") setFocusEditor((request) => ({ id: node.id, n: (request?.n ?? 0) + 1 }));
        else setFocusTarget(node.id);
        open(node.id);
        return null;
      } catch (err) {
        return messageOf(err);
      }
    },
    cancelDraft: (byKeyboard) => {
      const parentId = draft?.parentId ?? null;
      setDraft(null);
      if (!byKeyboard) return;
      // Back to "New file" / "New folder", else (started from a folder's menu) to the folder's row.
      const from = draftOpener.current;
      if (from?.isConnected) from.focus();
      else setFocusTarget(parentId ?? "");
    },
    move: (node, parentId) => {
      move(node, parentId).catch((err) => toast(`Could not move ${node.name}: ${messageOf(err)}`, "error"));
    },
    upload,
    remove: (node) => {
      // The Delete key on a row: the dialog gives the keyboard back to that row itself.
      setDialogFrom("key");
      setDeleting(node);
    },
    menu: (node, at) => openMenu({ node, at, where: "tree" }),
    startRenaming: (node) => setRenaming({ id: node.id, where: "tree" }),
    stopRenaming: () => {
      if (renaming) setFocusTarget(renaming.id);
      setRenaming(null);
    },
  };

  const openMenu = (next: { node: FileNode; at: { x: number; y: number }; where: "tree" | "header" }) => {
    menuOpener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setMenu(next);
  };

  /** A dialog opened from the menu was closed without its action: the keyboard goes back to where the menu was. */
  const backFromDialog = (node: FileNode, where: "tree" | "header") => {
    const opener = menuOpener.current;
    if (where === "header" && opener?.isConnected) setRefocus(opener);
    else setFocusTarget(node.id);
  };
  useEffect(() => {
    if (!refocus || moving || deleting) return;
    if (refocus.isConnected) refocus.focus();
    setRefocus(null);
  }, [refocus, moving, deleting]);
  /** Where the Move or Delete dialog came from: the menu of a row or of the open file's header, or a key. */
  const [dialogFrom, setDialogFrom] = useState<"tree" | "header" | "key">("key");
  const deleted = useRef(false);

  const menuItems = (node: FileNode, where: "tree" | "header"): MenuItem[] => {
    const items: MenuItem[] = [];
    if (where === "tree") items.push({ label: "Open", run: () => open(node.id) });
    if (canWrite && node.kind === "folder") {
      items.push({ label: "New file here", run: () => startDraft("text", node.id, menuOpener.current) });
      items.push({ label: "New folder here", run: () => startDraft("folder", node.id, menuOpener.current) });
      items.push({ label: "Upload here", run: () => pickUpload(node.id) });
    }
    if (node.kind === "file") items.push({ label: "Download", run: () => download(node) });
    if (canWrite) {
      items.push({ label: "Rename", run: () => setRenaming({ id: node.id, where }) });
      items.push({
        label: "Move to…",
        run: () => {
          setDialogFrom(where);
          setMoving(node);
        },
      });
      items.push({
        label: "Delete…",
        run: () => {
          setDialogFrom(where);
          setDeleting(node);
        },
        danger: true,
      });
    }
    return items;
  };

  if (loaded.error && !nodes) return <ErrorText error={loaded.error} />;
  if (!nodes) return <Spinner />;

  const searching = query.trim() !== "";
  const waiting = [...pending.entries()]
    .map(([id, list]) => ({ node: tree.byId.get(id) as FileNode, count: list.length }))
    .sort((a, b) => a.node.name.localeCompare(b.node.name, undefined, { sensitivity: "base", numeric: true }));
  const totalWaiting = waiting.reduce((sum, w) => sum + w.count, 0);
  // On a phone the open file takes the whole screen; folders are browsed in the tree.
  const fileOpen = selected?.kind === "file" || (nodeId !== null && !selected);

  return (
    <div className={`files${fileOpen ? " has-file" : ""}`}>
      <aside className="files-side" aria-label="Files of the space">
        {canWrite && (
          <div className="files-toolbar">
            <button type="button" onClick={(event) => startDraft("text", currentFolder, event.currentTarget)}>
              New file
            </button>
            <button type="button" onClick={(event) => startDraft("folder", currentFolder, event.currentTarget)}>
              New folder
            </button>
            <button
              type="button"
              title={`Upload into ${currentFolder ? (tree.byId.get(currentFolder)?.name ?? "the open folder") : "All files"}`}
              onClick={() => pickUpload()}
            >
              Upload
            </button>
            <input
              ref={uploadInput}
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
                const target = uploadTarget.current === undefined ? currentFolder : uploadTarget.current;
                uploadTarget.current = undefined;
                if (files.length > 0) upload(files, target);
              }}
            />
          </div>
        )}
        <input
          type="search"
          className="files-search"
          placeholder="Search files by name"
          aria-label="Search files"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "Escape") setQuery("");
          }}
        />
        {waiting.length > 0 && (
          <button
            type="button"
            className={`pending-toggle${showPending ? " active" : ""}`}
            aria-expanded={showPending}
            aria-label={`Review proposals (${totalWaiting})`}
            onClick={() => setShowPending(!showPending)}
          >
            Review proposals <span className="count-badge">{totalWaiting}</span>
          </button>
        )}
        {showPending && waiting.length > 0 && (
          <ul className="search-results pending-list" aria-label="Files with proposed changes">
            {waiting.map(({ node, count }) => (
              <li key={node.id}>
                <button type="button" onClick={() => open(node.id)}>
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
        <ErrorText error={loaded.error ?? pendingLoad.error} />
        {searching ? (
          <SearchResults spaceId={space.id} query={query} tree={tree} onOpen={(id) => open(id)} />
        ) : (
          <FileTree
            tree={tree}
            expanded={expanded}
            selectedId={selected ? selected.id : null}
            draft={draft}
            renamingId={renaming?.where === "tree" ? renaming.id : null}
            pendingCount={pendingCount}
            canWrite={canWrite}
            actions={treeActions}
            // Asked for once its dialog is gone: a modal dialog keeps the focus from the page.
            focusTarget={deleting || moving ? null : focusTarget}
            onFocused={() => setFocusTarget(null)}
          />
        )}
        {uploads.length > 0 && (
          <ul className="uploads" aria-label="Uploads">
            {uploads.map((u) => (
              <li key={u.key}>
                <span className="tree-name small">{u.name}</span>
                <progress max={1} value={u.progress} aria-label={`Uploading ${u.name}`} />
              </li>
            ))}
          </ul>
        )}
      </aside>
      <div className="files-main">
        {nodeId && !selected ? (
          <div className="file-missing">
            <Empty>
              This file or folder does not exist any more: it was deleted or moved out of this space.{" "}
              <button type="button" className="link" onClick={() => open(null)}>
                See all files
              </button>
            </Empty>
          </div>
        ) : selected?.kind === "file" ? (
          <FileView
            key={selected.id}
            node={selected}
            tree={tree}
            canWrite={canWrite}
            renaming={renaming?.where === "header" && renaming.id === selected.id}
            onStopRenaming={() => setRenaming(null)}
            focusRequest={focusEditor?.id === selected.id ? focusEditor.n : 0}
            actions={{
              navigate: open,
              back: () => open(selected.parent_id),
              download,
              rename,
              menu: (node, at) => openMenu({ node, at, where: "header" }),
            }}
          />
        ) : (
          <FolderView
            tree={tree}
            folder={selected ?? null}
            onOpen={open}
            onUpload={upload}
            canWrite={canWrite}
            renaming={selected !== undefined && renaming?.where === "header" && renaming.id === selected.id}
            onRename={rename}
            onStopRenaming={() => setRenaming(null)}
            onMenu={(node, at) => openMenu({ node, at, where: "header" })}
          />
        )}
      </div>
      {menu && (
        <FileMenu
          label={`Actions for ${menu.node.name}`}
          at={menu.at}
          items={menuItems(menu.node, menu.where)}
          onClose={() => setMenu(null)}
        />
      )}
      {moving && (
        <MoveDialog
          node={moving}
          tree={tree}
          onMove={(parentId) => move(moving, parentId)}
          onDone={() => setMoving(null)}
          onClose={() => {
            if (dialogFrom !== "key") backFromDialog(moving, dialogFrom);
            setMoving(null);
          }}
        />
      )}
      {deleting && (
        <DeleteDialog
          node={deleting}
          tree={tree}
          onDelete={async () => {
            await remove(deleting);
            deleted.current = true;
          }}
          onClose={() => {
            // Kept: back to where the menu was (the Delete key's row gets it back from the dialog itself).
            if (!deleted.current && dialogFrom !== "key") backFromDialog(deleting, dialogFrom);
            deleted.current = false;
            setDeleting(null);
          }}
        />
      )}
    </div>
  );
}

/** The files tab of a space; `nodeId` is the open file or folder (none: the top level). */
export function FilesPage({ space, nodeId }: { space: Space; nodeId: string | null }) {
  // A new space starts afresh (its own unfolded folders, no half-typed name).
  return <FilesScreen key={space.id} space={space} nodeId={nodeId} />;
}
