/**
 * The results page's search: the best `limit` results (50, then 100, 150, 200 as "Show more" asks), and past
 * the API's 200 older ones (`before` = the oldest time shown, as docs/api.md advises: relevance order is not a
 * cursor). Earlier results stay on screen while more load; a change of words or filters starts again.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import type { SearchResult } from "../../../../src/api-types";
import { messageOf } from "../../lib/api";
import { type SearchKind, search } from "./api";

/** The first page's size, and each step of "Show more" up to the API's cap. */
const STEP = 50;
const MAX = 200;

/** What the page shows and how to get more. */
export interface SearchResults {
  results: SearchResult[] | null;
  loading: boolean;
  error: string | null;
  /** Whether more may exist; `more()` asks for them. */
  hasMore: boolean;
  more: () => void;
}

export function useSearchResults(
  base: string,
  q: string,
  types: readonly SearchKind[],
  spaceId: string | null,
): SearchResults {
  const [limit, setLimit] = useState(STEP);
  /** Older results, each batch searched before the oldest time shown until then. */
  const [older, setOlder] = useState<{ results: SearchResult[]; full: boolean }[]>([]);
  const [best, setBest] = useState<{ key: string; results: SearchResult[] } | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const key = JSON.stringify([base, q, types, spaceId]);
  const controller = useRef<AbortController | null>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new search per words and filters (the key).
  useEffect(() => {
    setLimit(STEP);
    setOlder([]);
    setBest(null);
  }, [key]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the key stands for base, q, types and space.
  useEffect(() => {
    if (!q) return;
    const abort = new AbortController();
    controller.current?.abort();
    controller.current = abort;
    setLoading(true);
    setError(null);
    search(base, { q, types, spaceId, limit }, abort.signal)
      .then((results) => setBest({ key, results }))
      .catch((err) => {
        if (!abort.signal.aborted) setError(messageOf(err));
      })
      .finally(() => {
        if (!abort.signal.aborted) setLoading(false);
      });
    return () => abort.abort();
  }, [key, limit]);

  const current = best?.key === key ? best.results : null;
  const results = current ? dedupe([...current, ...older.flatMap((b) => b.results)]) : null;
  const lastFull = older.length ? (older[older.length - 1] as { full: boolean }).full : (current?.length ?? 0) >= limit;

  const more = useCallback(() => {
    if (loading || !results) return;
    if (limit < MAX && older.length === 0) {
      setLimit(limit + STEP);
      return;
    }
    const oldest = results.map((r) => r.created_at).sort()[0];
    if (!oldest) return;
    const abort = new AbortController();
    controller.current = abort;
    setLoading(true);
    setError(null);
    search(base, { q, types, spaceId, limit: MAX, before: oldest }, abort.signal)
      .then((batch) => setOlder((list) => [...list, { results: batch, full: batch.length >= MAX }]))
      .catch((err) => {
        if (!abort.signal.aborted) setError(messageOf(err));
      })
      .finally(() => {
        if (!abort.signal.aborted) setLoading(false);
      });
  }, [loading, results, limit, older.length, base, q, types, spaceId]);

  return { results, loading, error, hasMore: results !== null && lastFull, more };
}

/** Each result once (an older batch never repeats one, but a live edit between searches could move one). */
function dedupe(results: SearchResult[]): SearchResult[] {
  const seen = new Set<string>();
  return results.filter((r) => {
    const key = `${r.type}:${r.id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
