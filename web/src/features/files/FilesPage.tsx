/**
 * A space's files (URL /spaces/:spaceId/files/:nodeId?): the tree beside the open file or folder. The tree is
 * the API's flat list nested here and kept current by the live events (`file.*`, and `file.proposal.*` for the
 * files waiting for a review); a reconnect refetches it. Creating, renaming, moving, deleting, uploading and
 * downloading happen in place; a text file opens in the collaborative editor.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { FileNode, Space } from "../../../../src/api-types";
import { messageOf } from "../../lib/api";
import { useStored } from "../../lib/hooks";
import { navigate } from "../../lib/router";
import { Empty, ErrorText, Spinner, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { createFolder, createTextFile, deleteNode, patchNode, saveFile } from "./api";
import { DeleteDialog, MoveDialog } from "./FileDialogs";
import { FileMenu, type MenuItem } from "./FileMenu";
import { FilesToolbar, PendingProposals, UploadList } from "./FilesSide";
import { type Draft, FileTree, type TreeActions } from "./FileTree";
import { FileView } from "./FileView";
import { FolderView } from "./FolderView";
import { SearchResults } from "./SearchResults";
import { ancestorsOf, isWithin, removeSubtree, upsertNode } from "./tree";
import { useSpaceFiles } from "./use-space-files";
import { useUploads } from "./use-uploads";

function FilesScreen({ space, nodeId }: { space: Space; nodeId: string | null }) {
  const ws = useWorkspace();
  const canWrite = ws.can("files.write");

  const { nodes, tree, update, pending, pendingCount, error, pendingError } = useSpaceFiles(ws.base, space.id);

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
  const [query, setQuery] = useState("");
  /**
   * A file whose editor should take the keyboard once it has loaded: one just created, or one opened with Enter
   * from the tree. `n` tells requests apart, so Enter on the file already open asks again. A click in the tree
   * leaves the keyboard in the tree, as a file explorer does, so F2, Delete and the arrows keep working there.
   */
  const [focusEditor, setFocusEditor] = useState<{ id: string; n: number } | null>(null);
  const [showPending, setShowPending] = useState(false);

  const selected = nodeId ? tree.byId.get(nodeId) : undefined;

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

  const {
    uploads,
    upload,
    pick: pickUpload,
    chosen,
    input: uploadInput,
  } = useUploads({
    base: ws.base,
    spaceId: space.id,
    canWrite,
    reveal: (id) => toggle(id, true),
    onUploaded: (node, alone) => {
      update((list) => upsertNode(list, node));
      if (alone) open(node.id);
    },
  });

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

  if (error && !nodes) return <ErrorText error={error} />;
  if (!nodes) return <Spinner />;

  const searching = query.trim() !== "";
  // On a phone the open file takes the whole screen; folders are browsed in the tree.
  const fileOpen = selected?.kind === "file" || (nodeId !== null && !selected);

  return (
    <div className={`files${fileOpen ? " has-file" : ""}`}>
      <aside className="files-side" aria-label="Files of the space">
        {canWrite && (
          <FilesToolbar
            folderName={currentFolder ? (tree.byId.get(currentFolder)?.name ?? "the open folder") : "All files"}
            onNew={(kind, from) => startDraft(kind, currentFolder, from)}
            onUpload={() => pickUpload()}
            input={uploadInput}
            onChosen={(files) => chosen(files, currentFolder)}
          />
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
        <PendingProposals
          tree={tree}
          pending={pending}
          open={showPending}
          onToggle={() => setShowPending(!showPending)}
          onOpen={(id) => open(id)}
        />
        <ErrorText error={error ?? pendingError} />
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
        <UploadList uploads={uploads} />
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
