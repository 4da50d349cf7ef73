/** Label rows to JSON. */
import { iso } from "../../lib/ids";
import type { LabelOut } from "./labels.schemas";
import type { LabelRow } from "./labels.store";

export function presentLabel(row: LabelRow): LabelOut {
  return { id: row.id, space_id: row.spaceId, name: row.name, color: row.color, created_at: iso(row.createdAt) };
}
