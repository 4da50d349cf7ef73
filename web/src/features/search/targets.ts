/**
 * Where each thing found opens, and the words that name its kind. A message opens its room at the message
 * (`?message=`), a task and a task's comment the task's panel on its board, a file or folder the files screen
 * on it; a staff member their staff page, and a person the board of a space filtered to the tasks assigned to
 * them (Tandem has no profile page for people, and the member list is for administrators only).
 */
import type { SearchResult } from "../../../../src/api-types";
import type { SearchKind } from "./api";

/** The address of a search result. */
export function resultHref(result: SearchResult): string {
  const space = `/spaces/${result.space_id}`;
  switch (result.type) {
    case "message":
      return `${space}/chat/${result.chat_room_id ?? ""}?message=${result.id}`;
    case "task":
    case "task_message":
      return `${space}/board?task=${result.task_id ?? result.id}`;
    case "file":
      return `${space}/files/${result.file_id ?? result.id}`;
  }
}

/** A kind in words, one and many ("Message", "Comments"). */
export const KIND_NAMES: Record<SearchKind, { one: string; many: string }> = {
  message: { one: "Message", many: "Messages" },
  task: { one: "Task", many: "Tasks" },
  task_message: { one: "Comment", many: "Comments" },
  file: { one: "File", many: "Files" },
};

/** The results page's address for these words and filters. */
export function searchPageHref(q: string, filters: { types?: readonly SearchKind[]; spaceId?: string | null } = {}) {
  const params = new URLSearchParams({ q });
  if (filters.types?.length) params.set("types", filters.types.join(","));
  if (filters.spaceId) params.set("space", filters.spaceId);
  return `/search?${params}`;
}

/** The space the address is in, if any. */
export function spaceOfPath(path: string): string | null {
  return /^\/spaces\/([^/]+)/.exec(path)?.[1] ?? null;
}
