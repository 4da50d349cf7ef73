/**
 * Markdown rendered safely: raw HTML in the source is shown as text (markdown-it with `html: false`), links
 * are limited to http(s), mailto and relative URLs, and images are links to them, never loaded by the page.
 * Links elsewhere open in a new tab without the opener; a path of Tandem's own (`/spaces/…`, as a staff reply
 * links the proposal it made) opens in place, through the router.
 */
import MarkdownIt from "markdown-it";
import { type MouseEvent, useMemo } from "react";
import { navigate } from "./router";

const md = new MarkdownIt({ html: false, linkify: true, breaks: true });
const SAFE_LINK = /^(https?:|mailto:|\/|#)/i;
md.validateLink = (url) => SAFE_LINK.test(url.trim());
const defaultLinkOpen =
  md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
/** A path of this origin (`/spaces/…`), not a scheme-relative URL (`//host/…`). */
const isOwnPath = (href: string) => href.startsWith("/") && !href.startsWith("//") && !href.startsWith("/\\");

md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const token = tokens[idx];
  if (token && !isOwnPath(String(token.attrGet("href") ?? ""))) {
    token.attrSet("target", "_blank");
    token.attrSet("rel", "noopener noreferrer nofollow");
  }
  return defaultLinkOpen(tokens, idx, options, env, self);
};

/** A plain click on a link to a path of Tandem's own goes there in place, as `<Link>` does. */
function followOwnLink(event: MouseEvent<HTMLElement>): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  const link = (event.target as Element).closest?.("a[href]");
  const href = link?.getAttribute("href") ?? "";
  if (!link || link.hasAttribute("target") || !isOwnPath(href)) return;
  event.preventDefault();
  navigate(href);
}

// An image is shown as a link to it. Loaded as the page opens, a picture on someone else's server would tell
// that server who read the message and when, and a reply written by staff that read something it was asked to
// leak could carry it out in the picture's URL, without anyone clicking.
md.renderer.rules.image = (tokens, idx, options, env, self) => {
  const token = tokens[idx];
  const src = String(token?.attrGet("src") ?? "");
  const alt = self.renderInlineAsText(token?.children ?? [], options, env) || src;
  const esc = md.utils.escapeHtml;
  return `<a class="image-link" href="${esc(src)}" target="_blank" rel="noopener noreferrer nofollow">🖼 ${esc(alt)}</a>`;
};

/** A stretch of plain text to show as a highlighted span (a mention, say): `[start, end)` of the text. */
export interface Highlight {
  start: number;
  end: number;
  /** The text shown instead of the stretch. */
  label: string;
  className: string;
  title?: string;
}

/** Finds the highlights in one run of plain text (raw HTML in the source is text too); never given code or link text. */
export type Highlighter = (text: string) => Highlight[];

// Highlights: text tokens (after linkify, outside links) are cut around what the caller's highlighter finds.
// The spans are built here, every part escaped, so a highlighter cannot put markup in the page.
md.core.ruler.push("highlight", (state) => {
  const highlight = (state.env as { highlight?: Highlighter } | undefined)?.highlight;
  if (!highlight) return;
  for (const block of state.tokens) {
    if (block.type !== "inline" || !block.children) continue;
    const out: typeof block.children = [];
    let inLink = 0;
    for (const token of block.children) {
      if (token.type === "link_open") inLink++;
      else if (token.type === "link_close") inLink--;
      const found = token.type === "text" && inLink === 0 ? highlight(token.content) : [];
      if (found.length === 0) {
        out.push(token);
        continue;
      }
      let at = 0;
      for (const h of found) {
        if (h.start < at || h.end <= h.start || h.end > token.content.length) continue;
        if (h.start > at) {
          const text = new state.Token("text", "", 0);
          text.content = token.content.slice(at, h.start);
          out.push(text);
        }
        const span = new state.Token("highlight", "span", 0);
        span.content = h.label;
        span.meta = { className: h.className, title: h.title };
        out.push(span);
        at = h.end;
      }
      if (at < token.content.length) {
        const text = new state.Token("text", "", 0);
        text.content = token.content.slice(at);
        out.push(text);
      }
    }
    block.children = out;
  }
});
md.renderer.rules.highlight = (tokens, idx) => {
  const token = tokens[idx];
  const meta = token?.meta as { className: string; title?: string };
  const esc = md.utils.escapeHtml;
  const title = meta.title ? ` title="${esc(meta.title)}"` : "";
  return `<span class="${esc(meta.className)}"${title}>${esc(token?.content ?? "")}</span>`;
};

// Task lists: a list item starting "[ ] " or "[x] " shows a checkbox, read-only (ticking it would have to
// rewrite the source, which the page does not do). The box is a token of its own, so no source text becomes
// markup.
const TASK = /^\[([ xX])\] /;
md.core.ruler.before("highlight", "task_list", (state) => {
  const tokens = state.tokens;
  for (let i = 2; i < tokens.length; i++) {
    const inline = tokens[i];
    const item = tokens[i - 2];
    if (inline?.type !== "inline" || tokens[i - 1]?.type !== "paragraph_open" || item?.type !== "list_item_open")
      continue;
    const first = inline.children?.[0];
    const found = first?.type === "text" ? TASK.exec(first.content) : null;
    if (!first || !found || !inline.children) continue;
    first.content = first.content.slice(found[0].length);
    const box = new state.Token("task_checkbox", "input", 0);
    box.meta = { checked: found[1] !== " " };
    inline.children.unshift(box);
    item.attrJoin("class", "task-list-item");
  }
});
md.renderer.rules.task_checkbox = (tokens, idx) => {
  const checked = (tokens[idx]?.meta as { checked?: boolean } | undefined)?.checked;
  return `<input type="checkbox" class="task-check" disabled${checked ? " checked" : ""}> `;
};

/** The HTML of `source` (safe to insert: see the module comment), with what `highlight` finds in spans. */
export function renderMarkdown(source: string, highlight?: Highlighter): string {
  return md.render(source, highlight ? { highlight } : {});
}

/** Markdown as a block; `highlight` marks stretches of its plain text (mentions in chat). */
export function Markdown({
  source,
  className,
  highlight,
}: {
  source: string;
  className?: string;
  highlight?: Highlighter;
}) {
  const html = useMemo(() => renderMarkdown(source, highlight), [source, highlight]);
  return (
    // biome-ignore lint/security/noDangerouslySetInnerHtml: markdown-it escapes all raw HTML (html: false) and links are filtered.
    // biome-ignore lint/a11y/useKeyWithClickEvents: only clicks on the links inside are handled, and a link takes Enter as a click.
    // biome-ignore lint/a11y/noStaticElementInteractions: the same: what is clicked is a link inside.
    <div className={`markdown ${className ?? ""}`} onClick={followOwnLink} dangerouslySetInnerHTML={{ __html: html }} />
  );
}
