/** Search results to JSON. */
import { iso } from "../../lib/ids";
import { markup } from "./search.query";
import type { SearchResultOut } from "./search.schemas";
import type { Found } from "./search.service";

export function presentResult(found: Found): SearchResultOut {
  const out: SearchResultOut = {
    type: found.kind,
    id: found.id,
    space_id: found.spaceId,
    title: found.title,
    snippet: markup(found.marked),
    created_at: iso(found.createdAt),
  };
  if (found.kind === "message" && found.parentId) out.chat_room_id = found.parentId;
  if (found.kind === "task") out.task_id = found.id;
  if (found.kind === "task_message" && found.parentId) out.task_id = found.parentId;
  if (found.kind === "file") out.file_id = found.id;
  return out;
}
