/**
 * The file tree on the client: the API's flat list of live nodes turned into nested, sorted folders (folders
 * first, then names ignoring case, numbers in numeric order), and the small queries the screen asks of it.
 */
import type { FileNode } from "../../../../src/api-types";

/** One node with its children, sorted. */
export interface TreeNode {
  node: FileNode;
  children: TreeNode[];
}

/** The nodes of a space by id, with the children of each folder (and of the root, under `""`). */
export interface Tree {
  byId: Map<string, FileNode>;
  roots: TreeNode[];
  /** Child lists by parent id (`""` for the root), sorted. */
  childrenOf: Map<string, TreeNode[]>;
}

const collator = new Intl.Collator(undefined, { sensitivity: "base", numeric: true });

/** Folders first, then by name ignoring case and accents ("file 2" before "file 10"). */
export function compareNodes(a: FileNode, b: FileNode): number {
  if (a.kind !== b.kind) return a.kind === "folder" ? -1 : 1;
  return collator.compare(a.name, b.name) || a.id.localeCompare(b.id);
}

/**
 * Nests the flat list. A node whose parent is missing (deleted while its event was on the way) is left out
 * rather than shown at the root, so a deleted folder's children never flash up in the wrong place.
 */
export function buildTree(nodes: readonly FileNode[]): Tree {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const items = new Map<string, TreeNode>();
  for (const node of nodes) items.set(node.id, { node, children: [] });
  const childrenOf = new Map<string, TreeNode[]>([["", []]]);
  for (const item of items.values()) {
    const parent = item.node.parent_id ?? "";
    if (parent !== "" && !byId.has(parent)) continue;
    const list = childrenOf.get(parent);
    if (list) list.push(item);
    else childrenOf.set(parent, [item]);
    if (parent !== "") items.get(parent)?.children.push(item);
  }
  for (const list of childrenOf.values()) list.sort((a, b) => compareNodes(a.node, b.node));
  for (const item of items.values()) item.children.sort((a, b) => compareNodes(a.node, b.node));
  return { byId, roots: childrenOf.get("") ?? [], childrenOf };
}

/** The folders from the root down to `id`'s parent (not `id` itself). */
export function ancestorsOf(tree: Tree, id: string): FileNode[] {
  const chain: FileNode[] = [];
  const seen = new Set<string>();
  let current = tree.byId.get(id)?.parent_id ?? null;
  while (current && !seen.has(current)) {
    seen.add(current);
    const node = tree.byId.get(current);
    if (!node) break;
    chain.unshift(node);
    current = node.parent_id;
  }
  return chain;
}

/** "Docs / Specs" for a node inside Docs/Specs; "" at the root. */
export function folderPath(tree: Tree, id: string): string {
  return ancestorsOf(tree, id)
    .map((n) => n.name)
    .join(" / ");
}

/** Whether `id` is `folderId` or lies below it. */
export function isWithin(tree: Tree, id: string, folderId: string): boolean {
  if (id === folderId) return true;
  return ancestorsOf(tree, id).some((n) => n.id === folderId);
}

/** How many nodes lie below `id` (what deleting it takes along). */
export function countBelow(tree: Tree, id: string): number {
  let count = 0;
  const stack = [...(tree.childrenOf.get(id) ?? [])];
  while (stack.length > 0) {
    const item = stack.pop() as TreeNode;
    count++;
    stack.push(...item.children);
  }
  return count;
}

/** One row of the tree as shown: a node at a depth (1 for the root's children). */
export interface VisibleRow {
  node: FileNode;
  depth: number;
  /** Position among its siblings (1-based) and how many there are, for assistive technology. */
  index: number;
  siblings: number;
}

/** The rows a reader sees: every root node, and the children of each expanded folder, in order. */
export function visibleRows(tree: Tree, expanded: ReadonlySet<string>): VisibleRow[] {
  const rows: VisibleRow[] = [];
  const walk = (items: TreeNode[], depth: number) => {
    items.forEach((item, i) => {
      rows.push({ node: item.node, depth, index: i + 1, siblings: items.length });
      if (item.node.kind === "folder" && expanded.has(item.node.id)) walk(item.children, depth + 1);
    });
  };
  walk(tree.roots, 1);
  return rows;
}

/** Applies a `file.created` / `file.updated` node to the flat list (a rename, a move, new content). */
export function upsertNode(nodes: readonly FileNode[], node: FileNode): FileNode[] {
  const i = nodes.findIndex((n) => n.id === node.id);
  if (i === -1) return [...nodes, node];
  // An event may arrive after a newer answer of our own: keep whichever was updated last.
  if ((nodes[i] as FileNode).updated_at > node.updated_at) return nodes as FileNode[];
  const next = nodes.slice();
  next[i] = node;
  return next;
}

/** Removes a node and everything below it (a folder's deletion is one event, for the folder). */
export function removeSubtree(nodes: readonly FileNode[], id: string): FileNode[] {
  const gone = new Set([id]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const n of nodes)
      if (n.parent_id && gone.has(n.parent_id) && !gone.has(n.id)) {
        gone.add(n.id);
        grew = true;
      }
  }
  return nodes.filter((n) => !gone.has(n.id));
}

/** Whether a file opens in the text editor with a markdown preview. */
export function isMarkdown(node: FileNode): boolean {
  return node.mime_type === "text/markdown" || /\.(md|markdown|mdx)$/i.test(node.name);
}

/** Sizes are written one way on every screen. */
export { formatSize } from "../../lib/size";
