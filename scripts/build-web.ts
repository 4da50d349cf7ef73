/**
 * Bundles the web UI into web/dist (minified, hashed asset names under /assets/, code split so screens loaded
 * later stay out of the first download), and the service worker into web/dist/sw.js (one classic script, under a
 * fixed name: its address is its identity to the browser), each file with its gzip form beside it (`.gz`,
 * compressed once here rather than by the server). `TANDEM_WEB_DIST` builds elsewhere (see scripts/build.ts).
 */
import { rmSync } from "node:fs";

const outdir = process.env.TANDEM_WEB_DIST ?? "web/dist";
rmSync(outdir, { recursive: true, force: true });
const define = { "process.env.NODE_ENV": '"production"' };
const results = [
  await Bun.build({
    entrypoints: ["web/index.html"],
    splitting: true,
    outdir,
    minify: true,
    target: "browser",
    publicPath: "/",
    naming: { entry: "[name].[ext]", chunk: "assets/[name]-[hash].[ext]", asset: "assets/[name]-[hash].[ext]" },
    define,
  }),
  await Bun.build({
    entrypoints: ["web/src/sw/sw.ts"],
    outdir,
    minify: true,
    target: "browser",
    format: "iife",
    naming: { entry: "sw.js" },
    define,
  }),
];
for (const result of results) {
  if (result.success) continue;
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
for (const output of results.flatMap((result) => result.outputs)) {
  const gzip = Bun.gzipSync(new Uint8Array(await output.arrayBuffer()), { level: 9 });
  await Bun.write(`${output.path}.gz`, gzip);
  console.log(`web: ${output.path} ${output.size} B (${gzip.length} B gzipped)`);
}
