/**
 * What the first screen downloads, from dist/tandem: every asset is served by Tandem itself (no CDN), gzip
 * compressed, hashed and cached for good; and the JavaScript of the first screen (the entry and the chunks it
 * imports statically; screens loaded later are dynamic imports) stays under 400 KiB gzipped.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { startBinary } from "../helpers/browser";
import type { TestServer } from "../helpers/server";

const LIMIT = 400 * 1024;
let server: TestServer;

beforeAll(async () => {
  server = await startBinary();
});

afterAll(async () => {
  await server?.stop();
});

/** Gzipped size of an asset as served. */
async function gzipped(path: string): Promise<{ size: number; text: string; headers: Headers }> {
  const res = await fetch(server.url + path, { headers: { "accept-encoding": "gzip" }, decompress: false });
  expect(res.status).toBe(200);
  const bytes = new Uint8Array(await res.arrayBuffer());
  expect(res.headers.get("content-encoding")).toBe("gzip");
  return { size: bytes.length, text: new TextDecoder().decode(Bun.gunzipSync(bytes)), headers: res.headers };
}

describe("the first screen's assets", () => {
  it("are all served from /assets/, gzip, immutable", async () => {
    const html = await (await fetch(`${server.url}/`)).text();
    expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//);
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1] as string);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    expect(assets.some((a) => a.endsWith(".js"))).toBe(true);
    expect(assets.some((a) => a.endsWith(".css"))).toBe(true);
    for (const asset of assets) {
      const { headers } = await gzipped(asset);
      expect(headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    }
  });

  it("load under 400 KiB of JavaScript, gzipped", async () => {
    const html = await (await fetch(`${server.url}/`)).text();
    const queue = [...html.matchAll(/<script[^>]+src="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1] as string);
    // With no entry script found, nothing would be measured and any limit would hold.
    expect(queue.length).toBeGreaterThan(0);
    const seen = new Set<string>();
    let total = 0;
    while (queue.length > 0) {
      const path = queue.shift() as string;
      if (seen.has(path)) continue;
      seen.add(path);
      const { size, text } = await gzipped(path);
      total += size;
      // Static imports only (`import x from"./a.js"`, `import"./a.js"`); `import("./a.js")` loads later.
      for (const m of text.matchAll(/(?:from|import)\s*"(\.\/[^"]+\.js)"/g)) {
        queue.push(new URL(m[1] as string, `http://x${path}`).pathname);
      }
    }
    console.log(`first screen JavaScript: ${(total / 1024).toFixed(1)} KiB gzipped in ${seen.size} file(s)`);
    expect(total).toBeLessThan(LIMIT);
  });
});
