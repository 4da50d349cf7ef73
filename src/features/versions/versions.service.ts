/**
 * Versions of text files (contract §11): the text at moments of its document's history, kept as the document
 * tells (`DocHistory`): when an editing session starts on a text not kept yet, when it ends (five minutes after
 * it started, or when everyone has left), and before and after each write of the server's (a REST write, an
 * accepted proposal, a restore). Each version is stored whole, compressed, and versions are thinned as they age
 * (`versions.policy.ts`). Restoring writes the old text through the live document, as a REST write does.
 */
import type { DocHistory, DocScope } from "../../collab/registry";
import type { SpaceActor } from "../../core/actor";
import { invalid, notFound } from "../../core/errors";
import type { EventBus, Unit } from "../../core/events";
import type { UnitOfWork } from "../../db/unit";
import { sha256Hex } from "../../lib/hash";
import { isUuid, newId } from "../../lib/ids";
import type { Content, FilesService, NodeRow } from "../files/files.service";
import { assertMayRestore, HOURLY_UNTIL_MS, KEEP_ALL_MS, thin } from "./versions.policy";
import { authorsOf, presentVersion } from "./versions.present";
import type { VersionMeta, VersionRow, VersionsStore } from "./versions.store";

const versionNotFound = () => notFound("version not found");

/**
 * Whether a text is worth a new version: not the newest one already, and not the empty text of a file that never
 * had one (a new file: nothing to go back to).
 */
function worthKeeping(text: string, checksum: string, newest: VersionMeta | undefined): boolean {
  return newest ? newest.checksumSha256 !== checksum : text.length > 0;
}

/** zstd at its default level: a 50 KiB text in about a millisecond (level 9 saved 8% more in 4 ms). */
const ZSTD_LEVEL = 3;

export class VersionsService implements DocHistory {
  private readonly now: () => number;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: VersionsStore,
    private readonly files: FilesService,
    options: { now?: () => number } = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  /** A file's versions go with it: deleting a file (or a folder above it) deletes them in the same write. */
  listen(events: EventBus): void {
    events.onWrite("file.deleted", (event) => this.store.deleteSubtree(event.payload.id));
  }

  /** A file's versions, newest first; a binary file keeps none. */
  list(actor: SpaceActor, fileId: string): VersionMeta[] {
    const node = this.fileOf(actor, fileId);
    return node.storage === "text" ? this.store.list(node.id) : [];
  }

  /** A version's text, served as the file's own content is. */
  content(actor: SpaceActor, fileId: string, versionId: string): Content {
    const { node, version } = this.version(actor, fileId, versionId);
    return {
      node: { ...node, sizeBytes: version.sizeBytes, checksumSha256: version.checksumSha256 },
      mimeType: node.mimeType ?? "text/plain",
      body: Bun.zstdDecompressSync(version.content),
    };
  }

  /**
   * Gives the file a version's text again, through its live document: people editing see the change and go on
   * typing (their edits meanwhile merge with it), and the text before is kept first if it was not.
   */
  async restore(actor: SpaceActor, fileId: string, versionId: string): Promise<NodeRow> {
    assertMayRestore(actor);
    const { node, version } = this.version(actor, fileId, versionId);
    const text = new TextDecoder().decode(Bun.zstdDecompressSync(version.content));
    return this.files.writeText(actor, node, text);
  }

  // What the documents tell (inside the unit that stores the change)

  before(unit: Unit, nodeId: string, scope: DocScope, authors: ReadonlySet<string>, replaced: string | null): void {
    const node = this.files.liveText(scope.spaceId, nodeId);
    if (!node) return;
    const newest = this.store.newest(nodeId);
    // An editing session starts: the stored text is the one before it, and the node has its checksum.
    if (replaced === null && newest && newest.checksumSha256 === node.checksumSha256) return;
    const text = replaced ?? this.files.storedText(scope.spaceId, nodeId)?.text;
    if (text === undefined) return;
    const checksum = replaced === null ? (node.checksumSha256 ?? sha256Hex(text)) : sha256Hex(text);
    if (!worthKeeping(text, checksum, newest)) return;
    // A text never kept before anyone edits it: the file's first text is its creator's.
    const by = authors.size > 0 || newest || !node.createdBy ? authors : [node.createdBy];
    this.keepText(unit, scope, nodeId, newest, by, text, checksum);
  }

  keep(unit: Unit, nodeId: string, scope: DocScope, authors: ReadonlySet<string>): void {
    const stored = this.files.storedText(scope.spaceId, nodeId);
    if (!stored) return;
    const newest = this.store.newest(nodeId);
    const checksum = stored.node.checksumSha256 ?? sha256Hex(stored.text);
    if (worthKeeping(stored.text, checksum, newest))
      this.keepText(unit, scope, nodeId, newest, authors, stored.text, checksum);
  }

  /** Thins the versions that aged past a day or a week since the last round (every hour, by the server). */
  thinAged(): void {
    const now = this.now();
    this.uow.write(() => {
      for (const nodeId of this.store.nodesWithVersionsBetween(now - HOURLY_UNTIL_MS - KEEP_ALL_MS, now - KEEP_ALL_MS))
        this.thinNode(nodeId, now);
    });
  }

  // Helpers

  /** Stores `text` as a version, announces it, and thins the file's older versions. */
  private keepText(
    unit: Unit,
    scope: DocScope,
    nodeId: string,
    newest: VersionMeta | undefined,
    authors: Iterable<string>,
    text: string,
    checksum: string,
  ): void {
    const bytes = Buffer.from(text);
    // Strictly after the newest: the text before a write and the one after it are kept in the same millisecond.
    const now = Math.max(this.now(), (newest?.createdAt ?? 0) + 1);
    const row: VersionRow = {
      id: newId(),
      nodeId,
      sizeBytes: bytes.byteLength,
      checksumSha256: checksum,
      authorUserIds: JSON.stringify([...new Set(authors)]),
      content: Buffer.from(Bun.zstdCompressSync(bytes, { level: ZSTD_LEVEL })),
      createdAt: now,
    };
    this.store.insert(row);
    unit.emit({
      type: "file.version.created",
      organization_id: scope.orgId,
      space_id: scope.spaceId,
      payload: presentVersion(row),
    });
    this.thinNode(nodeId, now);
  }

  private thinNode(nodeId: string, now: number): void {
    const aged = this.store.aged(nodeId, now - KEEP_ALL_MS);
    if (aged.length < 2) return;
    const { drop, authors } = thin(
      aged.map((v) => ({ id: v.id, createdAt: v.createdAt, authors: authorsOf(v.authorUserIds) })),
      now,
    );
    for (const id of drop) this.store.delete(id);
    for (const [id, list] of authors) this.store.setAuthors(id, list);
  }

  /** A live file of the space that may have versions (a folder has no content: 400). */
  private fileOf(actor: SpaceActor, fileId: string): NodeRow {
    const node = this.files.node(actor, fileId);
    if (node.kind !== "file") throw invalid("a folder has no content");
    return node;
  }

  private version(actor: SpaceActor, fileId: string, versionId: string): { node: NodeRow; version: VersionRow } {
    const node = this.fileOf(actor, fileId);
    const version =
      node.storage === "text" && isUuid(versionId) ? this.store.get(node.id, versionId.toLowerCase()) : undefined;
    if (!version) throw versionNotFound();
    return { node, version };
  }
}
