/**
 * A search's text turned into FTS5 queries, and FTS5's marked excerpts turned into safe HTML. Pure functions:
 * whatever a person types stays text, never FTS5 syntax (`OR`, `NEAR`, `*`, `:`, quotes and parentheses
 * included), because each word is written as an FTS5 string.
 */

/** Marks the start and end of a match in what SQLite answers; no indexed text holds them (`indexable`). */
export const MARK_OPEN = "\u0001";
export const MARK_CLOSE = "\u0002";

/** The shortest part of a name that matches it anywhere (trigrams: three characters). */
export const MIN_NAME_PART = 3;

/** A character the word tokenizer (`unicode61`) keeps in a word: letters, digits, private-use characters. */
const WORD_CHAR = /[\p{L}\p{N}\p{Co}]/u;

/** What a search's text asks for. */
export interface ParsedQuery {
  /** The words, as typed (split on white space), each once. */
  words: string[];
  /** Every word as a whole word (case and accents ignored): the FTS5 query of `search_text`; null without words. */
  wholeWords: string[];
  wordsMatch: string | null;
  /** Every word as a part of a file name: the FTS5 query of `search_names`; null when a word is too short. */
  namePartsMatch: string | null;
}

/** An FTS5 string: the text between double quotes, a quote doubled. The tokenizer splits it as it splits text. */
export function ftsString(word: string): string {
  return `"${word.replaceAll('"', '""')}"`;
}

/**
 * Splits `q` on white space. A "word" with no letter or digit (`-`, `&&`) is punctuation, not a word to find
 * whole: it is left out of the words; a name can still hold it as a part, when it is long enough.
 */
export function parseQuery(q: string): ParsedQuery {
  const words = [...new Set(q.split(/\s+/u).filter((w) => w.length > 0))];
  const whole = words.filter((w) => WORD_CHAR.test(w));
  const partsOk = words.length > 0 && words.every((w) => [...w].length >= MIN_NAME_PART);
  return {
    words,
    wholeWords: whole,
    wordsMatch: whole.length > 0 ? whole.map(ftsString).join(" ") : null,
    namePartsMatch: partsOk ? words.map(ftsString).join(" ") : null,
  };
}

/** Text as it is indexed: the two mark characters cannot come from the text itself. */
export function indexable(text: string): string {
  if (!text.includes(MARK_OPEN) && !text.includes(MARK_CLOSE)) return text;
  return text.replaceAll(MARK_OPEN, "\uFFFD").replaceAll(MARK_CLOSE, "\uFFFD");
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * An excerpt as the API answers it: every character HTML-escaped, then each marked match wrapped in `<mark>`
 * and `</mark>`. Escaping first means no text can open or close a tag; the marks are the only markup.
 */
export function markup(marked: string): string {
  return marked
    .replace(/[&<>"']/g, (c) => ESCAPES[c] as string)
    .replaceAll(MARK_OPEN, "<mark>")
    .replaceAll(MARK_CLOSE, "</mark>");
}

/** A run of word characters as the tokenizer sees one (accents written apart from their letter included). */
const TOKEN = /[\p{L}\p{N}\p{Co}\p{M}]+/gu;

/** A token as the tokenizer compares it: accents removed, lower case (`unicode61 remove_diacritics 2`). */
export function fold(token: string): string {
  return token.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

/** The folded tokens of the words of a search. */
export function termsOf(words: readonly string[]): Set<string> {
  const terms = new Set<string>();
  for (const word of words) for (const [token] of word.matchAll(TOKEN)) terms.add(fold(token));
  return terms;
}

/**
 * An excerpt of `text` of at most `size` words, where its words in `terms` are densest, each of them between
 * the mark characters, `…` where the text goes on; null when no word of the text is in `terms`. What FTS5's
 * `snippet()` makes, without asking the index again for each result (that cost 50-100 µs a result on an index
 * of a million items): the index decided what matches; this only shows where.
 */
export function excerpt(text: string, terms: ReadonlySet<string>, size = 24): string | null {
  const tokens = [...text.matchAll(TOKEN)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
    hit: terms.has(fold(m[0])),
  }));
  if (!tokens.some((t) => t.hit)) return null;
  let first = 0;
  if (tokens.length > size) {
    // The window of `size` tokens with the most hits; the earliest of equals. Starting a little before the
    // first hit of the window gives it some context.
    let best = -1;
    let hits = 0;
    for (let i = 0; i < tokens.length; i++) {
      if (tokens[i]?.hit) hits++;
      if (i >= size && tokens[i - size]?.hit) hits--;
      if (i >= size - 1 && hits > best) {
        best = hits;
        first = i - size + 1;
      }
    }
    const lead = tokens.slice(first, first + size).findIndex((t) => t.hit);
    first = Math.max(0, Math.min(first + lead - 3, tokens.length - size));
  }
  const last = Math.min(tokens.length, first + size) - 1;
  const from = first === 0 ? 0 : (tokens[first]?.start ?? 0);
  const to = last === tokens.length - 1 ? text.length : (tokens[last]?.end ?? text.length);
  let out = first === 0 ? "" : "…";
  let at = from;
  for (let i = first; i <= last; i++) {
    const token = tokens[i];
    if (!token?.hit) continue;
    out += text.slice(at, token.start) + MARK_OPEN + text.slice(token.start, token.end) + MARK_CLOSE;
    at = token.end;
  }
  out += text.slice(at, to);
  return last === tokens.length - 1 ? out : `${out}…`;
}
