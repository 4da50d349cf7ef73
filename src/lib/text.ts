/** Comparing names the way people do. */

/**
 * The key two names are compared by, ignoring case in any script (SQLite's `lower()` and `LIKE` only fold
 * ASCII, so `Élan` and `élan` would differ there) and treating composed and decomposed accents alike.
 */
export function nameKey(name: string): string {
  return name.normalize("NFC").toLowerCase();
}

/** Whether one of `rows` other than `exceptId` is named `name`, ignoring case as `nameKey` does. */
export function nameTaken(rows: readonly { id: string; name: string }[], name: string, exceptId?: string): boolean {
  const key = nameKey(name);
  return rows.some((row) => row.id !== exceptId && nameKey(row.name) === key);
}

/**
 * The length of a text in characters as every limit of the API counts them: Unicode code points, as zod's
 * string lengths do, so an emoji counts one (a ZWJ family, several). JavaScript's `length` counts UTF-16 units.
 */
export function charCount(text: string): number {
  let pairs = 0;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        pairs++;
        i++;
      }
    }
  }
  return text.length - pairs;
}

/**
 * Control characters, the line and paragraph separators (U+2028, U+2029: a line break by another name), and
 * the bidirectional controls that reorder what follows them (embeddings, overrides, isolates):
 * `invoice\u202Etxt.exe` shows as `invoiceexe.txt`. Right-to-left names need none of them.
 */
const CONTROL = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/**
 * True for a name with a control character (a newline, a tab, an escape) or a bidirectional control: names are
 * one line of text that reads as it is stored.
 */
export function hasControl(name: string): boolean {
  return CONTROL.test(name);
}

const CONTROLS = new RegExp(CONTROL.source, "gu");

/** `text` without its control and bidirectional control characters: a name made from something else. */
export function withoutControls(text: string): string {
  return text.replace(CONTROLS, "");
}

/**
 * Characters that show nothing by themselves: spaces, format characters (zero-width space and joiners, the
 * byte-order mark, direction marks), variation selectors, the combining grapheme joiner, and the letters that
 * render blank (Hangul fillers, the blank Braille pattern).
 */
const INVISIBLE = /^(?:[\s\p{Cf}\u115f\u2800\u3164\uffa0]|\u034f|\u1160|\p{Variation_Selector})*$/u;

/** True for a name that would show as nothing: empty, or only invisible characters. */
export function isInvisible(name: string): boolean {
  return INVISIBLE.test(name);
}
