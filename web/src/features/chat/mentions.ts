/**
 * `@` autocomplete: finding the mention being typed at the caret and the members it may name. The rules
 * follow the server's (docs/api.md "AI staff replies"): an `@` right after a letter or digit is not a
 * mention, and a mention is `@Display Name`.
 */

/** Someone who can be mentioned. */
export interface Candidate {
  id: string;
  name: string;
  staff: boolean;
}

/** Longest query kept open: past it, the `@` was not a mention. */
const MAX_QUERY = 40;
const WORD = /[\p{L}\p{N}]/u;

/** The mention being typed just before `caret`: where its `@` is and the text after it; null when none. */
export function mentionAt(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret);
  const at = before.lastIndexOf("@");
  if (at < 0) return null;
  if (at > 0 && WORD.test(before[at - 1] as string)) return null;
  const query = before.slice(at + 1);
  if (query.length > MAX_QUERY || /[\n@]/.test(query) || query.startsWith(" ")) return null;
  return { start: at, query };
}

/**
 * The candidates whose name begins with the query, or one of whose words does (`@love` finds "Ada Lovelace");
 * those matching from the start first, people and staff alike, then by name. At most `limit`.
 */
export function matchCandidates(candidates: readonly Candidate[], query: string, limit = 8): Candidate[] {
  const q = query.toLocaleLowerCase();
  const scored: { c: Candidate; rank: number }[] = [];
  for (const c of candidates) {
    const name = c.name.toLocaleLowerCase();
    if (name.startsWith(q)) scored.push({ c, rank: 0 });
    else if (!q.includes(" ") && name.split(/\s+/).some((word) => word.startsWith(q))) scored.push({ c, rank: 1 });
  }
  scored.sort((a, b) => a.rank - b.rank || a.c.name.localeCompare(b.c.name));
  return scored.slice(0, limit).map((s) => s.c);
}

/** The text with the typed mention replaced by `@Name ` and where the caret goes after it. */
export function insertMention(
  text: string,
  mention: { start: number; query: string },
  name: string,
): { text: string; caret: number } {
  const end = mention.start + 1 + mention.query.length;
  const inserted = `@${name} `;
  const after = text.slice(end).replace(/^ /, "");
  return { text: text.slice(0, mention.start) + inserted + after, caret: mention.start + inserted.length };
}
