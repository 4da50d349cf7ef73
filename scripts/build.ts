/**
 * Builds the web UI into web/dist, then compiles the server, its migrations and the UI into one executable
 * `dist/tandem`, stamped with the version and git sha.
 */
import { $ } from "bun";
import pkg from "../package.json";

await $`bun scripts/build-web.ts`;
const sha = (await $`git rev-parse --short=12 HEAD`.nothrow().quiet()).stdout.toString().trim();
await $`mkdir -p dist`;
await $`bun build src/main.ts --compile --bytecode --format=esm --minify --outfile dist/tandem --define process.env.NODE_ENV='"production"' --define TANDEM_VERSION=${JSON.stringify(pkg.version)} --define TANDEM_GIT_SHA=${JSON.stringify(sha)}`;
console.log(`built dist/tandem ${pkg.version}${sha ? ` (${sha})` : ""}`);
