/**
 * Real-time probes: editors relaying through a document, chat posts reaching live-event sockets, and the memory
 * of open documents and idle sockets. Each throughput and delay is measured against the WebSocket yardstick
 * (bench/bare-ws.ts) in the same run. The clients run in this harness process, on the load core.
 *
 * Editors do not run a Y.Doc each on the receiving side (fifty of them would measure this process, not the
 * server): each sends real Yjs updates, generated before the clock starts, whose inserted text carries a
 * marker `#client.seq#`; a receiver finds the markers in the frames it gets, so batched or merged updates
 * count too.
 */
import * as Y from "yjs";
import { carriesText, connect, forEachMarker, percentile, updateFrame } from "./collab-client";
import type { ClientReport, ClientRequest } from "./fanout.worker";
import {
  cpuMeter,
  login,
  memory,
  mib,
  opts,
  type ProbeScenario,
  type Server,
  startBareWs,
  startTandem,
  waitQuiet,
} from "./harness";
import { api, memberAccounts, members, space, times } from "./seed";

export const wsUrl = (server: Server, path: string) => server.url.replace(/^http/, "ws") + path;

/** `count` updates of one editor, each appending `#client.seq#` to its own text. */
function editorUpdates(client: number, count: number): Uint8Array[] {
  const doc = new Y.Doc();
  const text = doc.getText("content");
  const frames: Uint8Array[] = [];
  doc.on("update", (update: Uint8Array) => frames.push(updateFrame(update)));
  for (let seq = 0; seq < count; seq++) text.insert(text.length, `#${client}.${seq}# `);
  doc.destroy();
  return frames;
}

export interface RelayResult {
  sent: number;
  /** Deliveries expected (each update to every other editor) and received. */
  expected: number;
  delivered: number;
  p50: number;
  p99: number;
  /** Updates per second relayed to all other editors. */
  relayedPerSecond: number;
}

/**
 * `editors` sockets on one document; each sends `rate` updates per second for `seconds`. Measures the delay
 * from an update's send to each other editor's receipt of it.
 */
export async function relay(
  urls: (client: number) => string,
  editors: number,
  rate: number,
  seconds: number,
): Promise<RelayResult> {
  const perClient = rate * seconds;
  const frames = Array.from({ length: editors }, (_, c) => editorUpdates(c, perClient));
  const sentAt = Array.from({ length: editors }, () => new Float64Array(perClient));
  const delays = new Float64Array(editors * (editors - 1) * perClient);
  let delivered = 0;
  let lastDelivery = 0;
  const sockets: WebSocket[] = [];
  for (let c = 0; c < editors; c++) {
    sockets.push(
      await connect(urls(c), (data) => {
        const now = performance.now();
        if (!carriesText(data, 0)) return;
        forEachMarker(data, (from, seq) => {
          if (from === c) return;
          const at = sentAt[from]?.[seq];
          if (!at) return;
          delays[delivered++] = now - at;
          lastDelivery = now;
        });
      }),
    );
  }
  await Bun.sleep(300);
  await waitQuiet();
  const start = performance.now();
  const interval = 1000 / rate;
  let next = 0;
  // Open loop: update k of every editor is due at start + k * interval, editors staggered across the interval.
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (next < perClient * editors) {
        const seq = Math.floor(next / editors);
        const client = next % editors;
        const due = start + seq * interval + (client * interval) / editors;
        if (due > now) break;
        (sentAt[client] as Float64Array)[seq] = performance.now();
        (sockets[client] as WebSocket).send(frames[client]?.[seq] as Uint8Array<ArrayBuffer>);
        next++;
      }
      if (next < perClient * editors) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  const expected = editors * (editors - 1) * perClient;
  const drainUntil = performance.now() + 5000;
  while (delivered < expected && performance.now() < drainUntil) await Bun.sleep(10);
  for (const ws of sockets) ws.close();
  const sorted = delays.slice(0, delivered).sort();
  const elapsed = (lastDelivery - start) / 1000;
  return {
    sent: perClient * editors,
    expected,
    delivered,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    relayedPerSecond: delivered / (editors - 1) / elapsed,
  };
}

/** A new space with one empty text file: the path of the file's editing socket, with the bench admin's token. */
export async function collabPath(server: Server, spaceName = "editors"): Promise<string> {
  const s = await space(server, spaceName);
  const file = await api(server, "POST", `${s.base}/files/text`, { name: "together.md", content: "" });
  const token = await server.token();
  return `${s.base}/files/collab/ws/${file.node.id}?token=${token}`;
}

