/**
 * Staff replies, against a loopback fake gateway run by this harness (on the load core) that answers every
 * completion in 200 ms:
 * - 100 mentions posted at once: the time from the first post to the 100th `ai.reply.finished`, as a ratio to
 *   the ideal 100 × 200 ms / TANDEM_STAFF_WORKERS (8 by default). Target: at most 1.5.
 * - A chat post that mentions staff (and so stores a 💭 and a reply job with it) against a plain post: wrk
 *   rounds on two servers, interleaved. While the plain post is measured the fake holds its answers, so the
 *   other server's reply workers wait idle instead of taking the server core; while the mention post is
 *   measured they run, as they would. With one client, the time a post takes: target p50 at most 1.2 × the
 *   plain post's ("not slower by more than 20%"), the median of the rounds' ratios, in 3 × BENCH_ROUNDS rounds
 *   of BENCH_DURATION / 3 seconds; saturated, the throughput ratio, for information.
 */
import {
  errorCount,
  luaWith,
  median,
  noiseOf,
  opts,
  type ProbeScenario,
  type Row,
  type Server,
  startTandem,
  type WrkResult,
  waitQuiet,
  wrk,
} from "./harness";
import { api, space, times } from "./seed";

const ANSWER_MS = 200;
const WORKERS = 8;

/** A fake gateway: answers after ANSWER_MS, or holds every answer while `held`. */
function fakeGateway() {
  let release = Promise.withResolvers<void>();
  let held = false;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      await req.arrayBuffer();
      while (held) await release.promise;
      await Bun.sleep(ANSWER_MS);
      return Response.json({
        choices: [{ message: { role: "assistant", content: "Here is my answer." } }],
        usage: { prompt_tokens: 50, completion_tokens: 5 },
      });
    },
  });
  return {
    env: { MODELROUTER_API_BASE_URL: `http://127.0.0.1:${server.port}`, TANDEM_STAFF_WORKERS: String(WORKERS) },
    hold() {
      held = true;
    },
    answer() {
      held = false;
      release.resolve();
      release = Promise.withResolvers<void>();
    },
    stop: () => server.stop(true),
  };
}

type Gateway = ReturnType<typeof fakeGateway>;

/** A server with a gateway key and a staff member named Ada; its space's room. */
async function staffServer(gateway: Gateway) {
  const server = await startTandem(undefined, gateway.env);
  const s = await space(server, "staff");
  await api(server, "PUT", `/api/v1/organizations/${s.org}/integrations/modelrouter`, { api_key: "bench-key" });
  await api(server, "POST", `/api/v1/organizations/${s.org}/service-accounts`, { name: "Ada" });
  return { server, s, room: `${s.base}/chat-rooms/${s.room}/messages` };
}

const mentions: ProbeScenario = {
  kind: "probe",
  name: "staff: 100 mentions, gateway answering in 200 ms",
  async run(): Promise<Row> {
    const gateway = fakeGateway();
    const { server, s, room } = await staffServer(gateway);
    try {
      const events = `/api/v1/organizations/${s.org}/ws?token=${await server.token()}`;
      const ws = new WebSocket(server.url.replace(/^http/, "ws") + events);
      await new Promise<void>((resolve, reject) => {
        ws.onopen = () => resolve();
        ws.onerror = () => reject(new Error("events socket did not open"));
      });
      const done = Promise.withResolvers<number>();
      let finished = 0;
      let failed = 0;
      ws.onmessage = (event) => {
        const type = JSON.parse(String(event.data)).type as string;
        if (type === "ai.reply.finished") finished++;
        if (type === "ai.reply.failed") failed++;
        if (finished + failed === 100) done.resolve(performance.now());
      };
      await waitQuiet();
      const started = performance.now();
      await times(100, 100, (i) => api(server, "POST", room, { content: `@Ada question number ${i}?` }));
      const last = await Promise.race([done.promise, Bun.sleep(120_000).then(() => Number.NaN)]);
      ws.close();
      const elapsed = last - started;
      const ideal = (100 * ANSWER_MS) / WORKERS;
      const ratio = elapsed / ideal;
      return {
        scenario: this.name,
        ratio,
        measured: `last reply after ${(elapsed / 1000).toFixed(2)} s; ideal ${(ideal / 1000).toFixed(2)} s (${WORKERS} workers)${failed ? `; ${failed} failed` : ""}`,
        target: "time / ideal <= 1.5",
        pass: ratio <= 1.5 && failed === 0,
        details: { elapsed_ms: elapsed, ideal_ms: ideal, finished, failed },
      };
    } finally {
      await server.stop();
      gateway.stop();
    }
  },
};

