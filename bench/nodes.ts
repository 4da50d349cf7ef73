/**
 * `npm run bench:nodes`: two `tandem serve` nodes on one PostgreSQL database against one node, for reads and for
 * live-event sockets: how close two nodes come to twice one.
 *
 * Two installs on the bench's PostgreSQL cluster, a database each: one node alone, on BENCH_SERVER_CPU; and two
 * nodes (a data dir each, the same database and secrets), the first on BENCH_SERVER_CPU, the second on
 * BENCH_NODE2_CPU. Both layouts get the same load, in interleaved rounds whose order alternates:
 * - reads: two wrk processes (wrk takes one host), one per node (both on the node alone), each with
 *   BENCH_CONNECTIONS connections, for GET /api/v1/me (nothing on its path reads the database) and for 50 older
 *   messages of a room of 10,000 (read from the database every time); their requests per second added; p50 the
 *   mean of the two, p99 the worse.
 * - sockets: the fan-out of bench/realtime.ts: 100 live-event sockets split evenly between the nodes, posts through
 *   the first node; the delay at 20 posts/s (p50, p99), and the deliveries per second one writer sustains.
 * Each row also gives the CPU time of the nodes and of PostgreSQL per request (per delivery), and how busy each
 * was: a layout that does more work per request reads apart from one that lacks cores.
 *
 * On a machine of two cores (the defaults) this cannot show scaling. Node 1 has core 0; node 2 shares core 1 with
 * PostgreSQL, wrk and the sockets' clients, which the one-node layout also puts on core 1. Two nodes then get
 * the part of core 1 that the database and the load leave over, and the ratio says how much that is, not what a
 * second machine would give. Given more cores, give each its own, e.g. BENCH_SERVER_CPU=0 BENCH_NODE2_CPU=1
 * BENCH_PG_CPU=2-3 BENCH_WRK_CPU=4-7 BENCH_THREADS=2: then a ratio of 2 is two nodes doing twice the work of one
 * on one shared database, and less is what sharing it costs.
 *
 * Other knobs as `npm run bench` (BENCH_ROUNDS, BENCH_DURATION, BENCH_WARMUP, BENCH_RETRIES, ...); BENCH_ONLY
 * picks among "GET /api/v1/me", "GET 50 older chat messages" and "live events". Results: the tables on stdout, and
 * .bench/nodes.json.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { psql } from "../test/helpers/postgres";
import {
  cleanup,
  cpuMeter,
  databaseOf,
  errorCount,
  median,
  onPostgres,
  opts,
  pct,
  postgresPids,
  ROOT,
  type Row,
  type Server,
  startNode,
  startTandem,
  table,
  waitQuiet,
  wrk,
} from "./harness";
import { FANOUT, type FanoutResult, fanout, liveChat } from "./realtime";
import { api, space, times } from "./seed";

const say = (s: string) => console.error(`bench: ${s}`);
function fail(message: string): never {
  say(message);
  process.exit(1);
}
for (const tool of ["wrk", "taskset"]) if (!Bun.which(tool)) fail(`${tool} is not installed`);
if (!existsSync(opts.bin)) fail(`${opts.bin} is missing: run ./install.sh`);
// The harness (the sockets' clients, the writer) stays on the load's cores.
Bun.spawnSync(["taskset", "-a", "-cp", opts.wrkCpu, String(process.pid)]);
process.on("SIGINT", () => void cleanup().then(() => process.exit(130)));

const ROOM = 10_000;

/**
 * One install: its nodes, a page of older messages of a room of `ROOM` (the newest page is kept serialized in
 * memory; an older one is read from the database every time), and the chat the sockets hear.
 */
interface Layout {
  name: string;
  nodes: Server[];
  messages: string;
  chat: Awaited<ReturnType<typeof liveChat>>;
}

/** An install of `nodes` nodes on a database of its own, seeded through the first. */
async function install(name: string, nodes: 1 | 2): Promise<Layout> {
  const first = await onPostgres(() => startTandem());
  const all = nodes === 2 ? [first, await startNode(first, opts.node2Cpu)] : [first];
  const s = await space(first, "reads");
  const room = `${s.base}/chat-rooms/${s.room}/messages`;
  let middle = "";
  await times(ROOM, 32, async (i) => {
    const { message } = await api(first, "POST", room, { content: `message ${i} of a long conversation` });
    if (i === ROOM / 2) middle = message.created_at;
  });
  // As autovacuum would within a minute or so: without statistics the page's plan cost PostgreSQL about ten times
  // the CPU, and whether it had run yet made one install measure ten times the other.
  psql(databaseOf(first) as string, "ANALYZE");
  return {
    name,
    nodes: all,
    messages: `${room}?limit=50&before=${encodeURIComponent(middle)}`,
    chat: await liveChat(first),
  };
}