/** Tandem with a space and one empty text file: the collab URL of each editor. */
async function tandemDocument(server: Server): Promise<(client: number) => string> {
  const path = await collabPath(server);
  return () => wsUrl(server, path);
}

const EDITORS = 50;
const LOADS = [
  { name: "typing", rate: 10 },
  { name: "busy", rate: 40 },
];

/** 50 editors on one document, at a typing load and a busy one, against the bare relay. */
export const editors: ProbeScenario = {
  kind: "probe",
  name: "collab: 50 editors on one document",
  async run() {
    const seconds = 5;
    const tandem = await startTandem();
    const bare = await startBareWs();
    const tandemUrl = await tandemDocument(tandem);
    const runs: Record<string, { tandem: RelayResult; bare: RelayResult }> = {};
    try {
      for (const load of LOADS) {
        const b = await relay(() => wsUrl(bare, `/relay/${load.name}`), EDITORS, load.rate, seconds);
        const t = await relay(tandemUrl, EDITORS, load.rate, seconds);
        runs[load.name] = { tandem: t, bare: b };
      }
    } finally {
      await tandem.stop();
      await bare.stop();
    }
    const worst = Math.max(...Object.values(runs).map((r) => r.tandem.p99));
    const lost = Object.values(runs).some((r) => r.tandem.delivered < r.tandem.expected);
    const busy = runs.busy as { tandem: RelayResult; bare: RelayResult };
    const describe = (name: string, r: { tandem: RelayResult; bare: RelayResult }) =>
      `${name} ${r.tandem.relayedPerSecond.toFixed(0)} updates/s relayed, p99 ${r.tandem.p99.toFixed(1)} ms ` +
      `(bare ${r.bare.relayedPerSecond.toFixed(0)}/s, p99 ${r.bare.p99.toFixed(1)} ms)`;
    return {
      scenario: this.name,
      rps: busy.tandem.relayedPerSecond,
      p50_ms: busy.tandem.p50,
      p99_ms: busy.tandem.p99,
      ratio: busy.tandem.relayedPerSecond / busy.bare.relayedPerSecond,
      measured: Object.entries(runs)
        .map(([name, r]) => describe(name, r))
        .join("; "),
      target: "p99 < 50 ms at both loads, nothing lost",
      pass: worst < 50 && !lost,
      details: { editors: EDITORS, seconds, loads: LOADS, runs },
    };
  },
};

/** Chat posts reaching 100 live-event sockets, against the bare broadcaster. */
export const chatFanout: ProbeScenario = {
  kind: "probe",
  name: "live events: chat post to 100 sockets",
  async run() {
    const tandem = await startTandem();
    const bare = await startBareWs();
    try {
      const chat = await liveChat(tandem);
      const t = await fanout(await chat.sockets(FANOUT.sockets), FANOUT.paced, chat.post, [tandem.pid]);
      const b = await fanout(
        Array.from({ length: FANOUT.sockets }, () => wsUrl(bare, "/events")),
        FANOUT.paced,
        (n) =>
          fetch(`${bare.url}/publish`, {
            method: "POST",
            body: JSON.stringify({ type: "chat.message.created", payload: { message: { content: `post #${n}` } } }),
          }),
      );
      return {
        scenario: this.name,
        p50_ms: t.p50,
        p99_ms: t.p99,
        noise: t.noise,
        measured: `${t.delivered}/${t.expected} delivered, p99 ${t.p99.toFixed(1)} ms (bare p99 ${b.p99.toFixed(1)} ms)`,
        target: "p99 < 50 ms, nothing lost",
        pass: t.p99 < 50 && t.delivered === t.expected,
        details: {
          sockets: FANOUT.sockets,
          posts: FANOUT.paced.posts,
          rate_per_s: FANOUT.paced.rate,
          tandem: t,
          bare: b,
        },
      };
    } finally {
      await tandem.stop();
      await bare.stop();
    }
  },
};

/**
 * The live-event fan-out of the probes (here, bench/postgres.ts, bench/nodes.ts): 100 sockets of the organization;
 * at a steady pace, 200 posts at 20/s; sustained, one writer posting back to back with 16 posts in flight, so that
 * the server's work sets the pace rather than one round trip after another.
 */
export const FANOUT = {
  sockets: 100,
  paced: { posts: 200, rate: 20 },
  sustained: (seconds: number) => ({ seconds, inFlight: 16 }),
};

