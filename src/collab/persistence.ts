/**
 * Where a text file's document lives between uses: a snapshot (`file_docs.state`) and the updates applied since
 * (`file_doc_updates`). Three calls behind a small interface, so the registry knows nothing of SQLite.
 *
 * `file_docs.text` and the node's `size_bytes` / `checksum_sha256` are written with every logged update, so
 * REST reads of the file always describe the text the document holds.
 */
import type { Db } from "../db/client";
import { prepared } from "../db/client";
import { sha256Hex } from "../lib/hash";

/** A stored document: its snapshot and the updates logged after it, oldest first. */
export interface StoredDoc {
  state: Uint8Array;
  updates: Uint8Array[];
}

/** How the registry loads and stores documents. `append` and `compact` run inside the caller's transaction. */
export interface DocPersistence {
  /** The stored document of a text file; undefined when the node has none. */
  load(nodeId: string): StoredDoc | undefined;
  /** Logs `update` and records `text`, the document's text after it. */
  append(nodeId: string, update: Uint8Array, text: string, now: number): void;
  /** Replaces the snapshot with `state` and empties the log. */
  compact(nodeId: string, state: Uint8Array, now: number): void;
}

/** The log is ordered by `seq` within a node: `file_doc_updates_node_idx` serves this. */
export const UPDATES_SQL = "SELECT data FROM file_doc_updates WHERE node_id = ? ORDER BY seq";

/** The SQLite implementation, on the database's tables. */
export class SqliteDocPersistence implements DocPersistence {
  constructor(private readonly db: Db) {}

  private readonly state = prepared(() =>
    this.db.$client.query<{ state: Uint8Array }, [string]>("SELECT state FROM file_docs WHERE node_id = ?"),
  );
  private readonly updates = prepared(() => this.db.$client.query<{ data: Uint8Array }, [string]>(UPDATES_SQL));
  private readonly insertUpdate = prepared(() =>
    this.db.$client.query("INSERT INTO file_doc_updates (node_id, data, created_at) VALUES (?, ?, ?)"),
  );
  private readonly setText = prepared(() =>
    this.db.$client.query("UPDATE file_docs SET text = ?, updated_at = ? WHERE node_id = ?"),
  );
  private readonly setNode = prepared(() =>
    this.db.$client.query("UPDATE file_nodes SET size_bytes = ?, checksum_sha256 = ?, updated_at = ? WHERE id = ?"),
  );
  private readonly setState = prepared(() =>
    this.db.$client.query("UPDATE file_docs SET state = ?, updated_at = ? WHERE node_id = ?"),
  );
  private readonly clearLog = prepared(() => this.db.$client.query("DELETE FROM file_doc_updates WHERE node_id = ?"));

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

  append(nodeId: string, update: Uint8Array, text: string, now: number): void {
    this.insertUpdate().run(nodeId, update, now);
    this.setText().run(text, now, nodeId);
    this.setNode().run(Buffer.byteLength(text), sha256Hex(text), now, nodeId);
  }

  compact(nodeId: string, state: Uint8Array, now: number): void {
    this.setState().run(state, now, nodeId);
    this.clearLog().run(nodeId);
  }
}
