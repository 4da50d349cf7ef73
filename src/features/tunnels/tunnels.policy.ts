/**
 * What crosses a tunnel, and what may not. The local service behind a tunnel is someone's code, and its pages
 * run in the browsers of the people who open them: its answers must not be able to act as Tandem (read the web
 * UI's stored session, set cookies or security policies for Tandem's whole origin), and Tandem's credentials must
 * not reach it (docs/api.md, Reverse tunnels: what a tunnel cannot do).
 */

import { publicOrigin } from "../../http/origin";

/** The visitor's cookie of a tunnel (its pass), scoped to the tunnel's path. */
export const PASS_COOKIE = "tandem_tunnel";

/** The query parameter of a one-time link; its name says `token`, so request logs redact it. */
export const LINK_PARAM = "tunnel_token";

/** Where every tunnel is reached; the automation id follows. */
export const TUNNEL_PREFIX = "/tunnels/";

/** The path every page of the automation's tunnel is below, and its cookie's `Path`. */
export const tunnelRoot = (automationId: string) => `${TUNNEL_PREFIX}${automationId}/`;

/**
 * The policy of tunnel pages served on Tandem's own origin: a sandbox without `allow-same-origin` gives them an
 * opaque origin, so their scripts cannot read the web UI's storage (its session is in localStorage), cookies or
 * API as the person looking. Browsers then send nothing credentialed with the page's own requests (they are
 * cross-site from an opaque origin): a page whose scripts, styles or calls need the tunnel's cookie works on a
 * separate tunnel origin (`TANDEM_TUNNEL_ORIGIN`), where no sandbox is needed.
 */
export const SANDBOX_POLICY =
  "sandbox allow-downloads allow-forms allow-modals allow-popups allow-scripts; frame-ancestors 'none'";

/** Hop-by-hop headers (RFC 9110 §7.6.1): about one connection, never forwarded. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/**
 * Request headers the local service never sees: Tandem's credentials (the bearer token, the tunnel's cookie is
 * taken out of `Cookie` below), the host (the connector's fetch sets its own), what Tandem itself adds (so a
 * visitor cannot pass as someone else), and the body's framing, which the connector's fetch makes again.
 */
const REQUEST_DROPPED = new Set([
  "authorization",
  "host",
  "forwarded",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-forwarded-prefix",
  "x-real-ip",
]);

/**
 * Answer headers that would reach beyond the tunnel: HSTS, Alt-Svc and Clear-Site-Data act on Tandem's whole
 * origin (Clear-Site-Data would sign everyone out of the web UI), Service-Worker-Allowed would let a worker
 * control pages outside the tunnel. `Set-Cookie` is rewritten instead (`tunnelCookie`).
 */
const RESPONSE_DROPPED = new Set([
  "strict-transport-security",
  "alt-svc",
  "clear-site-data",
  "service-worker-allowed",
  "public-key-pins",
  "public-key-pins-report-only",
  "set-cookie",
  "content-length",
  "cdn-cache-control",
  "surrogate-control",
]);

/** Headers a `Connection` header names are hop-by-hop too. */
function connectionListed(headers: Iterable<[string, string]>): Set<string> {
  const listed = new Set<string>();
  for (const [name, value] of headers) {
    if (name.toLowerCase() !== "connection") continue;
    for (const token of value.split(",")) listed.add(token.trim().toLowerCase());
  }
  return listed;
}

/** The `Cookie` header without the tunnel's pass; null when nothing else is left. */
export function cookieWithoutPass(cookie: string): string | null {
  const kept = cookie
    .split(";")
    .map((part) => part.trim())
    .filter((part) => part !== "" && part.split("=", 1)[0]?.trim() !== PASS_COOKIE);
  return kept.length > 0 ? kept.join("; ") : null;
}

/** Who is asking, as the local service is told: the tunnel's place, the visitor's address and Tandem user. */
export interface Forwarding {
  /** `https` or `http`: how the visitor reached Tandem. */
  proto: string;
  host: string;
  /** `/tunnels/{automationId}`. */
  prefix: string;
  /** The visitor's address, or "" where unknown. */
  address: string;
  userId: string;
}

