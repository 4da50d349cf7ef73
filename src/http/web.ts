/**
 * The web UI, served from memory under explicit prefixes (`/`, `/setup`, `/assets/`), so an unknown
 * `/api/...` path can never fall through to a page. Hashed assets are immutable; pages revalidate.
 */
import { Elysia } from "elysia";
import type { AuthMacro } from "./auth";
import { embeddedWebAssets } from "./web-assets.macro" with { type: "macro" };

interface Asset {
  type: string;
  body: Uint8Array;
  gzip: Uint8Array;
  etag: string;
}

const ASSETS = new Map<string, Asset>(
  embeddedWebAssets().map((a) => [
    a.path,
    { type: a.type, body: Buffer.from(a.body, "base64"), gzip: Buffer.from(a.gzip, "base64"), etag: a.etag },
  ]),
);

/** Answers one embedded file, gzip when the client takes it, 304 when it already has it. */
function serve(request: Request, path: string, cacheControl: string): Response {
  const asset = ASSETS.get(path);
  if (!asset) {
    return new Response(JSON.stringify({ error: "page not found" }), {
      status: 404,
      headers: { "content-type": "application/json; charset=utf-8" },
    });
  }
  const headers: Record<string, string> = {
    "content-type": asset.type,
    etag: asset.etag,
    "cache-control": cacheControl,
    vary: "accept-encoding",
  };
  if (request.headers.get("if-none-match") === asset.etag) return new Response(null, { status: 304, headers });
  if ((request.headers.get("accept-encoding") ?? "").includes("gzip")) {
    headers["content-encoding"] = "gzip";
    return new Response(asset.gzip as unknown as BodyInit, { headers });
  }
  return new Response(asset.body as unknown as BodyInit, { headers });
}

const PAGE_CACHE = "no-cache";
const ASSET_CACHE = "public, max-age=31536000, immutable";

export function webRoutes(auth: AuthMacro) {
  return new Elysia()
    .use(auth)
    .get(
      "/",
      ({ request, set }) => {
        set.headers["cache-control"] = PAGE_CACHE;
        return serve(request, "/index.html", PAGE_CACHE);
      },
      { public: true, detail: { hide: true } },
    )
    .get(
      "/setup",
      ({ request, set }) => {
        set.headers["cache-control"] = PAGE_CACHE;
        return serve(request, "/setup.html", PAGE_CACHE);
      },
      { public: true, detail: { hide: true } },
    )
    .get(
      "/assets/*",
      ({ request, params, set }) => {
        set.headers["cache-control"] = ASSET_CACHE;
        return serve(request, `/assets/${params["*"]}`, ASSET_CACHE);
      },
      { public: true, detail: { hide: true } },
    );
}
