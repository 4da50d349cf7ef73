/**
 * A small history router: the location as state, `navigate()`, and `<Link>` for same-origin links that keep
 * the browser's own behaviour for modified clicks (new tab, new window).
 */
import { type AnchorHTMLAttributes, type MouseEvent, useSyncExternalStore } from "react";

const listeners = new Set<() => void>();

function notify(): void {
  for (const listener of listeners) listener();
}

addEventListener("popstate", notify);

/** Goes to `to` (a path with optional query); `replace` leaves no history entry. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search) return;
  if (options.replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  notify();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The current path and query, re-rendering on every navigation. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const href = useSyncExternalStore(subscribe, () => location.pathname + location.search);
  const url = new URL(href, location.origin);
  return { path: url.pathname, query: url.searchParams };
}

/**
 * Matches `path` against a pattern like `/spaces/:spaceId/chat/:roomId?`; a trailing `?` makes a segment
 * optional. Returns the decoded parameters, or null.
 */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/").filter(Boolean);
  const have = path.split("/").filter(Boolean);
  if (have.length > want.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const part = want[i] as string;
    const value = have[i];
    const optional = part.endsWith("?");
    if (value === undefined) {
      if (optional) continue;
      return null;
    }
    if (part.startsWith(":")) params[part.slice(1).replace(/\?$/, "")] = decodeURIComponent(value);
    else if (part !== value) return null;
  }
  return params;
}

/** Same-origin link handled by the router. */
export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const { onClick, href, ...rest } = props;
  const click = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    if (props.target && props.target !== "_self") return;
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} {...rest} onClick={click} />;
}
