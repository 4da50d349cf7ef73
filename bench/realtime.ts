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
import { memory, mib, type ProbeScenario, type Server, startBareWs, startTandem, waitQuiet } from "./harness";
import { api, members, space, times } from "./seed";

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
    const sockets = 100;
    const posts = 200;
    const rate = 20;
    const tandem = await startTandem();
    const bare = await startBareWs();
    try {
      const s = await space(tandem, "fan-out");
      const token = await tandem.token();
      // Four people with 25 sockets each (a person may hold 50).
      const people = await members(tandem, 4);
      const path = `${s.base}/chat-rooms/${s.room}/messages`;
      const t = await fanout(
        (i) => wsUrl(tandem, `/api/v1/organizations/${s.org}/ws?token=${people[i % people.length]}`),
        sockets,
        posts,
        rate,
        (n) =>
          fetch(`${tandem.url}${path}`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: JSON.stringify({ content: `post ${n}` }),
          }),
      );
      const b = await fanout(
        () => wsUrl(bare, "/events"),
        sockets,
        posts,
        rate,
        (n) =>
          fetch(`${bare.url}/publish`, {
            method: "POST",
            body: JSON.stringify({ type: "chat.message.created", payload: { message: { content: `post ${n}` } } }),
          }),
      );
      return {
        scenario: this.name,
        p50_ms: t.p50,
        p99_ms: t.p99,
        measured: `${t.delivered}/${t.expected} delivered, p99 ${t.p99.toFixed(1)} ms (bare p99 ${b.p99.toFixed(1)} ms)`,
        target: "p99 < 50 ms, nothing lost",
        pass: t.p99 < 50 && t.delivered === t.expected,
        details: { sockets, posts, rate_per_s: rate, tandem: t, bare: b },
      };
    } finally {
      await tandem.stop();
      await bare.stop();
    }
  },
};

/** `posts` posts at `rate` per second; the delay from each post's send to each socket's receipt of its event. */
async function fanout(
  url: (i: number) => string,
  count: number,
  posts: number,
  rate: number,
  post: (n: number) => Promise<Response>,
): Promise<{ expected: number; delivered: number; p50: number; p99: number }> {
  const sentAt = new Float64Array(posts);
  const delays: number[] = [];
  const sockets: WebSocket[] = [];
  for (let i = 0; i < count; i++) {
    sockets.push(
      await new Promise<WebSocket>((resolve, reject) => {
        const ws = new WebSocket(url(i));
        ws.onmessage = (event) => {
          const now = performance.now();
          const parsed = JSON.parse(String(event.data)) as {
            type: string;
            payload: { message?: { content?: string } };
          };
          if (parsed.type !== "chat.message.created") return;
          const n = Number(parsed.payload.message?.content?.slice(5));
          if (sentAt[n]) delays.push(now - (sentAt[n] as number));
        };
        ws.onopen = () => resolve(ws);
        ws.onerror = () => reject(new Error(`could not connect to ${url(i)}`));
      }),
    );
  }
  await Bun.sleep(300);
  await waitQuiet();
  const start = performance.now();
  const pending: Promise<Response>[] = [];
  for (let n = 0; n < posts; n++) {
    const due = start + (n * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    sentAt[n] = performance.now();
    pending.push(post(n));
  }
  const answers = await Promise.all(pending);
  if (answers.some((r) => !r.ok)) throw new Error(`a post failed: ${answers.find((r) => !r.ok)?.status}`);
  const expected = count * posts;
  const until = performance.now() + 5000;
  while (delays.length < expected && performance.now() < until) await Bun.sleep(10);
  for (const ws of sockets) ws.close();
  const sorted = Float64Array.from(delays).sort();
  return { expected, delivered: delays.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
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
