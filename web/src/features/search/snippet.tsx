/**
 * A search result's excerpt. The API sends it HTML-escaped with each match inside `<mark>` and `</mark>`; it is
 * read here into plain text and marked parts, and rendered as React text (never as HTML), so whatever a
 * message holds shows as typed.
 */

/** A run of the excerpt's text, marked when it matched the search. */
export interface Segment {
  text: string;
  mark: boolean;
}

const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };

/** The five entities the API escapes, back to their characters; anything else stays as it is. */
function unescapeHtml(text: string): string {
  return text.replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity] ?? entity);
}

/** The excerpt's runs of text: outside and inside `<mark>`…`</mark>`, in order, empty runs left out. */
export function parseSnippet(snippet: string): Segment[] {
  const segments: Segment[] = [];
  let mark = false;
  for (const part of snippet.split(/(<\/?mark>)/)) {
    if (part === "<mark>") mark = true;
    else if (part === "</mark>") mark = false;
    else if (part) segments.push({ text: unescapeHtml(part), mark });
  }
  return segments;
}

/** The excerpt as text with its matches in `<mark>`. */
export function Snippet({ snippet, className }: { snippet: string; className?: string }) {
  return (
    <span className={className}>
      {parseSnippet(snippet).map((segment, i) =>
        // biome-ignore lint/suspicious/noArrayIndexKey: the runs of one excerpt never reorder.
        segment.mark ? <mark key={i}>{segment.text}</mark> : <span key={i}>{segment.text}</span>,
      )}
    </span>
  );
}
