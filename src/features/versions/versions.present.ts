/** Versions to JSON. */
import { iso } from "../../lib/ids";
import type { VersionOut } from "./versions.schemas";
import type { VersionMeta } from "./versions.store";

export function presentVersion(row: VersionMeta): VersionOut {
  return {
    id: row.id,
    file_id: row.nodeId,
    size_bytes: row.sizeBytes,
    checksum_sha256: row.checksumSha256,
    author_user_ids: authorsOf(row.authorUserIds),
    created_at: iso(row.createdAt),
  };
}

/** The stored JSON list of authors; a row that does not hold one reads as nobody. */
export function authorsOf(json: string): string[] {
  try {
    const list: unknown = JSON.parse(json);
    return Array.isArray(list) ? list.filter((id): id is string => typeof id === "string") : [];
  } catch {
    return [];
  }
}
