/**
 * A text file is a Yjs document whose `getText("content")` is the text. Writes from REST replace only the
 * span that changed (common prefix and suffix kept), so collaborators' cursors outside it survive.
 */
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
  doc.transact(() => {
    const removed = current.length - start - end;
    if (removed > 0) text.delete(start, removed);
    const inserted = next.slice(start, next.length - end);
    if (inserted) text.insert(start, inserted);
  });
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;
