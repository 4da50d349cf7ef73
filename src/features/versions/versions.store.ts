/** Version rows of text files. Every statement is prepared once; the content is read only when asked for. */
import { and, desc, eq, lt, sql } from "drizzle-orm";
import { type Db, prepared } from "../../db/client";
import { insertRow } from "../../db/prepared";
import { fileVersions } from "../../db/schema";

export type VersionRow = typeof fileVersions.$inferSelect;
/** A version without its content: what lists show. */
export type VersionMeta = Omit<VersionRow, "content">;

const p = sql.placeholder;
const meta = {
  id: fileVersions.id,
  nodeId: fileVersions.nodeId,
  sizeBytes: fileVersions.sizeBytes,
  checksumSha256: fileVersions.checksumSha256,
  authorUserIds: fileVersions.authorUserIds,
  createdAt: fileVersions.createdAt,
};

/** The versions of `$id`'s file and of every file below it (a deleted folder's). */
export const SUBTREE_VERSIONS_DELETE_SQL = `
  WITH RECURSIVE sub(id) AS (
    SELECT id FROM file_nodes WHERE id = $id
    UNION ALL
    SELECT n.id FROM file_nodes n JOIN sub ON n.parent_id = sub.id
  )
  DELETE FROM file_versions WHERE node_id IN (SELECT id FROM sub)`;

/** The files with versions made in [$from, $to): the hourly maintenance reads the versions' index once. */
export const NODES_WITH_VERSIONS_BETWEEN_SQL =
  "SELECT DISTINCT node_id FROM file_versions WHERE created_at >= $from AND created_at < $to";

export class VersionsStore {
  constructor(private readonly db: Db) {}

  /** A file's versions (without content), newest first: all of them, or the newest `limit`. */
  private newestFirst(limit?: number) {
    return prepared(() => {
      const query = this.db
        .select(meta)
        .from(fileVersions)
        .where(eq(fileVersions.nodeId, p("nodeId")))
        .orderBy(desc(fileVersions.createdAt), desc(fileVersions.id));
      return (limit === undefined ? query : query.limit(limit)).prepare();
    });
  }

  private readonly ofNode = this.newestFirst();
  private readonly latest = this.newestFirst(1);

  /** A file's versions, newest first. */
  list(nodeId: string): VersionMeta[] {
    return this.ofNode().all({ nodeId });
  }

  private readonly one = prepared(() =>
    this.db
      .select()
      .from(fileVersions)
      .where(and(eq(fileVersions.nodeId, p("nodeId")), eq(fileVersions.id, p("id"))))
      .prepare(),
  );

  /** One version of a file, with its content. */
  get(nodeId: string, id: string): VersionRow | undefined {
    return this.one().all({ nodeId, id })[0];
  }

  /** A file's newest version, without its content. */
  newest(nodeId: string): VersionMeta | undefined {
    return this.latest().all({ nodeId })[0];
  }

  private readonly insertVersion = prepared(() => insertRow(this.db, fileVersions));

  insert(row: VersionRow): void {
    this.insertVersion().run(row);
  }

  private readonly agedOf = prepared(() =>
    this.db
      .select(meta)
      .from(fileVersions)
      .where(and(eq(fileVersions.nodeId, p("nodeId")), lt(fileVersions.createdAt, p("before"))))
      .orderBy(fileVersions.createdAt, fileVersions.id)
      .prepare(),
  );

  /** A file's versions made before `before`, oldest first. */
  aged(nodeId: string, before: number): VersionMeta[] {
    return this.agedOf().all({ nodeId, before });
  }

  private readonly deleteOne = prepared(() =>
    this.db
      .delete(fileVersions)
      .where(eq(fileVersions.id, p("id")))
      .prepare(),
  );
  private readonly setAuthorsOf = prepared(() =>
    this.db
      .update(fileVersions)
      .set({ authorUserIds: sql`${p("authors")}` })
      .where(eq(fileVersions.id, p("id")))
      .prepare(),
  );

  delete(id: string): void {
    this.deleteOne().run({ id });
  }

  setAuthors(id: string, authors: string[]): void {
    this.setAuthorsOf().run({ id, authors: JSON.stringify(authors) });
  }

  private readonly deleteSubtreeOf = prepared(() => this.db.$client.query(SUBTREE_VERSIONS_DELETE_SQL));

  /** Deletes the versions of a file, or of every file below a folder. */
  deleteSubtree(id: string): void {
    this.deleteSubtreeOf().run({ id });
  }

  private readonly agedBetween = prepared(() =>
    this.db.$client.query<{ node_id: string }, { from: number; to: number }>(NODES_WITH_VERSIONS_BETWEEN_SQL),
  );

  /** Files with versions made in [from, to). */
  nodesWithVersionsBetween(from: number, to: number): string[] {
    return this.agedBetween()
      .all({ from, to })
      .map((row) => row.node_id);
  }
}
