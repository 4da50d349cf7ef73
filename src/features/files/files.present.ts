/** File nodes to JSON. */
import { iso, isoOrNull } from "../../lib/ids";
import type { NodeOut } from "./files.schemas";
import type { NodeRow } from "./files.store";

export function presentNode(row: NodeRow): NodeOut {
  return {
    id: row.id,
    space_id: row.spaceId,
    parent_id: row.parentId,
    kind: row.kind as NodeOut["kind"],
    name: row.name,
    mime_type: row.mimeType,
    size_bytes: row.sizeBytes,
    checksum_sha256: row.checksumSha256,
    editable: row.storage === "text",
    created_by: row.createdBy,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
    deleted_at: isoOrNull(row.deletedAt),
  };
}
