/** The file tree, text documents and chunked blobs. Every statement on a request path is prepared once. */
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { type Db, nulText, prepared } from "../../db/client";
import { changedColumnsUpdater, insertRow, updateRow } from "../../db/prepared";
import { blobChunks, blobs, fileDocs, fileNodes } from "../../db/schema";
import { nameKey } from "../../lib/text";

export type NodeRow = typeof fileNodes.$inferSelect;
export type DocRow = typeof fileDocs.$inferSelect;

const p = sql.placeholder;
const folderFirst = sql`CASE ${fileNodes.kind} WHEN 'folder' THEN 0 ELSE 1 END`;
const live = isNull(fileNodes.deletedAt);
const atRoot = and(eq(fileNodes.spaceId, p("spaceId")), isNull(fileNodes.parentId));
const inFolder = eq(fileNodes.parentId, p("parentId"));
const nameHas = sql`instr(${fileNodes.nameKey}, ${p("q")}) > 0`;

/** The ids from `$id` up to the root, `$id` first (recursive: drizzle's builder cannot prepare it). */
export const ANCESTRY_SQL = `
  WITH RECURSIVE up(id, parent_id, depth) AS (
    SELECT id, parent_id, 0 FROM file_nodes WHERE id = $id
    UNION ALL
    SELECT n.id, n.parent_id, up.depth + 1 FROM file_nodes n JOIN up ON n.id = up.parent_id WHERE up.depth < 10000
  )
  SELECT id FROM up ORDER BY depth`;

/** Soft-deletes `$id` and every live node below it at `$now`. */
export const SUBTREE_DELETE_SQL = `
  WITH RECURSIVE sub(id) AS (
    SELECT id FROM file_nodes WHERE id = $id
    UNION ALL
    SELECT n.id FROM file_nodes n JOIN sub ON n.parent_id = sub.id
  )
  UPDATE file_nodes SET deleted_at = $now, updated_at = $now WHERE id IN (SELECT id FROM sub) AND deleted_at IS NULL`;

/** Data access for files. */
export class FilesStore {
  /** `file_docs.text` may hold NUL (a text file as uploaded). */
  private readonly docText: ReturnType<typeof nulText>;

  constructor(private readonly db: Db) {
    this.docText = nulText(db);
  }

  private readonly nodeById = prepared(() =>
    this.db
      .select()
      .from(fileNodes)
      .where(and(eq(fileNodes.id, p("id")), eq(fileNodes.spaceId, p("spaceId"))))
      .prepare(),
  );

  /** A node of the space, deleted or not. */
  node(spaceId: string, id: string): NodeRow | undefined {
    return this.nodeById().all({ spaceId, id })[0];
  }

  /** Live nodes matching `where`, folders first, then by name ignoring case. */
  private listing(where: ReturnType<typeof and>) {
    return prepared(() =>
      this.db
        .select()
        .from(fileNodes)
        .where(and(where, live))
        .orderBy(folderFirst, fileNodes.nameKey, asc(fileNodes.id))
        .prepare(),
    );
  }

  private readonly rootChildren = this.listing(atRoot);
  private readonly folderChildren = this.listing(inFolder);
  private readonly rootSearch = this.listing(and(atRoot, nameHas));
  private readonly folderSearch = this.listing(and(inFolder, nameHas));
  private readonly spaceSearch = this.listing(and(eq(fileNodes.spaceId, p("spaceId")), nameHas));

  /** Live children of a folder (or of the root). */
  children(spaceId: string, parentId: string | null): NodeRow[] {
    return parentId === null ? this.rootChildren().all({ spaceId }) : this.folderChildren().all({ parentId });
  }

  /** Live nodes whose name contains `q` (ignoring case): below one folder, or anywhere in the space. */
  search(spaceId: string, parentId: string | null, q: string, wholeSpace: boolean): NodeRow[] {
    const key = nameKey(q);
    if (wholeSpace) return this.spaceSearch().all({ spaceId, q: key });
    return parentId === null
      ? this.rootSearch().all({ spaceId, q: key })
      : this.folderSearch().all({ parentId, q: key });
  }

  private readonly treeQuery = prepared(() =>
    this.db
      .select()
      .from(fileNodes)
      .where(and(eq(fileNodes.spaceId, p("spaceId")), live))
      .prepare(),
  );

  /** Every live node of the space. */
  tree(spaceId: string): NodeRow[] {
    return this.treeQuery().all({ spaceId });
  }

  private readonly rootNamed = prepared(() =>
    this.db
      .select()
      .from(fileNodes)
      .where(and(atRoot, live, eq(fileNodes.nameKey, p("key"))))
      .prepare(),
  );
  private readonly childNamed = prepared(() =>
    this.db
      .select()
      .from(fileNodes)
      .where(and(inFolder, live, eq(fileNodes.nameKey, p("key"))))
      .prepare(),
  );

