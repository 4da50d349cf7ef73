/**
 * The space's file tree: a keyboard-navigable ARIA tree (arrows, Home/End, F2 to rename, Delete, the context
 * menu key), inline rename and inline naming of a new file or folder, and drag and drop: a node onto a folder
 * (or "All files", the root) moves it; files from the desktop upload into the folder they are dropped on.
 */
import { type DragEvent, type KeyboardEvent, useEffect, useMemo, useRef, useState } from "react";
import type { FileNode } from "../../../../src/api-types";
import { FileIcon, Icon } from "./icons";
import { NameInput } from "./NameInput";
import type { Tree, VisibleRow } from "./tree";
import { visibleRows } from "./tree";

/** The drag payload of a node being moved (desktop files come as `Files`). */
const NODE_TYPE = "application/x-tandem-file";

/** A new file or folder being named, below `parentId` (the root when null). */
export interface Draft {
  kind: "folder" | "text";
  parentId: string | null;
}

/** What the tree asks of the page. */
export interface TreeActions {
  /** Opens a node; `withKeyboard` (Enter on a file) also moves the keyboard into its editor. */
  open: (node: FileNode, withKeyboard?: boolean) => void;
  openRoot: () => void;
  toggle: (id: string, open?: boolean) => void;
  rename: (node: FileNode, name: string) => Promise<string | null>;
  create: (draft: Draft, name: string) => Promise<string | null>;
  /** `byKeyboard` (Escape): the keyboard goes back to what started the draft. */
  cancelDraft: (byKeyboard: boolean) => void;
  move: (node: FileNode, parentId: string | null) => void;
  upload: (files: File[], parentId: string | null) => void;
  remove: (node: FileNode) => void;
  menu: (node: FileNode, at: { x: number; y: number }) => void;
  stopRenaming: () => void;
  startRenaming: (node: FileNode) => void;
}

