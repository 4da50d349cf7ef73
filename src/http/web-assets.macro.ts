/**
 * Bun macro: inlines the built web UI (web/dist) into the bundle, gzip-compressed at build time, so the
 * single executable serves it with no files on disk. `TANDEM_WEB_DIST` (read at build time) names another
 * build of the UI.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, relative, resolve } from "node:path";

/** One embedded file. */
export interface EmbeddedAsset {
  path: string;
  type: string;
  /** base64 of the raw bytes. */
  body: string;
  /** base64 of the gzip-compressed bytes. */
  gzip: string;
  etag: string;
}

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

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

/** Every file of web/dist; empty when the UI has not been built. */
export function embeddedWebAssets(): EmbeddedAsset[] {
  const root = process.env.TANDEM_WEB_DIST
    ? resolve(process.env.TANDEM_WEB_DIST)
    : join(import.meta.dir, "..", "..", "web", "dist");
  if (!existsSync(root)) return [];
  return walk(root).map((file) => {
    const bytes = readFileSync(file);
    return {
      path: `/${relative(root, file).split("\\").join("/")}`,
      type: TYPES[extname(file)] ?? "application/octet-stream",
      body: bytes.toString("base64"),
      gzip: Buffer.from(Bun.gzipSync(bytes, { level: 9 })).toString("base64"),
      etag: `"${Bun.hash(bytes).toString(36)}"`,
    };
  });
}