/** One layout's figures in one round. `count` requests (or deliveries) in `seconds`; CPU seconds used meanwhile. */
interface Sample {
  rate: number;
  p50: number;
  p99: number;
  count: number;
  seconds: number;
  nodes: number[];
  postgres: number;
  noise: number;
  /** Errors and non-2xx answers, or events not delivered. */
  failed: number;
  /** The sockets' sustained run: posts per second and its p99 delay. */
  posts?: { rate: number; p99: number };
}

/** Two wrk processes at once, one per node of the layout (both at the one node alone). */
async function reads(layout: Layout, path: string, seconds: number): Promise<Sample> {
  const headers = { Authorization: `Bearer ${await layout.nodes[0]!.token()}` };
  await waitQuiet();
  const meter = cpuMeter([...layout.nodes.map((n) => n.pid), ...postgresPids()]);
  const runs = await Promise.all(
    [0, 1].map((k) => wrk(layout.nodes[k % layout.nodes.length]!, { path, headers }, seconds)),
  );
  const used = meter(runs.reduce((sum, r) => sum + r.load_cpu, 0));
  return {
    rate: runs.reduce((sum, r) => sum + r.rps, 0),
    p50: (runs[0]!.latency_ms.p50 + runs[1]!.latency_ms.p50) / 2,
    p99: Math.max(...runs.map((r) => r.latency_ms.p99)),
    count: runs.reduce((sum, r) => sum + r.requests, 0),
    seconds: used.seconds,
    nodes: used.used.slice(0, layout.nodes.length),
    postgres: used.used.slice(layout.nodes.length).reduce((a, b) => a + b, 0),
    noise: used.foreign + used.steal,
    failed: runs.reduce((sum, r) => sum + errorCount(r), 0),
  };
}

/** The fan-out with socket `i` on node `i mod nodes`, posts through the first node: paced, then sustained. */
async function sockets(layout: Layout, seconds: number): Promise<Sample> {
  const run = async (load: Parameters<typeof fanout>[1]) =>
    fanout(
      await layout.chat.sockets(FANOUT.sockets, (i) => layout.nodes[i % layout.nodes.length]!),
      load,
      (n) => layout.chat.post(n),
      [...layout.nodes.map((n) => n.pid), ...postgresPids()],
    );
  const paced = await run(FANOUT.paced);
  const sustained: FanoutResult = await run(FANOUT.sustained(seconds));
  return {
    rate: sustained.deliveriesPerSecond,
    p50: paced.p50,
    p99: paced.p99,
    count: sustained.delivered,
    seconds: sustained.delivered / sustained.deliveriesPerSecond,
    nodes: sustained.cpu.slice(0, layout.nodes.length),
    postgres: sustained.cpu.slice(layout.nodes.length).reduce((a, b) => a + b, 0),
    noise: Math.max(paced.noise, sustained.noise),
    failed: paced.expected - paced.delivered + sustained.expected - sustained.delivered,
    posts: { rate: sustained.postsPerSecond, p99: sustained.p99 },
  };
}

/** Runs `measure` again (BENCH_RETRIES times at most) while others took more than 10% of the CPUs; the quietest. */
async function quietest(measure: () => Promise<Sample>): Promise<Sample> {
  let kept = await measure();
  for (let retry = 0; retry < opts.retries && kept.noise > 0.1; retry++) {
    say(`noisy (${pct(kept.noise)}): measuring again`);
    const again = await measure();
    if (again.noise < kept.noise) kept = again;
  }
  return kept;
}

interface Measure {
  name: string;
  unit: "requests" | "deliveries";
  run: (layout: Layout, seconds: number) => Promise<Sample>;
}

const all: Measure[] = [
  { name: "GET /api/v1/me", unit: "requests", run: (l, seconds) => reads(l, "/api/v1/me", seconds) },
  {
    name: `GET 50 older chat messages (room of ${ROOM.toLocaleString("en")})`,
    unit: "requests",
    run: (l, seconds) => reads(l, l.messages, seconds),
  },
  { name: `live events: chat post to ${FANOUT.sockets} sockets`, unit: "deliveries", run: sockets },
];
const MEASURES = all.filter((m) => !opts.only || m.name.includes(opts.only));

