/** The file tree of a space: folders, text files (Yjs documents), uploaded blobs and their content. */
import { createHash } from "node:crypto";
import type { DocRegistry, DocScope } from "../../collab/registry";
import type { SpaceActor } from "../../core/actor";
import { AppError, conflict, invalid, notFound } from "../../core/errors";
import { spaceEvent, type Unit } from "../../core/events";
import type { IncomingFile } from "../../core/upload";
import type { UnitOfWork } from "../../db/unit";
import { sha256Hex } from "../../lib/hash";
import { isUuid, lowerUuid, newId } from "../../lib/ids";
import { nameKey } from "../../lib/text";
import { SpaceCache } from "../events/space-cache";
import {
  assertMayChangeExisting,
  assertMovable,
  checkName,
  isTextType,
  MAX_TEXT_BYTES,
  mimeOf,
  replacedMime,
} from "./files.policy";
import { presentNode } from "./files.present";
import type { FilesStore, NodeRow } from "./files.store";
import { newTextState, replaceText, TEXT_KEY } from "./text-doc";

export type { NodeRow } from "./files.store";

/** Blob chunk size: big enough for few rows, small enough to stream. */
const CHUNK_BYTES = 256 * 1024;
/** Uploads of a text type up to this size become editable text files. */
/**
 * Blobs up to this size are answered from memory with their exact Content-Length; larger ones stream in
 * chunks (Bun cannot yet announce the length of a streamed body: oven-sh/bun#10507).
 */
const BUFFERED_DOWNLOAD_BYTES = 8 * 1024 * 1024;
/** The root folder that deliverable files must live under. */
export const DELIVERABLES = "Deliverables";

/** An upload read into a blob, not yet in the tree (`FilesService.receive`, then `place`). */
export interface Received {
  blob: BlobWriter;
  name: string;
  /** The type its sender declared. */
  type: string | null;
  checksum: string;
  /** Its text, when it becomes an editable text file (a text type, small enough, valid UTF-8). */
  text: string | null;
  /** The form's other fields. */
  fields: Record<string, string>;
}

const fileNotFound = () => notFound("file not found");
const tooLarge = (what: string) => new AppError("too_large", `${what} too large`);

/** The organization and space of an actor's documents. */
const scopeOf = (actor: SpaceActor): DocScope => ({ orgId: actor.orgId, spaceId: actor.space.id });

/** What `GET .../content` answers. */
export interface Content {
  node: NodeRow;
  mimeType: string;
  /** The whole body for text files; a chunk reader for blobs. */
  body: Uint8Array | ReadableStream<Uint8Array>;
}

/**
 * Writes a stream of bytes into a new blob, chunk by chunk, hashing as it goes. Each chunk is its own small
 * write, outside any unit of work: an upload of minutes must not hold the write lock, and no event is owed for
 * a blob nothing points at yet. The unit that places the file makes it part of the tree; a blob never placed is
 * collected (`collectGarbage`).
 */
class BlobWriter {
  readonly id = newId();
  private readonly createdAt = Date.now();
  private readonly hash = createHash("sha256");
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private seq = 0;
  size = 0;
  /** The first bytes, kept while they could still be an editable text file. */
  head: Buffer[] | null = [];

  constructor(
    private readonly store: FilesStore,
    private readonly maxBytes: number,
    keepHead: boolean,
  ) {
    if (!keepHead) this.head = null;
    store.insertBlob(this.id, this.createdAt);
  }

  write(chunk: Uint8Array): void {
    this.size += chunk.byteLength;
    if (this.size > this.maxBytes) throw tooLarge("file");
    const data = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.hash.update(data);
    if (this.head) {
      if (this.size <= MAX_TEXT_BYTES) this.head.push(Buffer.from(data));
      else this.head = null;
    }
    this.pending.push(Buffer.from(data));
    this.pendingBytes += data.length;
    while (this.pendingBytes >= CHUNK_BYTES) this.flush(CHUNK_BYTES);
  }

  private flush(bytes: number): void {
    const all = Buffer.concat(this.pending);
    this.store.appendChunk(this.id, this.seq++, all.subarray(0, bytes));
    const rest = all.subarray(bytes);
    this.pending = rest.length > 0 ? [rest] : [];
    this.pendingBytes = rest.length;
  }

