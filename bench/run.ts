/**
 * `npm run bench`: benchmarks dist/tandem from outside with wrk, server and wrk pinned to different cores.
 * Knobs (env, defaults shown; seconds): BENCH_ROUNDS=5 BENCH_DURATION=5 BENCH_WARMUP=2 BENCH_CONNECTIONS=50
 * BENCH_THREADS=1 BENCH_WAL_DURATION=24 BENCH_STARTUP_RUNS=10 BENCH_SERVER_CPU=0 BENCH_WRK_CPU=1
 * BENCH_LOG=file|null BENCH_QUIET_WAIT=10 BENCH_RETRIES=1 BENCH_ONLY=<part of a scenario name>
 * BENCH_BIN=dist/tandem BENCH_KEEP=1 (keep temp dirs); BENCH_PG_CPU (bench/postgres.ts, bench/nodes.ts) and
 * BENCH_NODE2_CPU (bench/nodes.ts), both BENCH_WRK_CPU unless told. Results: the table on stdout, and
 * .bench/results.json.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { cleanup, type LoadScenario, opts, type ProbeScenario, pct, ROOT, type Row, runLoad, table } from "./harness";
import { scenarios } from "./scenarios";

function fail(message: string): never {
  console.error(`bench: ${message}`);
  process.exit(1);
}

if (!Bun.which("wrk")) fail("wrk is not installed: apt-get install -y wrk");
if (!Bun.which("taskset")) fail("taskset is not installed: apt-get install -y util-linux");
if (!existsSync(opts.bin)) fail(`${opts.bin} is missing: run ./install.sh`);
if (cpus().length < 2) fail("needs 2 cores (server on one, wrk on the other)");

// The harness itself stays off the server's core too (it only polls and samples).
Bun.spawnSync(["taskset", "-a", "-cp", opts.wrkCpu, String(process.pid)]);

const selected = scenarios.filter((s) => !opts.only || s.name.includes(opts.only));
const say = (s: string) => console.error(`bench: ${s}`);
const version = Bun.spawnSync([opts.bin, "version"]).stdout.toString().trim();
say(
  `${version}; bun ${Bun.version}; ${cpus().length} × ${cpus()[0]?.model}; server on cpu ${opts.serverCpu}, wrk on cpu ${opts.wrkCpu}`,
);
say(
  `${opts.rounds} rounds × ${opts.duration} s, wrk -t${opts.threads} -c${opts.connections}, warm-up ${opts.warmup} s, tandem log to ${opts.log}`,
);

process.on("SIGINT", () => void cleanup().then(() => process.exit(130)));
process.on("SIGTERM", () => void cleanup().then(() => process.exit(143)));

const rows: Row[] = [];
try {
  const load = await runLoad(
    selected.filter((s): s is LoadScenario => s.kind === "load"),
    say,
  );
  rows.push(...load.rows);
  for (const probe of selected.filter((s): s is ProbeScenario => s.kind === "probe")) {
    say(`${probe.name} ...`);
    const row = await probe.run({ bareRps: load.bareRps });
    say(`${probe.name}: ${row.measured}`);
    rows.push(row);
  }
} finally {
  await cleanup();
}

const out = table(rows);
console.log(out);
mkdirSync(join(ROOT, ".bench"), { recursive: true });
const file = join(ROOT, ".bench/results.json");
writeFileSync(
  file,
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      tandem: version,
      bun: Bun.version,
      machine: { cpus: cpus().length, model: cpus()[0]?.model },
      options: opts,
      rows,
    },
    null,
    2,
  )}\n`,
);
const noisy = Math.max(0, ...rows.map((r) => r.noise ?? 0));
if (noisy > 0.05) {
  console.log(
    `\nnoise: other processes and the hypervisor's steal took up to ${pct(noisy)} of the CPUs during a wrk run: treat the figures with care`,
  );
}
const failed = rows.filter((r) => r.pass === false).map((r) => r.scenario);
console.log(`\nresults: ${file}${failed.length ? `; FAILED: ${failed.join(", ")}` : "; all targets met"}`);
process.exit(failed.length ? 1 : 0);