/** A layout's row of one measure; the two nodes' ratio is the median of the rounds' ratios to the node alone. */
function row(m: Measure, layout: Layout, samples: Sample[], alone?: Sample[]): Row {
  const med = (f: (s: Sample) => number) => median(samples.map(f));
  const us = (cpu: (s: Sample) => number) => `${med((s) => (cpu(s) / s.count) * 1e6).toFixed(1)} µs`;
  const busy = layout.nodes.map((_, i) => `node ${i + 1} ${pct(med((s) => s.nodes[i]! / s.seconds))}`);
  const failed = samples.reduce((n, s) => n + s.failed, 0);
  const sustained = samples[0]?.posts
    ? `sustained ${med((s) => s.posts!.rate).toFixed(0)} posts/s, p99 ${med((s) => s.posts!.p99).toFixed(1)} ms; `
    : "";
  return {
    scenario: `${m.name} · ${layout.name}`,
    rps: med((s) => s.rate),
    p50_ms: med((s) => s.p50),
    p99_ms: med((s) => s.p99),
    ratio: alone ? median(samples.map((s, k) => s.rate / alone[k]!.rate)) : undefined,
    measured:
      `${sustained}CPU per ${m.unit === "requests" ? "request" : "delivery"}: nodes ` +
      `${us((s) => s.nodes.reduce((a, b) => a + b, 0))}, PostgreSQL ${us((s) => s.postgres)}; ` +
      `busy: ${busy.join(", ")}, PostgreSQL ${pct(med((s) => s.postgres / s.seconds))} of a core` +
      (failed ? `; ${failed} ${m.unit === "requests" ? "errors/non-2xx" : "not delivered"}` : ""),
    noise: Math.max(...samples.map((s) => s.noise)),
    target: alone ? "info: 2 is twice one node" : "baseline",
    pass: failed > 0 ? false : null,
    details: { rounds: samples },
  };
}

say(
  `${cpus().length} × ${cpus()[0]?.model}; node 1 on cpu ${opts.serverCpu}, node 2 on cpu ${opts.node2Cpu}, ` +
    `PostgreSQL on cpu ${opts.pgCpu}, wrk and the sockets' clients on cpu ${opts.wrkCpu}`,
);
say(
  `${opts.rounds} rounds × ${opts.duration} s, 2 × wrk -t${opts.threads} -c${opts.connections}, warm-up ${opts.warmup} s`,
);
try {
  say(`seeding: a room of ${ROOM} messages on each install`);
  const layouts = [await install("one node", 1), await install("two nodes", 2)];
  if (opts.warmup > 0) {
    for (const m of MEASURES.filter((m) => m.unit === "requests")) for (const l of layouts) await m.run(l, opts.warmup);
  }
  const samples = MEASURES.map(() => layouts.map(() => [] as Sample[]));
  for (let round = 1; round <= opts.rounds; round++) {
    const order = round % 2 ? [0, 1] : [1, 0];
    for (const [i, m] of MEASURES.entries()) {
      for (const k of order) {
        const s = await quietest(() => m.run(layouts[k]!, opts.duration));
        samples[i]![k]![round - 1] = s;
        say(
          `round ${round}/${opts.rounds}  ${m.name} · ${layouts[k]!.name}: ${s.rate.toFixed(0)} ${m.unit}/s, ` +
            `p99 ${s.p99.toFixed(2)} ms, noise ${pct(s.noise)}${s.failed ? `, ${s.failed} failed` : ""}`,
        );
      }
    }
  }
  const rowsOf = (unit: Measure["unit"]) =>
    MEASURES.flatMap((m, i) =>
      m.unit !== unit ? [] : layouts.map((l, k) => row(m, l, samples[i]![k]!, k ? samples[i]![0] : undefined)),
    );
  const readRows = rowsOf("requests");
  const socketRows = rowsOf("deliveries");
  if (readRows.length) console.log(table(readRows, { ratioTo: "one node" }));
  if (socketRows.length) {
    console.log(`\n${table(socketRows, { rate: "deliveries/s sustained", ratioTo: "one node" })}`);
  }
  mkdirSync(join(ROOT, ".bench"), { recursive: true });
  writeFileSync(
    join(ROOT, ".bench/nodes.json"),
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        machine: { cpus: cpus().length, model: cpus()[0]?.model },
        options: opts,
        rows: [...readRows, ...socketRows],
      },
      null,
      2,
    )}\n`,
  );
} finally {
  await cleanup();
}