  /** Writes the last chunk and marks the blob complete; returns its checksum. */
  finish(): string {
    if (this.pendingBytes > 0) this.flush(this.pendingBytes);
    const checksum = this.hash.digest("hex");
    this.store.finishBlob(this.id, this.size, checksum, this.createdAt);
    return checksum;
  }

  discard(): void {
    this.store.deleteBlob(this.id);
  }
}

/** A live node and its path from the space's root, folders ending in `/`. */
export interface NodePath {
  path: string;
  node: NodeRow;
}

/** The nodes by path, sorted. */
function pathsOf(nodes: readonly NodeRow[]): NodePath[] {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const pathOf = (node: NodeRow): string => {
    const parts: string[] = [];
    for (let at: NodeRow | undefined = node; at; at = at.parentId ? byId.get(at.parentId) : undefined) {
      parts.unshift(at.name);
      if (parts.length > 64) break;
    }
    return parts.join("/") + (node.kind === "folder" ? "/" : "");
  };
  return nodes.map((node) => ({ path: pathOf(node), node })).sort((a, b) => a.path.localeCompare(b.path));
}

/** File operations, each on a space the macro has already checked. */
export class FilesService {
  /**
   * Each space's paths, for staff replies: reading and pathing 10,000 nodes takes 20-40 ms. Replies come in
   * bursts in a few spaces; a handful of entries serve them (a 10,000-node space holds about 7 MiB here).
   */
  private readonly pathCache: SpaceCache<readonly NodePath[]>;
  /** Blobs being streamed to clients, with how many readers each. */
  private readonly reading = new Map<string, number>();
  /** Blobs replaced while being read: deleted when their last reader is done. */
  private readonly dropped = new Set<string>();

  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: FilesStore,
    private readonly maxUploadBytes: number,
    private readonly docs: DocRegistry,
  ) {
    this.pathCache = new SpaceCache(uow.events, "file.", 8);
  }

  // Reading the tree

  /** A live node of the space, or 404 `file not found`. */
  node(actor: SpaceActor, id: string): NodeRow {
    const node = isUuid(id) ? this.store.node(actor.space.id, id) : undefined;
    if (!node || node.deletedAt !== null) throw fileNotFound();
    return node;
  }

  /**
   * Brings the space's text files (or one file) up to what their documents stored, before their text, size or
   * checksum is read: typing writes those once editing settles, not with every keystroke.
   */
  fresh(actor: SpaceActor, id?: string): void {
    this.docs.settle(actor.space.id, id);
  }

  /** A live node of the space as a reader sees it (a text file's size and checksum up to date), or 404. */
  read(actor: SpaceActor, id: string): NodeRow {
    this.fresh(actor, id);
    return this.node(actor, id);
  }

  list(
    actor: SpaceActor,
    query: { parentId?: string | undefined; q?: string | undefined; scope?: string | undefined },
  ): NodeRow[] {
    this.fresh(actor);
    const parentId = query.parentId ? this.folder(actor, query.parentId).id : null;
    const q = query.q?.trim();
    if (q) return this.store.search(actor.space.id, parentId, q, query.scope === "space");
    return this.store.children(actor.space.id, parentId);
  }

  tree(actor: SpaceActor): NodeRow[] {
    this.fresh(actor);
    return this.store.tree(actor.space.id);
  }

  /** Every live node of the space by its path, sorted; kept until the space's next file event. */
  paths(actor: SpaceActor): readonly NodePath[] {
    return this.pathCache.get(actor.space.id, "paths", () => pathsOf(this.store.tree(actor.space.id)));
  }

  // Creating

  createFolder(actor: SpaceActor, input: { name: string; parent_id?: string | null | undefined }): NodeRow {
    const name = checkName(input.name);
    return this.uow.write((unit) =>
      this.insert(unit, actor, { parentId: this.parentFor(actor, input.parent_id), name, kind: "folder" }),
    );
  }

  createText(
    actor: SpaceActor,
    input: { name: string; parent_id?: string | null | undefined; content?: string | undefined },
  ): NodeRow {
    const name = checkName(input.name);
    const text = input.content ?? "";
    this.checkTextSize(Buffer.byteLength(text));
    return this.uow.write((unit) =>
      this.insertText(unit, actor, this.parentFor(actor, input.parent_id), name, text, null),
    );
  }

  /**
   * An upload (`file`, `parent_id?`), streamed into a blob as it arrives. A text type small enough and valid
   * UTF-8 becomes an editable text file instead.
   */
  async upload(actor: SpaceActor, incoming: IncomingFile): Promise<NodeRow> {
    const received = await this.receive(incoming);
    try {
      return this.uow.write(() => {
        // The body took its time: the uploader may have lost access meanwhile.
        actor.recheck?.();
        const parent = received.fields.parent_id;
        return this.place(actor, received, this.parentFor(actor, lowerUuid(parent?.trim()) || undefined));
      });
    } catch (error) {
      received.blob.discard();
      throw error;
    }
  }

  /** Reads an upload into a new blob; `place` puts it in the tree (or `received.blob.discard()` drops it). */
  async receive(incoming: IncomingFile): Promise<Received> {
    let writer: BlobWriter | null = null;
    let filename = "";
    let type: string | null = null;
    try {
      const fields = await incoming.receive((name, declared) => {
        filename = name;
        type = declared;
        writer = new BlobWriter(this.store, this.maxUploadBytes, isTextType(name, declared));
        return writer;
      });
      const blob = writer as BlobWriter | null;
      if (!blob) throw invalid("file: required");
      const name = checkName(filename.split(/[\\/]/).pop() ?? "");
      const checksum = blob.finish();
      const text = blob.head ? decodeUtf8(Buffer.concat(blob.head)) : null;
      return { blob, name, type, checksum, text, fields };
    } catch (error) {
      (writer as BlobWriter | null)?.discard();
      throw error;
    }
  }

  /** Puts a received upload in the folder `parentId` (null: the root), in the caller's unit when there is one. */
  place(actor: SpaceActor, received: Received, parentId: string | null): NodeRow {
    const { blob, name, type, text } = received;
    return this.uow.write((unit) => {
      if (text !== null) {
        blob.discard();
        return this.insertText(unit, actor, parentId, name, text, type);
      }
      return this.insert(unit, actor, {
        parentId,
        name,
        kind: "file",
        storage: "blob",
        blobId: blob.id,
        mimeType: mimeOf(name, type, false),
        sizeBytes: blob.size,
        checksumSha256: received.checksum,
      });
    });
  }

  // Content

  content(actor: SpaceActor, id: string): Content {
    const node = this.file(actor, id);
    if (node.storage === "text") {
      this.fresh(actor, node.id);
      const doc = this.store.doc(node.id);
      return { node, mimeType: node.mimeType ?? "text/plain", body: Buffer.from(doc?.text ?? "") };
    }
    const mimeType = node.mimeType ?? "application/octet-stream";
    if ((node.sizeBytes ?? 0) <= BUFFERED_DOWNLOAD_BYTES) return { node, mimeType, body: this.blobBytes(node.blobId) };
    return { node, mimeType, body: this.blobStream(node.blobId, node.sizeBytes ?? 0) };
  }

  /**
   * Refuses a text over the text file limit (413 `text file too large`), or over the upload limit where that is
   * the smaller (413 `file too large`): every way a text gets in, editing together aside, is held to both.
   */
  checkTextSize(bytes: number): void {
    if (bytes > this.maxUploadBytes && this.maxUploadBytes < MAX_TEXT_BYTES) throw tooLarge("file");
    if (bytes > MAX_TEXT_BYTES) throw tooLarge("text file");
  }

  /** Replaces a file's content with `body`, declared as `type`. */
  async putContent(
    actor: SpaceActor,
    id: string,
    body: ReadableStream<Uint8Array> | null,
    type: string | null,
  ): Promise<NodeRow> {
    assertMayChangeExisting(actor);
    const node = this.file(actor, id);
    if (node.storage === "text") {
      // A text file is held to the upload limit too, where that is the smaller.
      const bytes =
        this.maxUploadBytes < MAX_TEXT_BYTES
          ? await readAll(body, this.maxUploadBytes, "file")
          : await readAll(body, MAX_TEXT_BYTES, "text file");
      const text = decodeUtf8(bytes);
      if (text === null) throw invalid("content must be UTF-8 text");
      actor.recheck?.();
      return this.writeText(actor, node, text);
    }
    const writer = new BlobWriter(this.store, this.maxUploadBytes, false);
    try {
      if (body) for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) writer.write(chunk);
      const checksum = writer.finish();
      const now = Date.now();
      return this.uow.write((unit) => {
        actor.recheck?.();
        const current = this.file(actor, id);
        const updated: NodeRow = {
          ...current,
          blobId: writer.id,
          sizeBytes: writer.size,
          checksumSha256: checksum,
          mimeType: replacedMime(current.name, type, current.mimeType),
          updatedAt: now,
        };
        this.store.saveNode(current, updated);
        if (current.blobId) this.dropBlob(current.blobId);
        unit.emit(spaceEvent(actor, "file.updated", presentNode(updated)));
        return updated;
      });
    } catch (error) {
      writer.discard();
      throw error;
    }
  }

  /**
   * Sets a text file's text through its live document, so collaborators see the change at once; the document
   * stores it (text, size, checksum), keeps a version before and after it, and announces `file.updated`. With
   * `expectedSha256`, only if the text is still the one with that checksum (409 otherwise).
   */
  async writeText(actor: SpaceActor, node: NodeRow, text: string, expectedSha256?: string): Promise<NodeRow> {
    this.checkTextSize(Buffer.byteLength(text));
    const found = await this.docs.edit(node.id, scopeOf(actor), actor.userId, (doc) => {
      // Checked against the live document itself: the node's row may not yet hold this turn's edits.
      if (expectedSha256 !== undefined && sha256Hex(doc.getText(TEXT_KEY).toString()) !== expectedSha256) {
        throw conflict("file changed since the proposal");
      }
      replaceText(doc, text);
    });
    if (!found) throw new Error(`text file ${node.id} has no document`);
    return this.node(actor, node.id);
  }

  /** A live text file: what the collaborative editor opens. */
  textFile(actor: SpaceActor, id: string): NodeRow {
    const node = this.file(actor, id);
    if (node.storage !== "text") throw invalid("not a text file");
    return node;
  }

  /**
   * A live text file's stored text with its node (what its last stored change left), for its versions; undefined
   * once the file is deleted.
   */
  storedText(spaceId: string, id: string): { node: NodeRow; text: string } | undefined {
    const node = this.store.node(spaceId, id);
    if (!node || node.deletedAt !== null || node.storage !== "text") return undefined;
    return { node, text: this.store.doc(id)?.text ?? "" };
  }

  /** A live text file's node, without its text (undefined once deleted). */
  liveText(spaceId: string, id: string): NodeRow | undefined {
    const node = this.store.node(spaceId, id);
    return node && node.deletedAt === null && node.storage === "text" ? node : undefined;
  }

  /** A node's name, deleted or not, for the records that name it. */
  nameOf(spaceId: string, id: string): string | undefined {
    return this.store.node(spaceId, id)?.name;
  }

  /** Whether a node is still live (a document's file may be deleted while open). */
  isLive(spaceId: string, id: string): boolean {
    const node = this.store.node(spaceId, id);
    return node !== undefined && node.deletedAt === null;
  }

  /**
   * A text file's text, size and checksum were written from its document (editing settled, someone read it, or
   * the server wrote it), in that write's unit: its `file.updated`, coalesced for the live-event sockets.
   */
  textSettled(unit: Unit, nodeId: string, scope: DocScope, editing: boolean): void {
    const node = this.store.node(scope.spaceId, nodeId);
    if (!node || node.deletedAt !== null) return;
    unit.emit({
      type: "file.updated",
      organization_id: scope.orgId,
      space_id: scope.spaceId,
      payload: presentNode(node),
      coalesce: `file:${node.id}`,
      editing,
    });
  }

  // Changing the tree

  patch(
    actor: SpaceActor,
    id: string,
    input: { name?: string | undefined; parent_id?: string | null | undefined },
  ): NodeRow {
    assertMayChangeExisting(actor);
    if (input.name === undefined && input.parent_id === undefined) throw invalid("name or parent_id required");
    const name = input.name === undefined ? undefined : checkName(input.name);
    return this.uow.write((unit) => {
      const node = this.node(actor, id);
      const parentId = input.parent_id === undefined ? node.parentId : this.parentFor(actor, input.parent_id);
      if (parentId !== node.parentId && node.kind === "folder")
        assertMovable(node.id, parentId ? this.store.ancestry(parentId) : []);
      const finalName = name ?? node.name;
      const clash = this.store.siblingNamed(actor.space.id, parentId, finalName);
      if (clash && clash.id !== node.id) throw conflict("name already exists");
      const now = Date.now();
      const updated: NodeRow = { ...node, name: finalName, nameKey: nameKey(finalName), parentId, updatedAt: now };
      this.store.saveNode(node, updated);
      unit.emit(spaceEvent(actor, "file.updated", presentNode(updated)));
      return updated;
    });
  }

  delete(actor: SpaceActor, id: string): void {
    assertMayChangeExisting(actor);
    const now = Date.now();
    this.uow.write((unit) => {
      const node = this.node(actor, id);
      this.store.softDeleteSubtree(node.id, now);
      // One event for the node deleted; everything below it went with it.
      unit.emit(spaceEvent(actor, "file.deleted", presentNode({ ...node, deletedAt: now, updatedAt: now })));
    });
  }

  // Deliverables

  /**
   * Creates the `Deliverables` root folder when the space has none, in the caller's unit. A root *file* of that
   * name keeps it from being created; the task is saved regardless, and linking waits until the name is free.
   */
  ensureDeliverables(actor: SpaceActor): void {
    if (this.store.siblingNamed(actor.space.id, null, DELIVERABLES)) return;
    this.uow.write((unit) => this.insert(unit, actor, { parentId: null, name: DELIVERABLES, kind: "folder" }));
  }

  /** The `Deliverables` root folder, created when missing (in the caller's unit); 409 when a file has the name. */
  deliverablesFolder(actor: SpaceActor): NodeRow {
    return this.rootFolder(actor, DELIVERABLES);
  }

  /** The root folder `name` (ignoring case), created when missing (in the caller's unit); 409 when a file has it. */
  rootFolder(actor: SpaceActor, name: string): NodeRow {
    return this.uow.write((unit) => {
      const existing = this.store.rootFolderNamed(actor.space.id, name);
      if (existing) return existing;
      if (this.store.siblingNamed(actor.space.id, null, name)) throw conflict(`a file named ${name} is in the way`);
      return this.insert(unit, actor, { parentId: null, name, kind: "folder" });
    });
  }

  /**
   * `name`, or the first of `name (2)`, `name (3)`, ... (before the extension: `image (2).png`) that no live node
   * of the folder has, as a file manager names a copy. Names stay within 255 characters.
   */
  freeName(actor: SpaceActor, parentId: string, name: string): string {
    const taken = (candidate: string) => this.store.siblingNamed(actor.space.id, parentId, candidate) !== undefined;
    if (!taken(name)) return name;
    const dot = name.lastIndexOf(".");
    // An extension is a short ending after a dot (`.png`, `.tar.gz` keeps `.gz`); anything longer is the name.
    const [stem, ext] = dot > 0 && name.length - dot <= 16 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
    for (let n = 2; ; n++) {
      const suffix = ` (${n})${ext}`;
      const candidate = `${[...stem].slice(0, 255 - [...suffix].length).join("")}${suffix}`;
      if (!taken(candidate)) return candidate;
    }
  }

  /** A live file (not folder) somewhere below the `Deliverables` root folder. */
  deliverableFile(actor: SpaceActor, id: string): NodeRow {
    const node = this.node(actor, id);
    if (node.kind !== "file") throw invalid("file_node_id: must be a file, not a folder");
    const root = this.store.rootFolderNamed(actor.space.id, DELIVERABLES);
    if (!root || !this.store.ancestry(node.id).slice(1).includes(root.id)) {
      throw invalid("file must be under the Deliverables folder");
    }
    return node;
  }

  /** Removes blobs of cut-off uploads and replaced content. */
  collectGarbage(): number {
    return this.uow.write(() => this.store.deleteUnreferencedBlobs(Date.now() - 3600 * 1000, [...this.reading.keys()]));
  }

  // Helpers

  private file(actor: SpaceActor, id: string): NodeRow {
    const node = this.node(actor, id);
    if (node.kind !== "file") throw invalid("a folder has no content");
    return node;
  }

  /** The folder a listing names in its `parentId` query parameter. */
  private folder(actor: SpaceActor, id: string): NodeRow {
    const node = this.node(actor, id);
    if (node.kind !== "folder") throw invalid("parentId: not a folder");
    return node;
  }

  /**
   * A parent given in a body: null for the root, else a live folder of the space. An unknown, deleted or invisible
   * one is 404 `file not found`, as for every file a route names (contract §7); a file is 400.
   */
  private parentFor(actor: SpaceActor, parentId: string | null | undefined): string | null {
    if (parentId === undefined || parentId === null) return null;
    const node = isUuid(parentId) ? this.store.node(actor.space.id, parentId) : undefined;
    if (!node || node.deletedAt !== null) throw fileNotFound();
    if (node.kind !== "folder") throw invalid("parent_id: not a folder");
    return node.id;
  }

  /** A text file: its node and its document. Size and checksum are the text's UTF-8 bytes. */
  private insertText(
    unit: Unit,
    actor: SpaceActor,
    parentId: string | null,
    name: string,
    text: string,
    declaredType: string | null,
  ): NodeRow {
    const node = this.insert(unit, actor, {
      parentId,
      name,
      kind: "file",
      storage: "text",
      mimeType: mimeOf(name, declaredType, true),
      sizeBytes: Buffer.byteLength(text),
      checksumSha256: sha256Hex(text),
    });
    this.store.putDoc({ nodeId: node.id, state: Buffer.from(newTextState(text)), text, updatedAt: node.createdAt });
    return node;
  }

  /** Creates a node (the text file's document is the caller's) and emits `file.created`. */
  private insert(
    unit: Unit,
    actor: SpaceActor,
    fields: Partial<Omit<NodeRow, "nameKey">> & Pick<NodeRow, "parentId" | "name" | "kind">,
  ): NodeRow {
    if (this.store.siblingNamed(actor.space.id, fields.parentId, fields.name)) throw conflict("name already exists");
    const now = Date.now();
    const node: NodeRow = {
      id: newId(),
      spaceId: actor.space.id,
      storage: null,
      blobId: null,
      mimeType: null,
      sizeBytes: null,
      checksumSha256: null,
      createdBy: actor.userId,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
      ...fields,
      nameKey: nameKey(fields.name),
    };
    this.store.insertNode(node);
    unit.emit(spaceEvent(actor, "file.created", presentNode(node)));
    return node;
  }

  private blobBytes(blobId: string | null): Uint8Array {
    const chunks: Buffer[] = [];
    for (let seq = 0; blobId; seq++) {
      const chunk = this.store.chunk(blobId, seq);
      if (!chunk) break;
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }

  /**
   * Streams a blob chunk by chunk, a read at a time. Replacing the file's content meanwhile does not cut the
   * download short: the old blob stays until its last reader is done (`dropBlob`). Should a chunk still be
   * missing before `size` bytes went out, the stream fails, so the client sees a broken download rather than a
   * short one that looks whole.
   */
  private blobStream(blobId: string | null, size: number): ReadableStream<Uint8Array> {
    let seq = 0;
    let sent = 0;
    let open = blobId !== null;
    if (blobId) this.reading.set(blobId, (this.reading.get(blobId) ?? 0) + 1);
    const done = () => {
      if (!open || !blobId) return;
      open = false;
      const readers = (this.reading.get(blobId) ?? 1) - 1;
      if (readers > 0) {
        this.reading.set(blobId, readers);
        return;
      }
      this.reading.delete(blobId);
      if (this.dropped.delete(blobId)) this.uow.write(() => this.store.deleteBlob(blobId));
    };
    return new ReadableStream<Uint8Array>({
      pull: (controller) => {
        const chunk = blobId ? this.store.chunk(blobId, seq++) : undefined;
        if (chunk) {
          sent += chunk.byteLength;
          controller.enqueue(new Uint8Array(chunk));
          return;
        }
        done();
        if (sent < size) controller.error(new Error("the file's content went away while it was being read"));
        else controller.close();
      },
      cancel: done,
    });
  }

  /** Deletes a blob no node points at any more, once nobody is reading it. */
  private dropBlob(blobId: string): void {
    if (this.reading.has(blobId)) this.dropped.add(blobId);
    else this.store.deleteBlob(blobId);
  }
}

/** Strict UTF-8, keeping a leading byte order mark: the text must give back exactly the bytes it came from. */
function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

async function readAll(body: ReadableStream<Uint8Array> | null, max: number, what: string): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > max) throw tooLarge(what);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
