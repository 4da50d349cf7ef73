/** The search feature's call: `GET /organizations/{orgId}/search` (docs/api.md "Search"). */
import type { SearchResult } from "../../../../src/api-types";
import { api } from "../../lib/api";

/** What a search can look for, as the API names it. */
export type SearchKind = SearchResult["type"];

/** Every kind, in the order the UI lists them. */
export const KINDS: readonly SearchKind[] = ["message", "task", "task_message", "file"];

/** A search's words and narrowing. */
export interface SearchQuery {
  q: string;
  /** None or empty: every kind. */
  types?: readonly SearchKind[];
  spaceId?: string | null;
  /** At most 200 (the API's cap). */
  limit?: number;
  /** Only what was created strictly before this time (RFC 3339). */
  before?: string | null;
}

/** The results of `query`, best first; `signal` cancels it (a search superseded by the next keystroke). */
export async function search(base: string, query: SearchQuery, signal?: AbortSignal): Promise<SearchResult[]> {
  const params = new URLSearchParams({ q: query.q });
  if (query.types?.length) params.set("types", query.types.join(","));
  if (query.spaceId) params.set("space_id", query.spaceId);
  if (query.limit) params.set("limit", String(query.limit));
  if (query.before) params.set("before", query.before);
  const answer = await api<{ results: SearchResult[] }>("GET", `${base}/search?${params}`, undefined, { signal });
  return answer.results;
}
