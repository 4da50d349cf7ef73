/** Pages of a timeline (chat, a task's messages, activity): the newest `limit` before `before`. */

/** A page asked for: `limit` (default 50, above 200 means 200) and `before` (RFC 3339, exclusive). */
export interface PageQuery {
  limit?: number | undefined;
  before?: string | undefined;
}

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

/** `limit` clamped to 200, default 50; `before` as an exclusive bound in epoch ms (default: none). */
export function pageOf(query: PageQuery): { limit: number; before: number } {
  return {
    limit: Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT),
    before: query.before ? exclusiveMillis(query.before) : Number.MAX_SAFE_INTEGER,
  };
}

/**
 * Stored times have millisecond precision; a `before` finer than that (`.580999Z`) still includes the
 * messages of its millisecond (`.580Z` is strictly before it), so the bound rounds up.
 */
function exclusiveMillis(timestamp: string): number {
  const ms = Date.parse(timestamp);
  const fraction = timestamp.match(/\.(\d+)/)?.[1] ?? "";
  return /[1-9]/.test(fraction.slice(3)) ? ms + 1 : ms;
}
