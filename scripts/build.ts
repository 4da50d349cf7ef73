/**
 * Builds the web UI into web/dist, then compiles the server, its migrations and the UI (as embedded files) into
 * one executable `dist/tandem`, stamped with the version and git sha. `TANDEM_BUILD_OUT` (the executable) and
 * `TANDEM_WEB_DIST` (the built UI) put a build elsewhere, so two checkouts' work can be built and tested side by
 * side.
 */
import { basename, dirname, resolve } from "node:path";
import { $ } from "bun";
import pkg from "../package.json";

await $`bun scripts/build-web.ts`;
// The UI is embedded as files (read when first asked for), under its directory's name.
const web = resolve(process.env.TANDEM_WEB_DIST ?? "web/dist");
const sha = (await $`git rev-parse --short=12 HEAD`.nothrow().quiet()).stdout.toString().trim();
const outfile = process.env.TANDEM_BUILD_OUT ?? "dist/tandem";
await $`mkdir -p ${dirname(outfile)}`;
// --bytecode-order: the bytecode a server runs first (scripts/serve.order, recorded by `npm run record-order`);
// the executable reads and keeps in memory fewer of its own pages.
const order = resolve(import.meta.dir, "serve.order");
// --compile-jit-policy: the executable starts with JavaScriptCore's tier-up thresholds ×8, so code that runs once
// at start-up is interpreted rather than compiled (start-up measured 118 -> 80 ms); `serve` sets the normal
// policy back once it is listening (src/server.ts). The checkpoint worker and PostgreSQL's thread are entry points
// of their own: the executable keeps them at db/ and db/pg/ below its root (src/db/checkpointer.ts,
// src/db/pg/connection.ts).
await $`bun build src/main.ts src/db/checkpoint.worker.ts src/db/pg/worker.ts --compile --bytecode --compile-jit-policy=8 --bytecode-order=${order} --format=esm --minify --outfile ${outfile} --asset=${web} --define TANDEM_WEB_ASSETS=${JSON.stringify(basename(web))} --define TANDEM_CHECKPOINT_WORKER=${JSON.stringify("./db/checkpoint.worker.ts")} --define TANDEM_PG_WORKER=${JSON.stringify("./db/pg/worker.ts")} --define process.env.NODE_ENV='"production"' --define TANDEM_VERSION=${JSON.stringify(pkg.version)} --define TANDEM_GIT_SHA=${JSON.stringify(sha)}`;
console.log(`built ${outfile} ${pkg.version}${sha ? ` (${sha})` : ""}`);
