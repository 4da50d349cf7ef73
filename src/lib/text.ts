/** Comparing names the way people do. */

/**
 * The key two names are compared by, ignoring case in any script (SQLite's `lower()` and `LIKE` only fold
 * ASCII, so `Élan` and `élan` would differ there) and treating composed and decomposed accents alike.
 */
export function nameKey(name: string): string {
  return name.normalize("NFC").toLowerCase();
}
