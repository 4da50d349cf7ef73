/** The file tree, text documents and chunked blobs. */
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { type Db, prepared } from "../../db/client";
import { blobChunks, blobs, fileDocs, fileNodes } from "../../db/schema";
import { nameKey } from "../../lib/text";

export type NodeRow = typeof fileNodes.$inferSelect;
export type DocRow = typeof fileDocs.$inferSelect;

const folderFirst = sql`CASE ${fileNodes.kind} WHEN 'folder' THEN 0 ELSE 1 END`;
const byName = fileNodes.nameKey;

/** Data access for files. */
export class FilesStore {
  constructor(private readonly db: Db) {}

  private readonly nodeById = prepared(() =>
    this.db
      .select()
      .from(fileNodes)
      .where(and(eq(fileNodes.id, sql.placeholder("id")), eq(fileNodes.spaceId, sql.placeholder("spaceId"))))
      .prepare(),
  );

  /** A node of the space, deleted or not. */
  node(spaceId: string, id: string): NodeRow | undefined {
    return this.nodeById().all({ spaceId, id })[0];
  }

  /** Live children of a folder (or of the root), folders first, then by name ignoring case. */
  children(spaceId: string, parentId: string | null): NodeRow[] {
    return this.db
      .select()
      .from(fileNodes)
      .where(
        and(
          parentId === null
            ? and(eq(fileNodes.spaceId, spaceId), isNull(fileNodes.parentId))
            : eq(fileNodes.parentId, parentId),
          isNull(fileNodes.deletedAt),
        ),
      )
      .orderBy(folderFirst, byName, asc(fileNodes.id))
      .all();
  }

  /** Live nodes whose name contains `q` (ignoring case): below one folder, or anywhere in the space. */
  search(spaceId: string, parentId: string | null, q: string, wholeSpace: boolean): NodeRow[] {
    const match = sql`instr(${fileNodes.nameKey}, ${nameKey(q)}) > 0`;
    const scope = wholeSpace
      ? eq(fileNodes.spaceId, spaceId)
      : parentId === null
        ? and(eq(fileNodes.spaceId, spaceId), isNull(fileNodes.parentId))
        : eq(fileNodes.parentId, parentId);
    return this.db
      .select()
      .from(fileNodes)
      .where(and(scope, isNull(fileNodes.deletedAt), match))
      .orderBy(folderFirst, byName, asc(fileNodes.id))
      .all();
  }

  private readonly treeQuery = prepared(() =>
    this.db
      .select()
      .from(fileNodes)
      .where(and(eq(fileNodes.spaceId, sql.placeholder("spaceId")), isNull(fileNodes.deletedAt)))
      .prepare(),
  );

  /** Every live node of the space. */
  tree(spaceId: string): NodeRow[] {
    return this.treeQuery().all({ spaceId });
  }

  /** The live sibling named `name` (ignoring case), if any. */
  siblingNamed(spaceId: string, parentId: string | null, name: string): NodeRow | undefined {
    return this.db
      .select()
      .from(fileNodes)
      .where(
        and(
          parentId === null
            ? and(eq(fileNodes.spaceId, spaceId), isNull(fileNodes.parentId))
            : eq(fileNodes.parentId, parentId),
          isNull(fileNodes.deletedAt),
          eq(fileNodes.nameKey, nameKey(name)),
        ),
      )
      .all()[0];
  }

  /** Ids from `id` up to the root, `id` first. */
  ancestry(id: string): string[] {
    const rows = this.db.all<{ id: string }>(sql`
      WITH RECURSIVE up(id, parent_id, depth) AS (
        SELECT id, parent_id, 0 FROM ${fileNodes} WHERE id = ${id}
        UNION ALL
        SELECT n.id, n.parent_id, up.depth + 1 FROM ${fileNodes} n JOIN up ON n.id = up.parent_id
        WHERE up.depth < 10000
      )
      SELECT id FROM up ORDER BY depth`);
    return rows.map((r) => r.id);
  }

  insertNode(row: NodeRow): void {
    this.db.insert(fileNodes).values(row).run();
  }

  updateNode(id: string, patch: Partial<NodeRow>): void {
    this.db.update(fileNodes).set(patch).where(eq(fileNodes.id, id)).run();
  }

  /** Soft-deletes a node and every live node below it. */
  softDeleteSubtree(id: string, now: number): void {
    this.db.run(sql`
      WITH RECURSIVE sub(id) AS (
        SELECT id FROM ${fileNodes} WHERE id = ${id}
        UNION ALL
        SELECT n.id FROM ${fileNodes} n JOIN sub ON n.parent_id = sub.id
      )
      UPDATE ${fileNodes} SET deleted_at = ${now}, updated_at = ${now}
      WHERE id IN (SELECT id FROM sub) AND deleted_at IS NULL`);
  }

  // Text documents

  private readonly docById = prepared(() =>
    this.db
      .select()
      .from(fileDocs)
      .where(eq(fileDocs.nodeId, sql.placeholder("nodeId")))
      .prepare(),
  );

  doc(nodeId: string): DocRow | undefined {
    return this.docById().all({ nodeId })[0];
  }

  putDoc(row: DocRow): void {
    this.db
      .insert(fileDocs)
      .values(row)
      .onConflictDoUpdate({
        target: fileDocs.nodeId,
        set: { state: row.state, text: row.text, updatedAt: row.updatedAt },
      })
      .run();
  }

  // Blobs

  insertBlob(id: string, now: number): void {
    this.db.insert(blobs).values({ id, sizeBytes: 0, checksumSha256: "", createdAt: now }).run();
  }

  appendChunk(blobId: string, seq: number, data: Buffer): void {
    this.db.insert(blobChunks).values({ blobId, seq, data }).run();
  }

  finishBlob(id: string, sizeBytes: number, checksumSha256: string): void {
    this.db.update(blobs).set({ sizeBytes, checksumSha256 }).where(eq(blobs.id, id)).run();
  }

  deleteBlob(id: string): void {
    this.db.delete(blobs).where(eq(blobs.id, id)).run();
  }

  private readonly chunkAt = prepared(() =>
    this.db
      .select({ data: blobChunks.data })
      .from(blobChunks)
      .where(and(eq(blobChunks.blobId, sql.placeholder("blobId")), eq(blobChunks.seq, sql.placeholder("seq"))))
      .prepare(),
  );

  /** One chunk of a blob, or undefined past its end. */
  chunk(blobId: string, seq: number): Buffer | undefined {
    return this.chunkAt().all({ blobId, seq })[0]?.data;
  }

  /** Blobs no node points at: uploads cut off, and content replaced by a newer version. */
  deleteUnreferencedBlobs(olderThan: number): number {
    const rows = this.db.all<{ id: string }>(sql`
      DELETE FROM ${blobs} WHERE ${blobs.createdAt} < ${olderThan}
      AND NOT EXISTS (SELECT 1 FROM ${fileNodes} WHERE ${fileNodes.blobId} = ${blobs.id})
      RETURNING ${blobs.id} AS id`);
    return rows.length;
  }

  /** The live root folder named `name` (ignoring case). */
  rootFolderNamed(spaceId: string, name: string): NodeRow | undefined {
    const node = this.siblingNamed(spaceId, null, name);
    return node?.kind === "folder" ? node : undefined;
  }
}