/** The request headers the connector forwards: the visitor's, less what must not cross, plus who is asking. */
export function forwardedRequestHeaders(headers: Headers, forwarding: Forwarding): [string, string][] {
  const listed = connectionListed(headers);
  const out: [string, string][] = [];
  for (const [name, value] of headers) {
    if (HOP_BY_HOP.has(name) || REQUEST_DROPPED.has(name) || listed.has(name) || name.startsWith("x-tandem-")) {
      continue;
    }
    if (name === "cookie") {
      const kept = cookieWithoutPass(value);
      if (kept !== null) out.push([name, kept]);
      continue;
    }
    out.push([name, value]);
  }
  out.push(["x-forwarded-proto", forwarding.proto]);
  out.push(["x-forwarded-host", forwarding.host]);
  out.push(["x-forwarded-prefix", forwarding.prefix]);
  if (forwarding.address) out.push(["x-forwarded-for", forwarding.address]);
  out.push(["x-tandem-user-id", forwarding.userId]);
  return out;
}

/**
 * The answer's headers as the visitor gets them: hop-by-hop and origin-wide headers dropped, a `Location` on the
 * service's own paths moved below the tunnel, cookies kept to the tunnel's path, and the sandbox where the page
 * would otherwise run on Tandem's origin. `Content-Length` is kept for a HEAD alone (other bodies are streamed).
 */
export function visitorResponseHeaders(
  headers: [string, string][],
  automationId: string,
  options: { sandbox: boolean; head: boolean },
): Headers {
  const listed = connectionListed(headers);
  const out = new Headers();
  const root = tunnelRoot(automationId);
  for (const [raw, value] of headers) {
    const name = raw.toLowerCase();
    if (name === "set-cookie") {
      const cookie = tunnelCookie(value, root);
      if (cookie !== null) out.append("set-cookie", cookie);
      continue;
    }
    if (name === "content-length" && options.head) {
      out.set(name, value);
      continue;
    }
    if (HOP_BY_HOP.has(name) || RESPONSE_DROPPED.has(name) || listed.has(name)) continue;
    if (name === "cache-control") {
      out.append(name, privateCaching(value));
      continue;
    }
    if (name === "location" && value.startsWith("/") && !value.startsWith("//")) {
      out.set(name, root + value.slice(1));
      continue;
    }
    out.append(name, value);
  }
  // Added to any policy the service sends: every policy given is enforced, so the sandbox always holds.
  if (options.sandbox) out.append("content-security-policy", SANDBOX_POLICY);
  return out;
}

/**
 * What only the tunnel's visitors may see must not be kept by a shared cache in front (a CDN) and served to
 * anyone: the service's caching is the browser's alone.
 */
export function privateCaching(cacheControl: string): string {
  const kept = cacheControl
    .split(",")
    .map((directive) => directive.trim())
    .filter((directive) => directive !== "" && !/^(public|private|proxy-revalidate|s-maxage\s*=.*)$/i.test(directive));
  return ["private", ...kept].join(", ");
}

/**
 * A cookie the local service sets, kept to the tunnel: no `Domain` (host-only), its `Path` below the tunnel's
 * root. Refused (null): the tunnel's own pass, and `__Host-` cookies (which must have `Path=/`).
 */
export function tunnelCookie(setCookie: string, root: string): string | null {
  const [pair = "", ...attributes] = setCookie.split(";");
  const name = pair.split("=", 1)[0]?.trim() ?? "";
  if (name === "" || name === PASS_COOKIE || name.startsWith("__Host-")) return null;
  let path = root;
  const kept: string[] = [];
  for (const attribute of attributes) {
    const [key = "", ...rest] = attribute.split("=");
    const lower = key.trim().toLowerCase();
    if (lower === "domain") continue;
    if (lower === "path") {
      const given = rest.join("=").trim();
      if (given.startsWith("/")) path = root + given.slice(1);
      continue;
    }
    kept.push(attribute.trim());
  }
  return [pair.trim(), `Path=${path}`, ...kept].join("; ");
}

/** Whether the request came to the configured tunnel origin (which serves tunnels and nothing else). */
export function onTunnelOrigin(request: Request, tunnelOrigin: string | null): boolean {
  if (tunnelOrigin === null) return false;
  return publicOrigin(request).host === new URL(tunnelOrigin).host.toLowerCase();
}

/** The `Set-Cookie` of a visitor's pass: host-only, below the tunnel's root, out of scripts' reach. */
export function passCookie(pass: string, automationId: string, maxAgeS: number, secure: boolean): string {
  return [
    `${PASS_COOKIE}=${pass}`,
    `Path=${tunnelRoot(automationId)}`,
    `Max-Age=${maxAgeS}`,
    "HttpOnly",
    "SameSite=Lax",
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

/** The pass in a request's cookies, or null. */
export function passOf(cookie: string | null): string | null {
  if (!cookie) return null;
  for (const part of cookie.split(";")) {
    const [name, ...value] = part.split("=");
    if (name?.trim() === PASS_COOKIE) return value.join("=").trim() || null;
  }
  return null;
}
