/** Identifiers and timestamps as the API shows them. */

/** A new UUID; v7, so ids sort by creation time and index inserts stay local. */
export function newId(): string {
  return Bun.randomUUIDv7();
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a syntactically valid UUID (any version). */
export function isUuid(value: unknown): value is string {
  return typeof value === "string" && value.length === 36 && UUID_RE.test(value);
}

let lastMs = Number.NaN;
let lastIso = "";

/** Epoch milliseconds to `2026-11-21T09:30:00.123Z`: always three fractional digits and `Z`. */
export function iso(ms: number): string {
  // The same instant is often formatted twice in a row (created_at = updated_at): formatted once.
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

/** Like `iso`, for nullable columns. */
export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : iso(ms);
}

/**
 * A creation time strictly after `latest`: messages of one room (or task) never share a timestamp, so
 * paging with `before = created_at of the oldest message` can neither skip nor repeat one.
 */
export function nextStamp(latest: number | undefined, now = Date.now()): number {
  return latest === undefined || latest < now ? now : latest + 1;
}
