/**
 * Two builds side by side on one request, for changes smaller than the noise of `npm run bench`: both servers run
 * at once (pinned to the server core, loaded one at a time), and each cycle measures both back to back,
 * alternating which goes first. Prints each cycle, each build's medians of requests per second and of the
 * server's CPU time per request, and the medians of the per-cycle ratios B/A of both, with the noise of each cycle
 * (the CPU other processes and, as steal, other machines took: see the harness).
 *
 *   bun bench/ab.ts <binary A> <binary B> [me|post|inbox|move] [cycles=16] [seconds=3]
 *
 * `me` is `GET /api/v1/me`; `post` (the default) a chat post; `inbox` a chat post into a room of 200 members with
 * read state, one post in ten naming one of them (bench/inbox.ts); `move` a task move, `PATCH .../tasks/{id}` with a
 * `column_id` and a `position`, each request taking its task to the other of two columns (1,000 tasks). Before
 * measuring, each build must answer the request once with a 2xx; any run (the warm-up too) with a socket error
 * or an answer of 400 or more (wrk's counts, as in the harness) stops the comparison: a build that fails fast
 * would look fast. The server started second has measured a few percent faster whatever it runs: run both orders.
 */
import { readFileSync } from "node:fs";
import {
  cleanup,
  errorCount,
  luaWith,
  median,
  noiseOf,
  opts,
  pct,
  type Server,
  startTandem,
  type WrkRequest,
  wrk,
} from "./harness";
import { seedInboxRoom } from "./inbox";
import { api, space, times } from "./seed";

const USAGE = "usage: bun bench/ab.ts <binary A> <binary B> [me|post|inbox|move] [cycles=16] [seconds=3]";

/** A request to compare: seeds a fresh server, and gives wrk's request for a run after `sent` requests. */
type Scenario = (server: Server) => Promise<(sent: number) => Promise<WrkRequest>>;

const bearer = async (server: Server) => ({ authorization: `Bearer ${await server.token()}` });

const scenarios: Record<string, Scenario> = {
  async me(server) {
    await api(server, "GET", "/api/v1/me");
    return async () => ({ path: "/api/v1/me", headers: await bearer(server) });
  },

  async post(server) {
    const s = await space(server, "a/b");
    const path = `${s.base}/chat-rooms/${s.room}/messages`;
    await api(server, "POST", path, { content: "hello from the bench, before measuring" });
    const lua = luaWith("post-json.lua", { BODY: '{"content":"hello from the bench, message %d"}' });
    return async () => ({ path, headers: await bearer(server), lua });
  },

  async inbox(server) {
    const request = await seedInboxRoom(server);
    return () => request();
  },

  async move(server) {
    const s = await space(server, "a/b");
    const columns = s.columns.slice(0, 2);
    const ids: string[] = [];
    await times(1000, 16, async (i) => {
      ids.push((await api(server, "POST", `${s.base}/tasks`, { title: `task ${i}`, column_id: columns[0] })).id);
    });
    const prefix = `${s.base}/tasks/`;
    await api(server, "PATCH", `${prefix}${ids[0]}`, { column_id: columns[1], position: 0 });
    await api(server, "PATCH", `${prefix}${ids[0]}`, { column_id: columns[0], position: 0 });
    return async (sent) => ({
      path: prefix,
      headers: await bearer(server),
      lua: luaWith("move-column.lua", { PREFIX: prefix, IDS: ids, COLUMNS: columns, START: sent }),
    });
  },
};

const [binA, binB, scenarioArg = "post", cyclesArg, secondsArg] = process.argv.slice(2);
const scenario = Object.hasOwn(scenarios, scenarioArg) ? scenarios[scenarioArg] : undefined;
const cycles = Number(cyclesArg ?? 16);
const seconds = Number(secondsArg ?? 3);
const counts = (n: number) => Number.isInteger(n) && n >= 1;
if (!binA || !binB || !scenario || !counts(cycles) || !counts(seconds)) {
  console.error(USAGE);
  process.exit(2);
}

interface Side {
  name: string;
  server: Server;
  request: (sent: number) => Promise<WrkRequest>;
  /** Requests answered so far, warm-up included. */
  sent: number;
}

/** One wrk run of `side`; throws when any of its requests failed. */
async function run(side: Side, secs: number, what: string) {
  const result = await wrk(side.server, await side.request(side.sent), secs);
  side.sent += result.requests;
  if (errorCount(result) > 0 || result.requests === 0) {
    throw new Error(
      `${side.name}, ${what}: ${result.requests} requests, errors ${JSON.stringify(result.errors)} ` +
        "(status: answers of 400 or more); nothing compared",
    );
  }
  return result;
}

async function start(name: string, bin: string): Promise<Side> {
  opts.bin = bin;
  const server = await startTandem();
  const side = { name: `${name} (${bin})`, server, request: await (scenario as Scenario)(server), sent: 0 };
  await run(side, 2, "warm-up");
  return side;
}

/** User and system CPU time of a process, in clock ticks (1/100 s). */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

try {
  const a = await start("A", binA);
  const b = await start("B", binB);
  const perSide = new Map<Side, { rps: number[]; cpuUs: number[] }>([
    [a, { rps: [], cpuUs: [] }],
    [b, { rps: [], cpuUs: [] }],
  ]);
  const rpsRatios: number[] = [];
  const cpuRatios: number[] = [];
  const noise: number[] = [];
  for (let i = 0; i < cycles; i++) {
    const measured = new Map<Side, { rps: number; cpuUs: number }>();
    const runs = [];
    for (const side of i % 2 ? [a, b] : [b, a]) {
      const before = cpuTicks(side.server.pid);
      const result = await run(side, seconds, `cycle ${i + 1}`);
      runs.push(result);
      const m = { rps: result.rps, cpuUs: ((cpuTicks(side.server.pid) - before) * 10_000) / result.requests };
      measured.set(side, m);
      perSide.get(side)?.rps.push(m.rps);
      perSide.get(side)?.cpuUs.push(m.cpuUs);
    }
    const ma = measured.get(a) as { rps: number; cpuUs: number };
    const mb = measured.get(b) as { rps: number; cpuUs: number };
    rpsRatios.push(mb.rps / ma.rps);
    cpuRatios.push(mb.cpuUs / ma.cpuUs);
    noise.push(noiseOf(runs));
    console.log(
      `cycle ${i + 1}/${cycles}: A ${ma.rps.toFixed(0)}/s ${ma.cpuUs.toFixed(1)} µs, B ${mb.rps.toFixed(0)}/s ` +
        `${mb.cpuUs.toFixed(1)} µs, noise ${pct(noiseOf(runs))}`,
    );
  }
  const summary = (side: Side) => {
    const m = perSide.get(side) as { rps: number[]; cpuUs: number[] };
    return `${median(m.rps).toFixed(0)}/s, ${median(m.cpuUs).toFixed(1)} µs`;
  };
  console.log(
    `${scenarioArg}: A ${summary(a)}; B ${summary(b)} (medians); noise ${pct(median(noise))} median, ` +
      `${pct(Math.max(...noise))} at most`,
  );
  console.log(
    `B/A: requests/s ${median(rpsRatios).toFixed(3)}, CPU per request ${median(cpuRatios).toFixed(3)} (medians of ${cycles} cycles)`,
  );
} finally {
  await cleanup();
}
