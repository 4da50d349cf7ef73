/** Bundles the web pages into web/dist (minified, hashed asset names under /assets/). */
import { rmSync } from "node:fs";

rmSync("web/dist", { recursive: true, force: true });
const result = await Bun.build({
  entrypoints: ["web/index.html", "web/setup.html"],
  outdir: "web/dist",
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
for (const output of result.outputs)
  console.log(`web: ${output.path.slice(process.cwd().length + 1)} ${output.size} B`);
