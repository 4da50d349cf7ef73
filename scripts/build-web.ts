/**
 * Bundles the web UI into web/dist (minified, hashed asset names under /assets/, code split so screens loaded
 * later stay out of the first download), each file with its gzip form beside it (`.gz`, compressed once here
 * rather than by the server). `TANDEM_WEB_DIST` builds elsewhere (see scripts/build.ts).
 */
import { rmSync } from "node:fs";

const outdir = process.env.TANDEM_WEB_DIST ?? "web/dist";
rmSync(outdir, { recursive: true, force: true });
const result = await Bun.build({
  entrypoints: ["web/index.html"],
  splitting: true,
  outdir,
  minify: true,
  target: "browser",
  publicPath: "/",
  naming: { entry: "[name].[ext]", chunk: "assets/[name]-[hash].[ext]", asset: "assets/[name]-[hash].[ext]" },
  define: { "process.env.NODE_ENV": '"production"' },
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
for (const output of result.outputs) {
  const gzip = Bun.gzipSync(new Uint8Array(await output.arrayBuffer()), { level: 9 });
  await Bun.write(`${output.path}.gz`, gzip);
  console.log(`web: ${output.path} ${output.size} B (${gzip.length} B gzipped)`);
}