  /** The live sibling named `name` (ignoring case), if any. */
  siblingNamed(spaceId: string, parentId: string | null, name: string): NodeRow | undefined {
    const key = nameKey(name);
    return (parentId === null ? this.rootNamed().all({ spaceId, key }) : this.childNamed().all({ parentId, key }))[0];
  }

  /** The live root folder named `name` (ignoring case). */
  rootFolderNamed(spaceId: string, name: string): NodeRow | undefined {
    const node = this.siblingNamed(spaceId, null, name);
    return node?.kind === "folder" ? node : undefined;
  }

  private readonly up = prepared(() => this.db.$client.query<{ id: string }, { id: string }>(ANCESTRY_SQL));

  /** Ids from `id` up to the root, `id` first. */
  ancestry(id: string): string[] {
    return this.up()
      .all({ id })
      .map((r) => r.id);
  }

  private readonly insertNodeRow = prepared(() => insertRow(this.db, fileNodes));
  private readonly saveNodeRow = changedColumnsUpdater<NodeRow>(() => this.db, fileNodes, fileNodes.id);

  insertNode(row: NodeRow): void {
    this.insertNodeRow().run(row);
  }

  /** Writes the fields of `after` that differ from `before`. */
  saveNode(before: NodeRow, after: NodeRow): void {
    this.saveNodeRow(before, after);
  }

  private readonly deleteSubtree = prepared(() => this.db.$client.query(SUBTREE_DELETE_SQL));

  /** Soft-deletes a node and every live node below it. */
  softDeleteSubtree(id: string, now: number): void {
    this.deleteSubtree().run({ id, now });
  }

  // Text documents

  private readonly docById = prepared(() =>
    this.db
      .select()
      .from(fileDocs)
      .where(eq(fileDocs.nodeId, p("nodeId")))
      .prepare(),
  );

  doc(nodeId: string): DocRow | undefined {
    const row = this.docById().all({ nodeId })[0];
    if (row) row.text = this.docText.read(row.text);
    return row;
  }

  private readonly upsertDoc = prepared(() =>
    this.db
      .insert(fileDocs)
      .values({
        nodeId: p("nodeId") as unknown as string,
        state: p("state") as unknown as Buffer,
        text: p("text") as unknown as string,
        updatedAt: p("updatedAt") as unknown as number,
      })
      .onConflictDoUpdate({
        target: fileDocs.nodeId,
        set: { state: sql`excluded.state`, text: sql`excluded.text`, updatedAt: sql`excluded.updated_at` },
      })
      .prepare(),
  );

  putDoc(row: DocRow): void {
    this.upsertDoc().run({ ...row, text: this.docText.write(row.text) });
  }

  // Blobs

  private readonly insertBlobRow = prepared(() => insertRow(this.db, blobs));
  private readonly insertChunkRow = prepared(() => insertRow(this.db, blobChunks));
  private readonly saveBlobRow = prepared(() => updateRow(this.db, blobs, blobs.id));
  private readonly deleteBlobRow = prepared(() =>
    this.db
      .delete(blobs)
      .where(eq(blobs.id, p("id")))
      .prepare(),
  );

  insertBlob(id: string, now: number): void {
    this.insertBlobRow().run({ id, sizeBytes: 0, checksumSha256: "", createdAt: now });
  }

  appendChunk(blobId: string, seq: number, data: Buffer): void {
    this.insertChunkRow().run({ blobId, seq, data });
  }

  finishBlob(id: string, sizeBytes: number, checksumSha256: string, createdAt: number): void {
    this.saveBlobRow().run({ id, sizeBytes, checksumSha256, createdAt });
  }

  deleteBlob(id: string): void {
    this.deleteBlobRow().run({ id });
  }

  private readonly chunkAt = prepared(() =>
    this.db
      .select({ data: blobChunks.data })
      .from(blobChunks)
      .where(and(eq(blobChunks.blobId, p("blobId")), eq(blobChunks.seq, p("seq"))))
      .prepare(),
  );

  /** One chunk of a blob, or undefined past its end. */
  chunk(blobId: string, seq: number): Buffer | undefined {
    return this.chunkAt().all({ blobId, seq })[0]?.data;
  }

  /** Blobs no node points at (uploads cut off, content replaced meanwhile), except those in `keep`. */
  deleteUnreferencedBlobs(olderThan: number, keep: readonly string[]): number {
    const kept =
      keep.length > 0
        ? sql` AND ${blobs.id} NOT IN (${sql.join(
            keep.map((id) => sql`${id}`),
            sql`, `,
          )})`
        : sql``;
    const rows = this.db.all<{ id: string }>(sql`
      DELETE FROM ${blobs} WHERE ${blobs.createdAt} < ${olderThan}
      AND NOT EXISTS (SELECT 1 FROM ${fileNodes} WHERE ${fileNodes.blobId} = ${blobs.id})${kept}
      RETURNING ${blobs.id} AS id`);
    return rows.length;
  }
}