/**
 * Both posts measured in interleaved rounds (the first one warms up), with `connections` clients: `rounds`
 * rounds of `seconds` each.
 */
async function comparePosts(connections: number, rounds = opts.rounds, seconds = opts.duration) {
  const gateway = fakeGateway();
  const plain = await staffServer(gateway);
  const mention = await staffServer(gateway);
  const request = async (target: { server: Server; room: string }, content: string) => ({
    path: target.room,
    headers: { Authorization: `Bearer ${await target.server.token()}` },
    lua: luaWith("post-json.lua", { BODY: JSON.stringify({ content }) }),
  });
  const plainRuns: WrkResult[] = [];
  const mentionRuns: WrkResult[] = [];
  try {
    for (let round = 0; round <= rounds; round++) {
      gateway.hold();
      await waitQuiet();
      const a = await wrk(plain.server, await request(plain, "hello from the bench, message %d"), seconds, connections);
      gateway.answer();
      await waitQuiet();
      const b = await wrk(
        mention.server,
        await request(mention, "@Ada hello from the bench, message %d"),
        seconds,
        connections,
      );
      if (round === 0) continue;
      plainRuns.push(a);
      mentionRuns.push(b);
    }
  } finally {
    gateway.answer();
    await plain.server.stop();
    await mention.server.stop();
    gateway.stop();
  }
  const errors = [...plainRuns, ...mentionRuns].reduce((n, r) => n + errorCount(r), 0);
  return { plainRuns, mentionRuns, errors };
}

const mentionLatency: ProbeScenario = {
  kind: "probe",
  name: "staff: chat post mentioning staff vs plain, one client",
  async run(): Promise<Row> {
    // One client's p50 drifts by more than the gap measured between rounds of a few seconds: three times the
    // rounds, a third as long each (the same time in all), put the two servers' rounds closer together.
    const { plainRuns, mentionRuns, errors } = await comparePosts(
      1,
      opts.rounds * 3,
      Math.max(1, Math.round(opts.duration / 3)),
    );
    const p50 = (runs: WrkResult[]) => median(runs.map((r) => r.latency_ms.p50));
    const p99 = (runs: WrkResult[]) => median(runs.map((r) => r.latency_ms.p99));
    const ratios = mentionRuns.map((r, i) => r.latency_ms.p50 / (plainRuns[i] as WrkResult).latency_ms.p50);
    const slower = median(ratios);
    return {
      scenario: this.name,
      rps: median(mentionRuns.map((r) => r.rps)),
      p50_ms: p50(mentionRuns),
      p99_ms: p99(mentionRuns),
      noise: noiseOf([...plainRuns, ...mentionRuns]),
      ratio: slower,
      measured:
        `p50 ${p50(mentionRuns).toFixed(3)} vs ${p50(plainRuns).toFixed(3)} ms, ` +
        `p99 ${p99(mentionRuns).toFixed(3)} vs ${p99(plainRuns).toFixed(3)} ms; ` +
        `rounds ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}${errors ? `, ${errors} errors` : ""}`,
      target: "p50 at most 1.2 × the plain post's",
      pass: slower <= 1.2 && errors === 0,
      details: { plain: plainRuns, mention: mentionRuns },
    };
  },
};

const mentionThroughput: ProbeScenario = {
  kind: "probe",
  name: "staff: chat post mentioning staff vs plain, saturated",
  async run(): Promise<Row> {
    const { plainRuns, mentionRuns, errors } = await comparePosts(opts.connections);
    const ratio = median(mentionRuns.map((r, i) => r.rps / (plainRuns[i] as WrkResult).rps));
    const rps = (runs: WrkResult[]) => median(runs.map((r) => r.rps));
    return {
      scenario: this.name,
      rps: rps(mentionRuns),
      p99_ms: median(mentionRuns.map((r) => r.latency_ms.p99)),
      noise: noiseOf([...plainRuns, ...mentionRuns]),
      ratio,
      measured: `${rps(mentionRuns).toFixed(0)} vs ${rps(plainRuns).toFixed(0)} req/s${errors ? `, ${errors} errors` : ""}`,
      target: "info: throughput ratio to the plain post",
      pass: errors === 0 ? null : false,
      details: { plain: plainRuns, mention: mentionRuns },
    };
  },
};

export const staff = [mentions, mentionLatency, mentionThroughput];
