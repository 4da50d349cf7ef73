/**
 * Where a text file's document lives between uses: a snapshot (`file_docs.state`) and the updates applied since
 * (`file_doc_updates`). A few calls behind a small interface, so the registry knows nothing of SQLite.
 *
 * Logging an update writes only the update: its cost does not grow with the document. The file's text
 * (`file_docs.text`) and the node's `size_bytes` / `checksum_sha256` are derived from the document and written
 * together (`setText`) when someone needs them or once editing settles (see the registry), so they always
 * describe one and the same text.
 */
import type { Db } from "../db/client";
import { nulText, prepared } from "../db/client";
import { sha256Hex } from "../lib/hash";

/** A stored document: its snapshot and the updates logged after it, oldest first. */
export interface StoredDoc {
  state: Uint8Array;
  updates: Uint8Array[];
}

/** A document with logged updates, and where it belongs. */
export interface LoggedDoc {
  nodeId: string;
  orgId: string;
  spaceId: string;
}

/** How the registry loads and stores documents. `append`, `setText` and `compact` run in the caller's transaction. */
export interface DocPersistence {
  /** The stored document of a text file; undefined when the node has none. */
  load(nodeId: string): StoredDoc | undefined;
  /** Logs `update`. */
  append(nodeId: string, update: Uint8Array, now: number): void;
  /**
   * Records `text`, the document's text, with its size and checksum; `changedAt` is when it last changed. With
   * `state`, also replaces the snapshot with it and empties the log, in the same row write.
   */
  setText(nodeId: string, text: string, changedAt: number, state?: Uint8Array): void;
  /** Replaces the snapshot with `state` and empties the log. */
  compact(nodeId: string, state: Uint8Array, now: number): void;
  /** Every live file whose document has logged updates: what a stop cut short before they were folded. */
  logged(): LoggedDoc[];
}

/** The log is ordered by `seq` within a node: `file_doc_updates_node_idx` serves this. */
export const UPDATES_SQL = "SELECT data FROM file_doc_updates WHERE node_id = ? ORDER BY seq";

/** The SQLite implementation, on the database's tables. */
export class SqliteDocPersistence implements DocPersistence {
  /** `file_docs.text` may hold NUL (a text file as uploaded). */
  private readonly docText: ReturnType<typeof nulText>;

  constructor(private readonly db: Db) {
    this.docText = nulText(db);
  }

  private readonly state = prepared(() =>
    this.db.$client.query<{ state: Uint8Array }, [string]>("SELECT state FROM file_docs WHERE node_id = ?"),
  );
  private readonly updates = prepared(() => this.db.$client.query<{ data: Uint8Array }, [string]>(UPDATES_SQL));
  private readonly insertUpdate = prepared(() =>
    this.db.$client.query("INSERT INTO file_doc_updates (node_id, data, created_at) VALUES (?, ?, ?)"),
  );
  private readonly setDocText = prepared(() =>
    this.db.$client.query("UPDATE file_docs SET text = ?, updated_at = ? WHERE node_id = ?"),
  );
  private readonly setDocTextAndState = prepared(() =>
    this.db.$client.query("UPDATE file_docs SET text = ?, state = ?, updated_at = ? WHERE node_id = ?"),
  );
  private readonly setNode = prepared(() =>
    this.db.$client.query("UPDATE file_nodes SET size_bytes = ?, checksum_sha256 = ?, updated_at = ? WHERE id = ?"),
  );
  private readonly setState = prepared(() =>
    this.db.$client.query("UPDATE file_docs SET state = ?, updated_at = ? WHERE node_id = ?"),
  );
  private readonly clearLog = prepared(() => this.db.$client.query("DELETE FROM file_doc_updates WHERE node_id = ?"));
  private readonly withLog = prepared(() =>
    this.db.$client.query<LoggedDoc, []>(
      `SELECT n.id AS nodeId, s.org_id AS orgId, n.space_id AS spaceId
       FROM (SELECT DISTINCT node_id FROM file_doc_updates) u
       JOIN file_nodes n ON n.id = u.node_id JOIN spaces s ON s.id = n.space_id
       WHERE n.deleted_at IS NULL`,
    ),
  );

  load(nodeId: string): StoredDoc | undefined {
    const row = this.state().all(nodeId)[0];
    if (!row) return undefined;
    return {
      state: row.state,
      updates: this.updates()
        .all(nodeId)
        .map((r) => r.data),
    };
  }

  append(nodeId: string, update: Uint8Array, now: number): void {
    this.insertUpdate().run(nodeId, update, now);
  }

  setText(nodeId: string, text: string, changedAt: number, state?: Uint8Array): void {
    if (state) {
      this.setDocTextAndState().run(this.docText.write(text), state, changedAt, nodeId);
      this.clearLog().run(nodeId);
    } else {
      this.setDocText().run(this.docText.write(text), changedAt, nodeId);
    }
    this.setNode().run(Buffer.byteLength(text), sha256Hex(text), changedAt, nodeId);
  }

  compact(nodeId: string, state: Uint8Array, now: number): void {
    this.setState().run(state, now, nodeId);
    this.clearLog().run(nodeId);
  }

  logged(): LoggedDoc[] {
    return this.withLog().all();
  }
}
