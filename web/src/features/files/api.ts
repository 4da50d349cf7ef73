/**
 * The files feature's calls: a space's tree, creating, renaming, moving and deleting, moving bytes (uploads with
 * progress, downloads), edit proposals, and the address of the collaborative editor's socket.
 */
import type { FileNode, FolderBody, NodeChanges, Proposal, TextFileBody } from "../../../../src/api-types";
import { api, download, saveDownload, uploadForm } from "../../lib/api";

const filesPath = (base: string, spaceId: string) => `${base}/spaces/${spaceId}/files`;
const nodePath = (base: string, spaceId: string, nodeId: string) => `${filesPath(base, spaceId)}/${nodeId}`;

/** Every live file and folder of the space, flat. */
export async function listTree(base: string, spaceId: string): Promise<FileNode[]> {
  return (await api<{ nodes: FileNode[] }>("GET", `${filesPath(base, spaceId)}/tree`)).nodes;
}

/** The files and folders at the top of the space's tree. */
export async function listRoot(base: string, spaceId: string): Promise<FileNode[]> {
  return (await api<{ nodes: FileNode[] }>("GET", filesPath(base, spaceId))).nodes;
}

/** The files and folders of the whole space named like `words`. */
export async function searchFiles(base: string, spaceId: string, words: string): Promise<FileNode[]> {
  const query = `q=${encodeURIComponent(words)}&scope=space`;
  return (await api<{ nodes: FileNode[] }>("GET", `${filesPath(base, spaceId)}?${query}`)).nodes;
}

/** Creates a folder (`parent_id` null: at the top). */
export async function createFolder(base: string, spaceId: string, body: FolderBody): Promise<FileNode> {
  return (await api<{ node: FileNode }>("POST", `${filesPath(base, spaceId)}/folders`, body)).node;
}

/** Creates a text file, edited together. */
export async function createTextFile(base: string, spaceId: string, body: TextFileBody): Promise<FileNode> {
  return (await api<{ node: FileNode }>("POST", `${filesPath(base, spaceId)}/text`, body)).node;
}

/** Renames a file or folder, or moves it into another folder (`parent_id` null: the top). */
export async function patchNode(
  base: string,
  spaceId: string,
  nodeId: string,
  changes: NodeChanges,
): Promise<FileNode> {
  return (await api<{ node: FileNode }>("PATCH", nodePath(base, spaceId, nodeId), changes)).node;
}

/** Deletes a file, or a folder with everything below it. */
export async function deleteNode(base: string, spaceId: string, nodeId: string): Promise<void> {
  await api("DELETE", nodePath(base, spaceId, nodeId));
}

/**
 * Uploads `file` as multipart into `parentId` (the top when null), reporting progress from 0 to 1. Rejects with
 * an ApiError carrying the API's message (409 `name already exists`, 413 `file too large`, ...).
 */
export async function uploadFile(
  base: string,
  spaceId: string,
  file: File,
  parentId: string | null,
  onProgress: (fraction: number) => void,
): Promise<FileNode> {
  const form = new FormData();
  form.append("file", file, file.name);
  if (parentId) form.append("parent_id", parentId);
  return (await uploadForm<{ node: FileNode }>(`${filesPath(base, spaceId)}/upload`, form, onProgress).done).node;
}

/** A file's bytes. */
export function fileContent(base: string, spaceId: string, nodeId: string): Promise<Blob> {
  return download(`${nodePath(base, spaceId, nodeId)}/content`);
}

/**
 * Fetches a file's bytes and hands them to the browser as a download named `name` (the content route needs the
 * bearer token, so a plain link cannot fetch it).
 */
export function saveFile(base: string, spaceId: string, nodeId: string, name: string): Promise<void> {
  return saveDownload(`${nodePath(base, spaceId, nodeId)}/content`, name);
}

/** The space's proposals with one status, newest first. */
export async function listProposals(base: string, spaceId: string, status: Proposal["status"]): Promise<Proposal[]> {
  return (await api<{ proposals: Proposal[] }>("GET", `${filesPath(base, spaceId)}/proposals?status=${status}`))
    .proposals;
}

/** Every proposal of a text file, whatever its status, newest first. */
export async function listFileProposals(base: string, spaceId: string, nodeId: string): Promise<Proposal[]> {
  return (await api<{ proposals: Proposal[] }>("GET", `${nodePath(base, spaceId, nodeId)}/proposals`)).proposals;
}

/** A person accepts (the file takes the proposed text) or rejects a pending proposal. */
export async function resolveProposal(
  base: string,
  spaceId: string,
  proposalId: string,
  action: "accept" | "reject",
): Promise<Proposal> {
  const path = `${filesPath(base, spaceId)}/proposals/${proposalId}/${action}`;
  return (await api<{ proposal: Proposal }>("POST", path)).proposal;
}

/** `ws(s)://host/api/v1/organizations/{orgId}/spaces/{spaceId}/files/collab/ws`: the y-websocket endpoint. */
export function collabUrl(base: string, spaceId: string): string {
  return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/api/v1${filesPath(base, spaceId)}/collab/ws`;
}
