/**
 * The file tree of a space. A text file's content is a Yjs document (`file_docs`: the encoded state and the
 * text it holds), so collaborative editing takes it over as is; binary content is a blob stored in chunks
 * (`blob_chunks`), so it streams in and out and a database backup captures it consistently.
 */
import { sql } from "drizzle-orm";
import {
  type AnySQLiteColumn,
  blob,
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";
import { users } from "./people";
import { spaces } from "./spaces";

export const blobs = sqliteTable("blobs", {
  id: text("id").primaryKey(),
  sizeBytes: integer("size_bytes").notNull(),
  checksumSha256: text("checksum_sha256").notNull(),
  createdAt: integer("created_at").notNull(),
});

export const blobChunks = sqliteTable(
  "blob_chunks",
  {
    blobId: text("blob_id")
      .notNull()
      .references(() => blobs.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    data: blob("data", { mode: "buffer" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.blobId, t.seq] })],
);

export const fileNodes = sqliteTable(
  "file_nodes",
  {
    id: text("id").primaryKey(),
    spaceId: text("space_id")
      .notNull()
      .references(() => spaces.id, { onDelete: "cascade" }),
    parentId: text("parent_id").references((): AnySQLiteColumn => fileNodes.id, { onDelete: "cascade" }),
    /** `file` or `folder`. */
    kind: text("kind").notNull(),
    name: text("name").notNull(),
    /** `nameKey(name)`: what sibling names are compared and searched by. */
    nameKey: text("name_key").notNull().default(""),
    /** `text` (a Yjs document in file_docs) or `blob`; null for folders. */
    storage: text("storage"),
    blobId: text("blob_id").references(() => blobs.id, { onDelete: "set null" }),
    mimeType: text("mime_type"),
    sizeBytes: integer("size_bytes"),
    checksumSha256: text("checksum_sha256"),
    /**
     * Not a foreign key: the creator's id stays when a staff member's account (its backing user) is deleted, as
     * the API shows it (a UUID, never null). Null only on rows from before migration 0009.
     */
    createdBy: text("created_by"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    deletedAt: integer("deleted_at"),
  },
  (t) => [
    // Live siblings have distinct names ignoring case: one index for the space root, one below folders.
    uniqueIndex("file_nodes_root_key_uq")
      .on(t.spaceId, t.nameKey)
      .where(sql`${t.deletedAt} IS NULL AND ${t.parentId} IS NULL`),
    uniqueIndex("file_nodes_child_key_uq")
      .on(t.parentId, t.nameKey)
      .where(sql`${t.deletedAt} IS NULL AND ${t.parentId} IS NOT NULL`),
    index("file_nodes_space_live_idx").on(t.spaceId).where(sql`${t.deletedAt} IS NULL`),
    index("file_nodes_parent_idx").on(t.parentId),
    index("file_nodes_blob_idx").on(t.blobId),
  ],
);

export const fileDocs = sqliteTable("file_docs", {
  nodeId: text("node_id")
    .primaryKey()
    .references(() => fileNodes.id, { onDelete: "cascade" }),
  /** `Y.encodeStateAsUpdate` of the document whose `getText("content")` is the file. */
  state: blob("state", { mode: "buffer" }).notNull(),
  /** The document's text, kept beside it so reads need no decoding. */
  text: text("text").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * The update log of a text file's document: every update a collaborator or the server applied since the
 * snapshot in `file_docs.state`, in order. The live document appends here before it relays an update, and folds
 * the log into the snapshot from time to time (see `src/collab/`).
 */
export const fileDocUpdates = sqliteTable(
  "file_doc_updates",
  {
    seq: integer("seq").primaryKey(),
    nodeId: text("node_id")
      .notNull()
      .references(() => fileNodes.id, { onDelete: "cascade" }),
    data: blob("data", { mode: "buffer" }).notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("file_doc_updates_node_idx").on(t.nodeId, t.seq)],
);

/**
 * Kept versions of a text file: its text at a moment (compressed), taken from the live document at most every few
 * minutes of editing and at each REST write or accepted proposal, thinned as they age.
 */
export const fileVersions = sqliteTable(
  "file_versions",
  {
    id: text("id").primaryKey(),
    nodeId: text("node_id")
      .notNull()
      .references(() => fileNodes.id, { onDelete: "cascade" }),
    sizeBytes: integer("size_bytes").notNull(),
    checksumSha256: text("checksum_sha256").notNull(),
    /** JSON array of the user ids whose changes went into this version since the one before. */
    authorUserIds: text("author_user_ids").notNull().default("[]"),
    /** The text, compressed. */
    content: blob("content", { mode: "buffer" }).notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("file_versions_node_idx").on(t.nodeId, t.createdAt, t.id)],
);

/** A change a staff member (or anyone) proposes to a text file: a whole new text a person accepts or rejects. */
export const fileProposals = sqliteTable(
  "file_proposals",
  {
    id: text("id").primaryKey(),
    spaceId: text("space_id")
      .notNull()
      .references(() => spaces.id, { onDelete: "cascade" }),
    nodeId: text("node_id")
      .notNull()
      .references(() => fileNodes.id, { onDelete: "cascade" }),
    authorUserId: text("author_user_id").references(() => users.id, { onDelete: "set null" }),
    /** The file's checksum when proposed: accepting needs it unchanged. */
    baseContentSha256: text("base_content_sha256").notNull(),
    proposedContent: text("proposed_content").notNull(),
    note: text("note").notNull(),
    /** `pending`, `accepted` or `rejected`. */
    status: text("status").notNull(),
    createdAt: integer("created_at").notNull(),
    resolvedAt: integer("resolved_at"),
    resolvedBy: text("resolved_by").references(() => users.id, { onDelete: "set null" }),
  },
  (t) => [
    index("file_proposals_node_idx").on(t.nodeId, t.createdAt, t.id),
    index("file_proposals_author_idx").on(t.authorUserId),
    index("file_proposals_resolved_by_idx").on(t.resolvedBy),
  ],
);