export function FileTree({
  tree,
  expanded,
  selectedId,
  draft,
  renamingId,
  pendingCount,
  canWrite,
  actions,
  focusTarget,
  onFocused,
}: {
  tree: Tree;
  expanded: ReadonlySet<string>;
  selectedId: string | null;
  draft: Draft | null;
  renamingId: string | null;
  pendingCount: ReadonlyMap<string, number>;
  canWrite: boolean;
  actions: TreeActions;
  /**
   * A row to focus once the tree shows the change that asked for it: the row itself, else its nearest shown
   * folder, else the first row ("" asks for that). `onFocused` clears the request.
   */
  focusTarget: string | null;
  onFocused: () => void;
}) {
  const rows = useMemo(() => visibleRows(tree, expanded), [tree, expanded]);
  // Proposals waiting below each folder, so a folded folder still shows that something inside waits for review.
  const pendingBelow = useMemo(() => {
    const below = new Map<string, number>();
    for (const [id, count] of pendingCount) {
      let parent = tree.byId.get(id)?.parent_id ?? null;
      while (parent) {
        below.set(parent, (below.get(parent) ?? 0) + count);
        parent = tree.byId.get(parent)?.parent_id ?? null;
      }
    }
    return below;
  }, [tree, pendingCount]);
  const buttons = useRef(new Map<string, HTMLButtonElement>());
  const [focusId, setFocusId] = useState<string | null>(null);
  const [dropTarget, setDropTarget] = useState<string | null>(null);
  const dragging = useRef<FileNode | null>(null);

  // One row is in the tab order: the focused one, else the open one, else the first.
  const tabId =
    (focusId && tree.byId.has(focusId) && rows.some((r) => r.node.id === focusId) ? focusId : null) ??
    (selectedId && rows.some((r) => r.node.id === selectedId) ? selectedId : null) ??
    rows[0]?.node.id ??
    null;

  const focusRow = (id: string | undefined) => {
    if (!id) return;
    setFocusId(id);
    buttons.current.get(id)?.focus();
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when a request comes or the rows change.
  useEffect(() => {
    if (focusTarget === null) return;
    let id: string | null = focusTarget || null;
    while (id && !buttons.current.has(id)) id = tree.byId.get(id)?.parent_id ?? null;
    focusRow(id ?? rows[0]?.node.id);
    onFocused();
  }, [focusTarget, rows]);

  const onKey = (event: KeyboardEvent<HTMLButtonElement>, row: VisibleRow, i: number) => {
    const node = row.node;
    const isOpen = node.kind === "folder" && expanded.has(node.id);
    let handled = true;
    switch (event.key) {
      case "ArrowDown":
        focusRow(rows[i + 1]?.node.id);
        break;
      case "ArrowUp":
        focusRow(rows[i - 1]?.node.id);
        break;
      case "Home":
        focusRow(rows[0]?.node.id);
        break;
      case "End":
        focusRow(rows[rows.length - 1]?.node.id);
        break;
      case "ArrowRight":
        if (node.kind === "folder" && !isOpen) actions.toggle(node.id, true);
        else if (isOpen) focusRow(rows[i + 1]?.depth === row.depth + 1 ? rows[i + 1]?.node.id : undefined);
        break;
      case "ArrowLeft":
        if (isOpen) actions.toggle(node.id, false);
        else focusRow(node.parent_id ?? undefined);
        break;
      case "Enter":
        // Enter opens a file and goes into it (as in a code editor's explorer); a click or Space opens it and
        // leaves the keyboard here. On a folder Enter does what a click does.
        if (node.kind === "folder") handled = false;
        else actions.open(node, true);
        break;
      case "F2":
        if (canWrite) actions.startRenaming(node);
        break;
      case "Delete":
        if (canWrite) actions.remove(node);
        break;
      case "ContextMenu": {
        const box = event.currentTarget.getBoundingClientRect();
        actions.menu(node, { x: box.left + 24, y: box.bottom });
        break;
      }
      default:
        handled = false;
        if (event.key === "F10" && event.shiftKey) {
          const box = event.currentTarget.getBoundingClientRect();
          actions.menu(node, { x: box.left + 24, y: box.bottom });
          handled = true;
        }
    }
    if (handled) event.preventDefault();
  };

  // Drag and drop: moving nodes and uploading desktop files.
  const accepts = (event: DragEvent) =>
    canWrite && (event.dataTransfer.types.includes(NODE_TYPE) || event.dataTransfer.types.includes("Files"));
  const targetOf = (node: FileNode | null): string =>
    node === null ? "" : node.kind === "folder" ? node.id : (node.parent_id ?? "");
  const over = (event: DragEvent, node: FileNode | null) => {
    if (!accepts(event)) return;
    event.preventDefault();
    event.stopPropagation();
    event.dataTransfer.dropEffect = event.dataTransfer.types.includes(NODE_TYPE) ? "move" : "copy";
    setDropTarget(targetOf(node));
  };
  const drop = (event: DragEvent, node: FileNode | null) => {
    if (!accepts(event)) return;
    event.preventDefault();
    event.stopPropagation();
    setDropTarget(null);
    const parentId = targetOf(node) || null;
    const files = [...event.dataTransfer.files];
    if (files.length > 0 && !event.dataTransfer.types.includes(NODE_TYPE)) {
      actions.upload(files, parentId);
      return;
    }
    const id = event.dataTransfer.getData(NODE_TYPE) || dragging.current?.id;
    const moved = id ? tree.byId.get(id) : undefined;
    dragging.current = null;
    if (!moved || moved.id === parentId || (moved.parent_id ?? null) === parentId) return;
    actions.move(moved, parentId);
  };

  const draftRow = (parentId: string | null, depth: number) =>
    draft && draft.parentId === parentId ? (
      // A row of the tree while it is named, so the tree holds only items (its field is inside).
      // biome-ignore lint/a11y/useFocusableInteractive: the name field inside the item takes the keyboard.
      <div
        role="treeitem"
        aria-level={depth}
        aria-selected={false}
        aria-label={draft.kind === "folder" ? "New folder" : "New file"}
        key={`draft-${parentId ?? ""}`}
      >
        <NameInput
          label={draft.kind === "folder" ? "Name of the new folder" : "Name of the new file"}
          initial=""
          placeholder={draft.kind === "folder" ? "Folder name" : "notes.md"}
          depth={depth}
          onSave={(name) => actions.create(draft, name)}
          onCancel={actions.cancelDraft}
        />
      </div>
    ) : null;

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: the drop zone of the root; moving by keyboard is "Move to…".
    <div
      className={`tree-wrap${dropTarget === "" ? " drop-root" : ""}`}
      onDragOver={(event) => over(event, null)}
      onDragLeave={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDropTarget(null);
      }}
      onDrop={(event) => drop(event, null)}
    >
      <button
        type="button"
        className={`tree-root${selectedId === null ? " selected" : ""}${dropTarget === "" ? " drop" : ""}`}
        aria-current={selectedId === null ? "page" : undefined}
        onClick={actions.openRoot}
        onDragOver={(event) => over(event, null)}
        onDrop={(event) => drop(event, null)}
      >
        <Icon name="root" /> All files
      </button>
      <div className="tree" role="tree" aria-label="Files">
        {draftRow(null, 1)}
        {rows.map((row, i) => {
          const { node } = row;
          const isFolder = node.kind === "folder";
          const isOpen = isFolder && expanded.has(node.id);
          // A folder counts what waits inside it only while folded: open, its files show their own counts.
          const pending = isFolder ? (isOpen ? 0 : (pendingBelow.get(node.id) ?? 0)) : (pendingCount.get(node.id) ?? 0);
          const waiting =
            pending > 0
              ? `${pending} ${pending === 1 ? "proposal" : "proposals"} waiting for review${isFolder ? " inside" : ""}`
              : "";
          const isDrop = isFolder && dropTarget === node.id;
          const item =
            renamingId === node.id ? (
              // The row while it is renamed, an item still; the name field inside it takes the keyboard.
              // biome-ignore lint/a11y/useFocusableInteractive: the name field inside the item takes the keyboard.
              <div
                role="treeitem"
                aria-level={row.depth}
                aria-selected={selectedId === node.id}
                aria-label={`Renaming ${node.name}`}
              >
                <NameInput
                  label={`New name for ${node.name}`}
                  initial={node.name}
                  depth={row.depth}
                  onSave={(name) => actions.rename(node, name)}
                  onCancel={actions.stopRenaming}
                />
              </div>
            ) : (
              <div className={`tree-row${selectedId === node.id ? " selected" : ""}${isDrop ? " drop" : ""}`}>
                <button
                  type="button"
                  role="treeitem"
                  ref={(el) => {
                    if (el) buttons.current.set(node.id, el);
                    else buttons.current.delete(node.id);
                  }}
                  className="tree-item"
                  style={{ "--depth": row.depth } as React.CSSProperties}
                  aria-level={row.depth}
                  aria-setsize={row.siblings}
                  aria-posinset={row.index}
                  aria-expanded={isFolder ? isOpen : undefined}
                  aria-selected={selectedId === node.id}
                  aria-label={waiting ? `${node.name}, ${waiting}` : node.name}
                  tabIndex={tabId === node.id ? 0 : -1}
                  draggable={canWrite}
                  onFocus={() => setFocusId(node.id)}
                  onClick={(event) => {
                    const onChevron = (event.target as HTMLElement).closest(".tree-chevron");
                    if (isFolder && (onChevron || selectedId === node.id)) actions.toggle(node.id);
                    else if (isFolder && !isOpen) actions.toggle(node.id, true);
                    if (!onChevron) actions.open(node);
                  }}
                  onDoubleClick={() => {
                    if (canWrite && !isFolder) actions.startRenaming(node);
                  }}
                  onKeyDown={(event) => onKey(event, row, i)}
                  onContextMenu={(event) => {
                    event.preventDefault();
                    actions.menu(node, { x: event.clientX, y: event.clientY });
                  }}
                  onDragStart={(event) => {
                    dragging.current = node;
                    event.dataTransfer.setData(NODE_TYPE, node.id);
                    event.dataTransfer.setData("text/plain", node.name);
                    event.dataTransfer.effectAllowed = "move";
                  }}
                  onDragEnd={() => {
                    dragging.current = null;
                    setDropTarget(null);
                  }}
                  onDragOver={(event) => over(event, node)}
                  onDrop={(event) => drop(event, node)}
                >
                  <span className="tree-chevron" aria-hidden="true">
                    {isFolder ? (isOpen ? "▾" : "▸") : ""}
                  </span>
                  <FileIcon node={node} open={isOpen} />
                  <span className="tree-name">{node.name}</span>
                  {pending > 0 && (
                    <span className={`count-badge${isFolder ? " inside" : ""}`} aria-hidden="true" title={waiting}>
                      {pending}
                    </span>
                  )}
                </button>
                {/* A pointer shortcut to the row's own menu (Shift+F10, the context-menu key, a right click):
                    hidden from assistive technology so each file has one menu button, and a tree holds only
                    its items. */}
                <button
                  type="button"
                  className="icon tree-more"
                  tabIndex={-1}
                  aria-hidden="true"
                  title={`More actions for ${node.name}`}
                  onClick={(event) => {
                    const box = event.currentTarget.getBoundingClientRect();
                    actions.menu(node, { x: box.right, y: box.bottom });
                  }}
                >
                  ⋯
                </button>
              </div>
            );
          return (
            <div role="none" key={node.id}>
              {item}
              {isOpen && draftRow(node.id, row.depth + 1)}
            </div>
          );
        })}
      </div>
      {rows.length === 0 && !draft && (
        <p className="muted small tree-empty">
          No files yet.{canWrite ? " Create one, upload, or drop files here." : ""}
        </p>
      )}
    </div>
  );
}
