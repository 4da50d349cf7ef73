/**
 * The web UI, served under explicit prefixes (`/`, `/setup`, `/assets/`, and `/sw.js`, the service worker), so an
 * unknown `/api/...` path can never fall through to a page. Hashed assets are immutable; pages and the service
 * worker revalidate.
 *
 * The files come from the executable (scripts/build.ts embeds the built UI and names its directory in
 * `TANDEM_WEB_ASSETS`), or, run from source, from web/dist when it has been built. Each is read on its first
 * request and kept, with the gzip form built beside it: nothing of the UI is read or decoded at startup.
 */
import { readFileSync } from "node:fs";
import { extname, join } from "node:path";
import { Elysia } from "elysia";
import type { AuthMacro } from "./auth";
import { JSON_TYPE } from "./base";

declare const TANDEM_WEB_ASSETS: string | undefined;

const ROOT =
  typeof TANDEM_WEB_ASSETS === "string"
    ? join(import.meta.dir, TANDEM_WEB_ASSETS)
    : join(import.meta.dir, "..", "..", "web", "dist");

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".json": "application/json",
  ".ico": "image/x-icon",
};

interface Asset {
  type: string;
  body: Uint8Array;
  gzip: Uint8Array;
  etag: string;
}

/** The files read so far (only files that exist: a miss is not remembered, so unknown paths cost no memory). */
const loaded = new Map<string, Asset>();

/** The UI's file at `path` (`/index.html`, `/assets/...`), or undefined. */
function assetAt(path: string): Asset | undefined {
  const known = loaded.get(path);
  if (known) return known;
  const file = join(ROOT, path);
  // Nothing outside the UI's directory, and the gzip forms only as the encoding of their file.
  if (!file.startsWith(`${ROOT}/`) || file.endsWith(".gz")) return undefined;
  let body: Buffer;
  try {
    body = readFileSync(file);
  } catch {
    return undefined;
  }
  let gzip: Uint8Array;
  try {
    gzip = readFileSync(`${file}.gz`);
  } catch {
    gzip = Bun.gzipSync(new Uint8Array(body), { level: 9 });
  }
  const asset = {
    type: TYPES[extname(file)] ?? "application/octet-stream",
    body,
    gzip,
    etag: `"${Bun.hash(body).toString(36)}"`,
  };
  loaded.set(path, asset);
  return asset;
}

/** Whether the client takes gzip: `Accept-Encoding` names it (or `*`) without `q=0`. */
export function acceptsGzip(header: string | null): boolean {
  if (!header) return false;
  let star = false;
  for (const part of header.split(",")) {
    const [name = "", ...params] = part.split(";").map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith("q="));
    const refused = q !== undefined && Number(q.slice(2)) === 0;
    if (name === "gzip") return !refused;
    if (name === "*") star = !refused;
  }
  return star;
}

/** `If-None-Match` against an entity tag, compared weakly as RFC 9110 says for it (`W/` ignored, `*` any). */
export function noneMatch(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

/**
 * One embedded file, gzip when the client takes it, 304 when the client already has that representation
 * (each has its own entity tag). Sent as bytes, not a Blob: a Blob body would answer byte ranges of the
 * compressed form, and mark even full answers with a `Content-Range`.
 */
function serve(
  request: Request,
  set: { status?: number | string; headers: Record<string, string | number> },
  path: string,
  cacheControl: string,
): Uint8Array | string | null {
  const asset = assetAt(path);
  if (!asset) {
    set.status = 404;
    set.headers["content-type"] = JSON_TYPE;
    return JSON.stringify({ error: "page not found" });
  }
  const gzip = acceptsGzip(request.headers.get("accept-encoding"));
  const etag = gzip ? `${asset.etag.slice(0, -1)}-gzip"` : asset.etag;
  set.headers.etag = etag;
  set.headers["cache-control"] = cacheControl;
  set.headers.vary = "accept-encoding";
  if (noneMatch(request.headers.get("if-none-match"), etag)) {
    set.status = 304;
    return null;
  }
  set.headers["content-type"] = asset.type;
  if (gzip) set.headers["content-encoding"] = "gzip";
  return gzip ? asset.gzip : asset.body;
}

const PAGE_CACHE = "no-cache";

/**
 * The app's page runs only its own scripts and talks only to its own origin (REST and both sockets). Inline
 * styles are allowed: the editor and React's `style` attributes set them. Images come from the page itself,
 * data and blob URLs (previews of uploaded files); never from elsewhere (markdown shows pictures as links).
 */
export const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const ASSET_CACHE = "public, max-age=31536000, immutable";

/**
 * The service worker's own policy (a worker's script is governed by the policy it is served with, not the
 * page's): it runs only itself and fetches nothing.
 */
export const WORKER_CSP = "default-src 'none'; script-src 'self'; frame-ancestors 'none'";

/**
 * The app's own paths: each serves the page, and the app picks the screen. Listed one by one, so anything
 * else (an unknown `/api/...` path above all) is never a page.
 */
export const PAGE_PATHS = [
  "/",
  "/setup",
  "/login",
  "/register",
  "/invite",
  "/spaces",
  "/spaces/*",
  "/my-tasks",
  "/inbox",
  "/profile",
  "/approvals",
  "/search",
  "/staff",
  "/staff/*",
  "/settings",
  "/settings/*",
] as const;

export function webRoutes(auth: AuthMacro) {
  const app = new Elysia().use(auth);
  for (const path of PAGE_PATHS) {
    app.get(
      path,
      ({ request, set }) => {
        set.headers["content-security-policy"] = PAGE_CSP;
        return serve(request, set, "/index.html", PAGE_CACHE);
      },
      {
        public: true,
        detail: { hide: true },
      },
    );
  }
  // The service worker (Web Push), at the root so that its scope is the whole app. Revalidated like a page:
  // under a fixed name, a new build must reach browsers at their next check.
  app.get(
    "/sw.js",
    ({ request, set }) => {
      set.headers["content-security-policy"] = WORKER_CSP;
      return serve(request, set, "/sw.js", PAGE_CACHE);
    },
    {
      public: true,
      detail: { hide: true },
    },
  );
  return app.get(
    "/assets/*",
    ({ request, params, set }) => serve(request, set, `/assets/${params["*"]}`, ASSET_CACHE),
    {
      public: true,
      detail: { hide: true },
    },
  );
}
