/**
 * Two builds side by side on the chat post, for changes smaller than the noise of `npm run bench`: both servers
 * run at once (pinned to the server core, loaded one at a time), and each cycle measures both back to back,
 * alternating which goes first. Prints each cycle and the medians of the per-cycle ratios B/A of requests per
 * second and of the server's CPU time per request.
 *
 *   bun bench/ab.ts <binary A> <binary B> [cycles=16] [seconds=3]
 *
 * The server started second has measured a few percent faster whatever it runs: run both orders.
 */
import { readFileSync } from "node:fs";
import { cleanup, lua, opts, type Server, startTandem, type WrkRequest, wrk } from "./harness";
import { space } from "./seed";

const [binA, binB, cyclesArg, secondsArg] = process.argv.slice(2);
if (!binA || !binB) {
  console.error("usage: bun bench/ab.ts <binary A> <binary B> [cycles] [seconds]");
  process.exit(2);
}
const cycles = Number(cyclesArg ?? 16);
const seconds = Number(secondsArg ?? 3);

interface Side {
  server: Server;
  req: WrkRequest;
}

async function start(bin: string): Promise<Side> {
  opts.bin = bin;
  const server = await startTandem();
  const s = await space(server, "a/b");
  const req = {
    path: `${s.base}/chat-rooms/${s.room}/messages`,
    headers: { authorization: `Bearer ${await server.token()}` },
    lua: `BODY = ${JSON.stringify('{"content":"hello from the bench, message %d"}')}\n${lua("post-json.lua")}`,
  };
  await wrk(server, req, 2); // warm-up
  return { server, req };
}

/** User and system CPU time of a process, in clock ticks (1/100 s). */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

const median = (v: number[]) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)] as number;

const a = await start(binA);
const b = await start(binB);
const rpsRatios: number[] = [];
const cpuRatios: number[] = [];
try {
  for (let i = 0; i < cycles; i++) {
    const measured = new Map<Side, { rps: number; cpuUs: number }>();
    for (const side of i % 2 ? [a, b] : [b, a]) {
      const before = cpuTicks(side.server.pid);
      const result = await wrk(side.server, side.req, seconds);
      measured.set(side, {
        rps: result.rps,
        cpuUs: ((cpuTicks(side.server.pid) - before) * 10_000) / result.requests,
      });
    }
    const ma = measured.get(a) as { rps: number; cpuUs: number };
    const mb = measured.get(b) as { rps: number; cpuUs: number };
    rpsRatios.push(mb.rps / ma.rps);
    cpuRatios.push(mb.cpuUs / ma.cpuUs);
    console.log(
      `cycle ${i + 1}/${cycles}: A ${ma.rps.toFixed(0)}/s ${ma.cpuUs.toFixed(1)} µs, B ${mb.rps.toFixed(0)}/s ${mb.cpuUs.toFixed(1)} µs`,
    );
  }
  console.log(
    `B/A: requests/s ${median(rpsRatios).toFixed(3)}, CPU per request ${median(cpuRatios).toFixed(3)} (medians of ${cycles} cycles)`,
  );
} finally {
  await a.server.stop();
  await b.server.stop();
  await cleanup();
}
