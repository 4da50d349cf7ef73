/**
 * `bun bench/postgres.ts`: the same routes on PostgreSQL (one node) beside SQLite, in one run with interleaved
 * rounds (bench/harness.ts `runLoad`): GET /api/v1/me, the chat post, a task move. The servers are dist/tandem on
 * the server's core; PostgreSQL (a cluster the bench starts in a temp dir, test/helpers/postgres.ts) runs on the
 * load's core, beside wrk: on a machine of two cores, the database and the load share one. Knobs as `npm run
 * bench` (BENCH_ROUNDS, BENCH_DURATION, ...); BENCH_ONLY picks among these scenarios.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanup, type LoadScenario, onPostgres, opts, ROOT, runLoad, table } from "./harness";
import { scenarios } from "./scenarios";

if (!existsSync(opts.bin)) {
  console.error(`bench: ${opts.bin} is missing: run ./install.sh`);
  process.exit(1);
}
Bun.spawnSync(["taskset", "-a", "-cp", opts.wrkCpu, String(process.pid)]);

const NAMES = [
  "GET /api/v1/me (bearer)",
  "POST chat message",
  "POST task message (a single-INSERT route)",
  "PATCH task move (column of 1,000)",
];
const chosen = scenarios.filter(
  (s): s is LoadScenario => s.kind === "load" && NAMES.includes(s.name) && (!opts.only || s.name.includes(opts.only)),
);
const onPg = (s: LoadScenario): LoadScenario => ({
  ...s,
  name: `${s.name} · PostgreSQL`,
  start: () => onPostgres(() => (s.start ? s.start() : import("./harness").then((h) => h.startTandem()))),
  relativeTo: s.relativeTo ? `${s.relativeTo} · PostgreSQL` : undefined,
  // The figures are compared in the table, not held to SQLite's targets.
  minRatio: undefined,
  maxP99Ms: undefined,
});
const say = (s: string) => console.error(`bench: ${s}`);
process.on("SIGINT", () => void cleanup().then(() => process.exit(130)));

try {
  const { rows } = await runLoad(
    chosen.flatMap((s) => [s, onPg(s)]),
    say,
  );
  const out = table(rows);
  console.log(out);
  mkdirSync(join(ROOT, ".bench"), { recursive: true });
  writeFileSync(join(ROOT, ".bench/postgres.json"), JSON.stringify({ at: new Date().toISOString(), rows }, null, 2));
} finally {
  await cleanup();
}
