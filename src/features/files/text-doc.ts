/**
 * A text file is a Yjs document whose `getText("content")` is the text. Writes from REST (a new content, an
 * accepted proposal, a restored version) change only the lines that differ, so collaborators' cursors, and
 * what they type meanwhile, stay in the lines they are in.
 */
import { diffLines } from "diff";
import * as Y from "yjs";

/** The shared text's name, as the y-websocket clients know it. */
export const TEXT_KEY = "content";

/** The encoded state of a new document holding `text`. */
export function newTextState(text: string): Uint8Array {
  const doc = new Y.Doc();
  doc.getText(TEXT_KEY).insert(0, text);
  const state = Y.encodeStateAsUpdate(doc);
  doc.destroy();
  return state;
}

/** Applies the minimal replacement that turns the document's text into `next`. */
export function replaceText(doc: Y.Doc, next: string): void {
  const text = doc.getText(TEXT_KEY);
  const current = text.toString();
  if (current === next) return;
  let start = 0;
  const max = Math.min(current.length, next.length);
  while (start < max && current.charCodeAt(start) === next.charCodeAt(start)) start++;
  let end = 0;
  while (end < max - start && current.charCodeAt(current.length - 1 - end) === next.charCodeAt(next.length - 1 - end)) {
    end++;
  }
  // Never split a surrogate pair at either edge of the replaced span.
  if (start > 0 && isHighSurrogate(current.charCodeAt(start - 1))) start--;
  if (end > 0 && isLowSurrogate(current.charCodeAt(current.length - end))) end--;
  const removed = current.slice(start, current.length - end);
  const inserted = next.slice(start, next.length - end);
  const parts = removed.includes("\n") && inserted.includes("\n") ? lineChanges(removed, inserted) : undefined;
  doc.transact(() => {
    if (!parts) {
      replace(text, start, removed.length, inserted);
      return;
    }
    let at = start;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i] as (typeof parts)[number];
      if (part.added) {
        text.insert(at, part.value);
        at += part.value.length;
      } else if (part.removed) {
        const by = parts[i + 1]?.added ? (parts[++i] as (typeof parts)[number]).value : "";
        at += replace(text, at, part.value.length, by);
      } else at += part.value.length;
    }
  });
}

/**
 * Replaces `length` characters at `at` with `by`; returns `by`'s length. The new text goes in before the old
 * is deleted, so it lands before the deleted characters: what someone types meanwhile right after the old
 * text (where their cursor was) then stays after the new text rather than ahead of it.
 */
function replace(text: Y.Text, at: number, length: number, by: string): number {
  if (by) text.insert(at, by);
  if (length > 0) text.delete(at + by.length, length);
  return by.length;
}

/**
 * The changed span as line changes, or undefined when comparing would take too long (texts of megabytes that
 * differ throughout): the span is then replaced whole.
 */
function lineChanges(before: string, after: string) {
  return diffLines(before, after, { timeout: LINE_DIFF_MS });
}

/** How long a write may spend comparing lines before it replaces the changed span whole. */
const LINE_DIFF_MS = 50;

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;
