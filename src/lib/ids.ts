/** Identifiers and timestamps as the API shows them. */

/** A new UUID; v7, so ids sort by creation time and index inserts stay local. */
export function newId(): string {
  return Bun.randomUUIDv7();
}

/** True for a syntactically valid UUID (any version): on every request path, so a loop rather than a regex. */
export function isUuid(value: unknown): value is string {
  if (typeof value !== "string" || value.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = value.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return false;
    } else if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))) {
      return false;
    }
  }
  return true;
}

/**
 * Ids are stored in lower case; RFC 9562 reads a UUID in either case, so one written in upper case is brought
 * to lower case wherever a request carries it. Anything that is not a UUID is returned as it is.
 */
export function lowerUuid<T>(value: T): T {
  return typeof value === "string" && isUuid(value) ? (value.toLowerCase() as T) : value;
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
