/**
 * Markdown rendered safely: raw HTML in the source is shown as text (markdown-it with `html: false`), links
 * are limited to http(s), mailto and relative URLs and open in a new tab without the opener.
 */
import MarkdownIt from "markdown-it";
import { useMemo } from "react";

const md = new MarkdownIt({ html: false, linkify: true, breaks: true });
const SAFE_LINK = /^(https?:|mailto:|\/|#)/i;
md.validateLink = (url) => SAFE_LINK.test(url.trim());
const defaultLinkOpen =
  md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const token = tokens[idx];
  if (token) {
    token.attrSet("target", "_blank");
    token.attrSet("rel", "noopener noreferrer nofollow");
  }
  return defaultLinkOpen(tokens, idx, options, env, self);
};

/** The HTML of `source` (safe to insert: see the module comment). */
export function renderMarkdown(source: string): string {
  return md.render(source);
}

/** Markdown as a block. */
export function Markdown({ source, className }: { source: string; className?: string }) {
  const html = useMemo(() => renderMarkdown(source), [source]);
  // biome-ignore lint/security/noDangerouslySetInnerHtml: markdown-it escapes all raw HTML (html: false) and links are filtered.
  return <div className={`markdown ${className ?? ""}`} dangerouslySetInnerHTML={{ __html: html }} />;
}