/**
 * A space of `server`'s organization to post to, and four members to hold the live-event sockets (a person may
 * hold 50). `sockets(n, nodeOf)` gives the URLs of `n` sockets, socket `i` on node `nodeOf(i)` of the install
 * (`server` unless told), each member signed in again once their token is ten minutes old; `post(n)` posts
 * message `n` as the bench admin through `node`.
 */
export async function liveChat(server: Server) {
  const s = await space(server, "fan-out");
  const people = (await memberAccounts(server, 4)).map((m) => ({ ...m, at: performance.now() }));
  const path = `${s.base}/chat-rooms/${s.room}/messages`;
  return {
    async sockets(n: number, nodeOf: (i: number) => Server = () => server): Promise<string[]> {
      for (const p of people) {
        if (performance.now() - p.at > 600_000)
          Object.assign(p, { token: await login(server.url, p), at: performance.now() });
      }
      return Array.from({ length: n }, (_, i) =>
        wsUrl(nodeOf(i), `/api/v1/organizations/${s.org}/ws?token=${people[i % people.length]?.token}`),
      );
    },
    post: async (n: number, node = server) =>
      fetch(`${node.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${await server.token()}`, "content-type": "application/json" },
        body: JSON.stringify({ content: `post #${n}` }),
      }),
  };
}

/**
 * How one writer posts: `posts` posts at `rate` per second (the delay at a steady pace), or for `seconds` back to
 * back, `inFlight` at once (what the server sustains).
 */
export type FanoutLoad = { posts: number; rate: number } | { seconds: number; inFlight: number };

export interface FanoutResult {
  posts: number;
  /** Deliveries expected (every post to every socket) and received. */
  expected: number;
  delivered: number;
  /** The delay from a post's send to a socket's receipt of its event, ms. */
  p50: number;
  p99: number;
  /** Per second, from the first send to the last delivery. */
  postsPerSecond: number;
  deliveriesPerSecond: number;
  /** CPU seconds each of the processes named used meanwhile (the servers, the database), and the clients. */
  cpu: number[];
  clientCpu: number;
  /** What other processes and other machines (steal) took meanwhile, as a share of every core. */
  noise: number;
}

/**
 * Opens a live-event socket at each of `urls`, posts by `load`, and measures the delay from each post's send to
 * each socket's receipt of its event, and the CPU `pids` use meanwhile. The sockets' clients run on BENCH_THREADS
 * threads of this process (bench/fanout.worker.ts), the posts on its main thread.
 */
export async function fanout(
  urls: string[],
  load: FanoutLoad,
  post: (n: number) => Promise<Response>,
  pids: number[] = [],
): Promise<FanoutResult> {
  const clients = Array.from({ length: Math.max(1, Math.min(opts.threads, urls.length)) }, clientThread);
  const ask = async (request: ClientRequest | ((k: number) => ClientRequest)) => {
    const reports = await Promise.all(
      clients.map((c, k) => c.ask(typeof request === "function" ? request(k) : request)),
    );
    for (const r of reports) if (r.type === "failed") throw new Error(r.message);
    return reports;
  };
  try {
    await ask((k) => ({ type: "open", urls: urls.filter((_, i) => i % clients.length === k) }));
    await Bun.sleep(300);
    await waitQuiet();
    const sentAt: number[] = [];
    const meter = cpuMeter(pids);
    const start = clock();
    const send = async (n: number) => {
      sentAt[n] = clock();
      const answer = await post(n);
      if (!answer.ok) throw new Error(`post ${n} failed: ${answer.status} ${await answer.text()}`);
      await answer.arrayBuffer();
    };
    if ("rate" in load) {
      const pending: Promise<void>[] = [];
      for (let n = 0; n < load.posts; n++) {
        const wait = start + (n * 1000) / load.rate - clock();
        if (wait > 0) await Bun.sleep(wait);
        pending.push(send(n));
      }
      await Promise.all(pending);
    } else {
      const until = start + load.seconds * 1000;
      let next = 0;
      await Promise.all(
        Array.from({ length: load.inFlight }, async () => {
          while (clock() < until) await send(next++);
        }),
      );
    }
    const posts = sentAt.length;
    const expected = urls.length * posts;
    const drainUntil = clock() + 5000;
    const count = async () =>
      (await ask({ type: "count" })).reduce((n, r) => n + (r.type === "count" ? r.count : 0), 0);
    while ((await count()) < expected && clock() < drainUntil) await Bun.sleep(10);
    const used = meter();
    const delays: number[] = [];
    let lastDelivery = start;
    for (const r of await ask({ type: "finish" })) {
      if (r.type !== "finished") continue;
      for (const [i, n] of r.posts.entries()) {
        const sent = sentAt[n];
        if (sent === undefined) continue;
        delays.push((r.at[i] as number) - sent);
        lastDelivery = Math.max(lastDelivery, r.at[i] as number);
      }
    }
    const sorted = Float64Array.from(delays).sort();
    const elapsed = (lastDelivery - start) / 1000;
    return {
      posts,
      expected,
      delivered: delays.length,
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      postsPerSecond: posts / elapsed,
      deliveriesPerSecond: delays.length / elapsed,
      cpu: used.used,
      clientCpu: used.harness,
      noise: used.foreign + used.steal,
    };
  } finally {
    for (const c of clients) c.end();
  }
}

