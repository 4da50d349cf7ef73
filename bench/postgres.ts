/**
 * `npm run bench:postgres`: the same routes on PostgreSQL (one node) beside SQLite, in one run with interleaved
 * rounds (bench/harness.ts `runLoad`): GET /api/v1/me, the chat post, a task move. Then live events, the fan-out of
 * bench/realtime.ts on each engine in interleaved rounds: 100 sockets, the delay of 200 posts at 20/s to every
 * socket, and the posts per second one writer sustains (16 in flight, BENCH_DURATION seconds) with every socket
 * served. The servers are dist/tandem on the server's core; PostgreSQL (a cluster the bench starts in a temp dir,
 * test/helpers/postgres.ts) runs on the load's core, beside wrk and the sockets' clients: on a machine of two
 * cores, the database and the load share one (BENCH_PG_CPU moves it). Knobs as `npm run bench` (BENCH_ROUNDS,
 * BENCH_DURATION, ...); BENCH_ONLY picks among these scenarios. Results: the tables on stdout, and
 * .bench/postgres.json.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { psql } from "../test/helpers/postgres";
import {
  cleanup,
  databaseOf,
  type LoadScenario,
  median,
  onPostgres,
  opts,
  postgresPids,
  ROOT,
  type Row,
  runLoad,
  startTandem,
  table,
} from "./harness";
import { FANOUT, type FanoutResult, fanout, liveChat } from "./realtime";
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
const picked = (name: string) => !opts.only || name.includes(opts.only);
const chosen = scenarios.filter(
  (s): s is LoadScenario => s.kind === "load" && NAMES.includes(s.name) && picked(s.name),
);
const onPg = (s: LoadScenario): LoadScenario => ({
  ...s,
  name: `${s.name} · PostgreSQL`,
  start: async () => {
    const server = await onPostgres(() => (s.start ? s.start() : startTandem()));
    // As autovacuum would within a minute or so: what the scenario seeded has its statistics before it is measured.
    psql(databaseOf(server) as string, "ANALYZE");
    return server;
  },
  relativeTo: s.relativeTo ? `${s.relativeTo} · PostgreSQL` : undefined,
  // The figures are compared in the table, not held to SQLite's targets.
  minRatio: undefined,
  maxP99Ms: undefined,
});
const FANOUT_NAME = `live events: chat post to ${FANOUT.sockets} sockets`;
type Runs = { paced: FanoutResult; sustained: FanoutResult }[];
const say = (s: string) => console.error(`bench: ${s}`);
process.on("SIGINT", () => void cleanup().then(() => process.exit(130)));

/**
 * The fan-out on one SQLite and one PostgreSQL server, in interleaved rounds. A row's req/s is the posts per
 * second sustained, its p50/p99 the delay at 20 posts/s; PostgreSQL's ratio is the median of the rounds' ratios
 * of sustained posts per second to SQLite's. The noise counts PostgreSQL as part of what is measured.
 */
async function fanoutRows(): Promise<Row[]> {
  const engines = [];
  for (const [name, start] of [
    ["SQLite", startTandem],
    ["PostgreSQL", () => onPostgres(startTandem)],
  ] as const) {
    const server = await start();
    engines.push({ name, server, chat: await liveChat(server), runs: [] as Runs });
  }
  for (let round = 1; round <= opts.rounds; round++) {
    for (const { chat, ...e } of engines) {
      const pids = [e.server.pid, ...postgresPids()];
      const run = async (load: Parameters<typeof fanout>[1]) =>
        fanout(await chat.sockets(FANOUT.sockets), load, chat.post, pids);
      const paced = await run(FANOUT.paced);
      const sustained = await run(FANOUT.sustained(opts.duration));
      e.runs.push({ paced, sustained });
      say(
        `round ${round}/${opts.rounds}  fan-out on ${e.name.padEnd(10)} paced p50 ${paced.p50.toFixed(1)} ms, p99 ` +
          `${paced.p99.toFixed(1)} ms; sustained ${sustained.postsPerSecond.toFixed(0)} posts/s ` +
          `(${sustained.deliveriesPerSecond.toFixed(0)} deliveries/s, p99 ${sustained.p99.toFixed(1)} ms), ` +
          `delivered ${paced.delivered + sustained.delivered}/${paced.expected + sustained.expected}`,
      );
    }
  }
  for (const e of engines) await e.server.stop();
  const [sqlite] = engines;
  return engines.map((e, i) => {
    const med = (f: (r: Runs[number]) => number) => median(e.runs.map(f));
    const lost = e.runs.reduce((n, r) => n + r.paced.expected - r.paced.delivered, 0);
    const lostSustained = e.runs.reduce((n, r) => n + r.sustained.expected - r.sustained.delivered, 0);
    return {
      scenario: i === 0 ? FANOUT_NAME : `${FANOUT_NAME} · ${e.name}`,
      rps: med((r) => r.sustained.postsPerSecond),
      p50_ms: med((r) => r.paced.p50),
      p99_ms: med((r) => r.paced.p99),
      ratio:
        i === 0
          ? undefined
          : median(e.runs.map((r, k) => r.sustained.postsPerSecond / sqlite!.runs[k]!.sustained.postsPerSecond)),
      measured:
        `sustained ${med((r) => r.sustained.deliveriesPerSecond).toFixed(0)} deliveries/s, p99 ` +
        `${med((r) => r.sustained.p99).toFixed(1)} ms; lost ${lost} at 20/s, ${lostSustained} sustained`,
      noise: Math.max(...e.runs.flatMap((r) => [r.paced.noise, r.sustained.noise])),
      target: i === 0 ? "baseline" : "info",
      pass: null,
      details: {
        sockets: FANOUT.sockets,
        paced: FANOUT.paced,
        sustained: FANOUT.sustained(opts.duration),
        runs: e.runs,
      },
    };
  });
}

try {
  const { rows } = chosen.length
    ? await runLoad(
        chosen.flatMap((s) => [s, onPg(s)]),
        say,
      )
    : { rows: [] };
  const live = picked(FANOUT_NAME) ? await fanoutRows() : [];
  if (rows.length) console.log(table(rows));
  if (live.length) console.log(`\n${table(live, { rate: "posts/s sustained", ratioTo: "SQLite" })}`);
  mkdirSync(join(ROOT, ".bench"), { recursive: true });
  writeFileSync(
    join(ROOT, ".bench/postgres.json"),
    JSON.stringify({ at: new Date().toISOString(), options: opts, rows: [...rows, ...live] }, null, 2),
  );
} finally {
  await cleanup();
}