/** Ms since the epoch: the clock the client threads share with this one. */
const clock = () => performance.timeOrigin + performance.now();

const CLIENT = new URL("./fanout.worker.ts", import.meta.url).href;

/** A client thread of `fanout`: each request gets one report, in order. */
function clientThread() {
  const worker = new Worker(CLIENT);
  const waiting: ((report: ClientReport) => void)[] = [];
  worker.onmessage = (event: MessageEvent<ClientReport>) => waiting.shift()?.(event.data);
  worker.onerror = (event) => {
    for (const w of waiting.splice(0)) w({ type: "failed", message: event.message });
  };
  return {
    ask: (request: ClientRequest) =>
      new Promise<ClientReport>((resolve) => {
        waiting.push(resolve);
        worker.postMessage(request);
      }),
    end: () => worker.terminate(),
  };
}

/** RSS growth per open document (8 KiB of text, one editor each), per idle editor, per idle events socket. */
export const socketMemory: ProbeScenario = {
  kind: "probe",
  name: "memory per open document and per idle socket",
  async run() {
    const documents = 200;
    const idle = 500;
    const server = await startTandem();
    const open: WebSocket[] = [];
    try {
      const s = await space(server, "memory");
      const token = await server.token();
      // Ten people share the idle sockets (a person may hold 50 live-event and 100 editing sockets).
      const people = await members(server, 10);
      const as = (i: number) => people[i % people.length] as string;
      const body = `${"lorem ipsum dolor sit amet ".repeat(303)}`.slice(0, 8192);
      const ids: string[] = [];
      await times(documents + 1, 8, async (i) => {
        ids.push((await api(server, "POST", `${s.base}/files/text`, { name: `doc ${i}.md`, content: body })).node.id);
      });
      const collab = (id: string, who = token) => wsUrl(server, `${s.base}/files/collab/ws/${id}?token=${who}`);
      /** Opens `n` sockets and waits for each one's greeting. */
      const openSockets = async (n: number, url: (i: number) => string, greeted: boolean) => {
        await times(n, 16, async (i) => {
          let got!: () => void;
          const first = new Promise<void>((resolve) => {
            got = resolve;
          });
          open.push(await connect(url(i), () => got()));
          if (greeted) await first;
        });
      };
      const settle = async () => {
        await Bun.sleep(1500);
        return memory(server.pid).rss;
      };
      // Warm-up: one document and one events socket through every code path first.
      await openSockets(1, () => collab(ids[documents] as string), true);
      await openSockets(1, () => wsUrl(server, `/api/v1/organizations/${s.org}/ws?token=${token}`), false);
      const base = await settle();
      await openSockets(documents, (i) => collab(ids[i] as string, as(i)), true);
      const withDocs = await settle();
      await openSockets(idle, (i) => collab(ids[0] as string, as(i)), true);
      const withEditors = await settle();
      await openSockets(idle, (i) => wsUrl(server, `/api/v1/organizations/${s.org}/ws?token=${as(i)}`), false);
      const withEvents = await settle();
      const perDoc = (withDocs - base) / documents;
      const perEditor = (withEditors - withDocs) / idle;
      const perEvents = (withEvents - withEditors) / idle;
      const kib = (b: number) => `${(b / 1024).toFixed(1)} KiB`;
      return {
        scenario: this.name,
        measured: `${kib(perDoc)} per open document (8 KiB text, one editor), ${kib(perEditor)} per more editor, ${kib(perEvents)} per events socket; ${mib(withEvents)} with all open`,
        target: "info",
        pass: null,
        details: { documents, idle, base, withDocs, withEditors, withEvents, perDoc, perEditor, perEvents },
      };
    } finally {
      for (const ws of open) ws.close();
      await server.stop();
    }
  },
};

export const realtime = [editors, chatFanout, socketMemory];
