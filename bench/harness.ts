/**
 * The benchmark harness: servers pinned to one core, wrk pinned to the other, interleaved rounds, medians, and
 * every throughput as a ratio to a bare `Bun.serve` endpoint measured in the same run. Scenarios are data
 * (bench/scenarios.ts); this file knows how to start servers, drive wrk and summarise.
 */

import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { newDatabase, startPostgres } from "../test/helpers/postgres";

export const ROOT = resolve(import.meta.dir, "..");
export const MiB = 1024 * 1024;

function int(name: string, fallback: number): number {
  const raw = process.env[name];
  const n = raw === undefined || raw === "" ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer`);
  return n;
}

/** Every knob, from the environment. Durations in seconds. */
export const opts = {
  bin: resolve(process.env.BENCH_BIN ?? join(ROOT, "dist/tandem")),
  rounds: int("BENCH_ROUNDS", 5),
  duration: int("BENCH_DURATION", 5),
  warmup: int("BENCH_WARMUP", 2),
  connections: int("BENCH_CONNECTIONS", 50),
  /** wrk's threads (-t), and the threads the live-event sockets' clients run on (bench/realtime.ts `fanout`). */
  threads: int("BENCH_THREADS", 1),
  walDuration: int("BENCH_WAL_DURATION", 24),
  startupRuns: int("BENCH_STARTUP_RUNS", 10),
  serverCpu: process.env.BENCH_SERVER_CPU ?? "0",
  wrkCpu: process.env.BENCH_WRK_CPU ?? "1",
  /** The cores of the PostgreSQL cluster (bench/postgres.ts, bench/nodes.ts): the load's unless told. */
  pgCpu: process.env.BENCH_PG_CPU ?? process.env.BENCH_WRK_CPU ?? "1",
  /** The cores of the second node in bench/nodes.ts (the first runs on BENCH_SERVER_CPU). */
  node2Cpu: process.env.BENCH_NODE2_CPU ?? process.env.BENCH_WRK_CPU ?? "1",
  /** Where tandem's stdout (one JSON line per request) goes: a file in its data dir, or /dev/null. */
  log: (process.env.BENCH_LOG ?? "file") as "file" | "null",
  /** Runs only scenarios whose name contains this (the bare yardstick always runs). */
  only: process.env.BENCH_ONLY,
  keep: process.env.BENCH_KEEP === "1",
  /** Before each measured run, wait up to this long for other processes to leave the CPUs alone. */
  quietWait: int("BENCH_QUIET_WAIT", 10),
  /** How many times a round disturbed by other processes is run again. */
  retries: int("BENCH_RETRIES", 1),
};

export const ADMIN = { email: "bench@example.com", password: "bench-password" };

// ---------------------------------------------------------------------------------------------- scenarios

/** What wrk sends: a path, extra headers (-H), and optionally a Lua script that sets method/body/request(). */
export interface WrkRequest {
  path: string;
  headers?: Record<string, string>;
  lua?: string;
}

/** A throughput scenario: one server per run, measured in every round right after the bare yardstick. */
export interface LoadScenario {
  kind: "load";
  name: string;
  /** Starts (and seeds) the server; called once, the server serves every round. Default: a fresh tandem. */
  start?: () => Promise<Server>;
  /** Called before each round's wrk run (fetch a token here: `server.token()` logs in again when stale). */
  request: (server: Server) => Promise<WrkRequest> | WrkRequest;
  /** Target: requests/s at least this fraction of bare (or of `relativeTo`). Without one the row is informational. */
  minRatio?: number;
  /** The ratio is taken to this other scenario's figure of the same round instead of bare's. */
  relativeTo?: string;
  /** Target: p99 latency at most this many milliseconds. */
  maxP99Ms?: number;
  /** wrk connections for this scenario (default BENCH_CONNECTIONS): fewer, to read latency as service time. */
  connections?: number;
}

/** A measurement that is not a wrk throughput: it runs once and returns its own row. */
export interface ProbeScenario {
  kind: "probe";
  name: string;
  run: (ctx: ProbeContext) => Promise<Row>;
}

export type Scenario = LoadScenario | ProbeScenario;

export interface ProbeContext {
  /** Median requests/s of the bare yardstick in this run's rounds. */
  bareRps: number;
}

/** One line of the final table (and of results.json). `pass` null means informational. */
export interface Row {
  scenario: string;
  rps?: number;
  p50_ms?: number;
  p99_ms?: number;
  ratio?: number;
  measured?: string;
  /** Largest share of the CPUs other processes used during this row's wrk runs (0 when quiet). */
  noise?: number;
  target: string;
  pass: boolean | null;
  details?: Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------- processes

/** A running server process, pinned to the server core. */
export interface Server {
  url: string;
  pid: number;
  dir: string;
  proc: Subprocess;
  /** A bearer access token of the bench admin, logged in again after 10 minutes (they last 900 s). */
  token(): Promise<string>;
  stop(): Promise<void>;
}

const live = new Set<Server>();
const dirs: string[] = [];

export function tempDir(prefix = "tandem-bench-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** Stops every server still running and removes the temp dirs (kept with BENCH_KEEP=1). */
export async function cleanup(): Promise<void> {
  await Promise.all([...live].map((s) => s.stop()));
  if (!opts.keep) for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

export function pin(cpu: string, cmd: string[]): string[] {
  return ["taskset", "-c", cpu, ...cmd];
}

export async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/**
 * The database the servers started from now on use: SQLite in their data dir, or a new PostgreSQL database each
 * (`onPostgres`, bench/postgres.ts), on a cluster the harness starts once.
 */
let engine: "sqlite" | "postgres" = "sqlite";
const engineOfDir = new Map<string, Record<string, string>>();

/** Runs `start` (a scenario's) with the servers it starts on PostgreSQL. */
export async function onPostgres<T>(start: () => Promise<T>): Promise<T> {
  engine = "postgres";
  try {
    return await start();
  } finally {
    engine = "sqlite";
  }
}

/** The settings of a data dir's database: none on SQLite; a database of its own and the shared secrets on PostgreSQL. */
function engineEnv(dir: string): Record<string, string> {
  const known = engineOfDir.get(dir);
  if (known) return known;
  const env: Record<string, string> =
    engine === "sqlite"
      ? {}
      : {
          TANDEM_DATABASE_URL: benchDatabase(),
          JWT_SECRET: "bench-jwt-secret-shared-by-every-node-0123456789",
          APP_SSH_ENCRYPTION_KEY: "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
        };
  engineOfDir.set(dir, env);
  return env;
}

/** A new database on the bench's PostgreSQL cluster, which runs on BENCH_PG_CPU (the load's core unless told). */
function benchDatabase(): string {
  const url = newDatabase("bench");
  // The postmaster's affinity is inherited by every backend it starts.
  Bun.spawnSync(["taskset", "-a", "-cp", opts.pgCpu, String(postmaster())]);
  return url;
}

function postmaster(): number {
  const { dir } = startPostgres();
  return Number(readFileSync(join(dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
}

/** The processes of the bench's PostgreSQL cluster (the postmaster and its backends); none before it starts. */
export function postgresPids(): number[] {
  if (![...engineOfDir.values()].some((env) => env.TANDEM_DATABASE_URL)) return [];
  const parent = postmaster();
  const children = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        // The parent's pid is field 4 of /proc/PID/stat, the second after the parenthesised command name.
        return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[1]) === parent;
      } catch {
        return false; // gone meanwhile
      }
    });
  return [parent, ...children];
}

/** The PostgreSQL database of a server's install; undefined on SQLite. */
export function databaseOf(server: Server): string | undefined {
  return engineOfDir.get(server.dir)?.TANDEM_DATABASE_URL;
}

/**
 * One more `tandem serve` node of `first`'s install, on PostgreSQL: a data dir of its own, the same database and
 * secrets, pinned to `cpu`. Listening on loopback, it tells the other nodes its own address and port.
 */
export async function startNode(first: Server, cpu: string): Promise<Server> {
  const env = engineOfDir.get(first.dir);
  if (!env?.TANDEM_DATABASE_URL) throw new Error("another node needs a first one on PostgreSQL");
  const dir = tempDir();
  engineOfDir.set(dir, env);
  return startTandem(dir, {}, cpu);
}

/** A fresh data dir with the organization set up by `tandem setup`. */
export function setupDataDir(): string {
  const dir = tempDir();
  const r = Bun.spawnSync(
    [
      opts.bin,
      ...["setup", "--org-name", "B", "--admin-email", ADMIN.email, "--admin-password", ADMIN.password],
      ...["--data", dir],
    ],
    { env: { ...process.env, ...engineEnv(dir) } },
  );
  if (r.exitCode !== 0) throw new Error(`tandem setup failed: ${r.stderr.toString().trim()}`);
  return dir;
}

/**
 * Spawns `cmd` pinned to `cpu` (the server core unless told) and waits until it logs "... is listening" with its url, or (when it
 * logs nowhere, or LOG_LEVEL hides that line) until `healthPath` answers 2xx. A server started again on the same
 * dir logs afresh: the previous log becomes `serve.log.previous`.
 */
export async function spawnServer(
  cmd: string[],
  port: number,
  dir: string,
  logToFile: boolean,
  healthPath = "/health",
  env: Record<string, string> = {},
  cpu = opts.serverCpu,
) {
  const logPath = join(dir, "serve.log");
  if (existsSync(logPath)) renameSync(logPath, `${logPath}.previous`);
  const proc = Bun.spawn(pin(cpu, cmd), {
    stdout: logToFile ? Bun.file(logPath) : "ignore",
    stderr: "inherit",
    env: { ...process.env, NODE_ENV: "production", ...env },
  });
  const deadline = performance.now() + 15_000;
  let url: string | undefined;
  try {
    while (!url) {
      if (proc.exitCode !== null) throw new Error(`${cmd.join(" ")} exited with ${proc.exitCode}`);
      if (performance.now() > deadline) throw new Error(`${cmd.join(" ")} did not start within 15 s`);
      const line = existsSync(logPath)
        ? readFileSync(logPath, "utf8")
            .split("\n")
            .find((l) => l.includes("is listening"))
        : undefined;
      if (line) url = JSON.parse(line).url as string;
      else if (
        await fetch(`http://127.0.0.1:${port}${healthPath}`).then(
          (r) => r.ok,
          () => false,
        )
      ) {
        url = `http://127.0.0.1:${port}`;
      } else await Bun.sleep(5);
    }
  } catch (err) {
    proc.kill("SIGKILL");
    throw err;
  }
  let cached: { token: string; at: number } | undefined;
  const server: Server = {
    url,
    pid: proc.pid,
    dir,
    proc,
    async token() {
      if (!cached || performance.now() - cached.at > 600_000) {
        cached = { token: await login(url), at: performance.now() };
      }
      return cached.token;
    },
    async stop() {
      live.delete(server);
      proc.kill("SIGTERM");
      const exited = await Promise.race([proc.exited.then(() => true), Bun.sleep(5000).then(() => false)]);
      if (!exited) proc.kill("SIGKILL");
      await proc.exited;
    },
  };
  live.add(server);
  return server;
}

/** `dist/tandem serve` on a fresh (or the given, already set-up) data dir, with extra settings in `env`. */
export async function startTandem(
  dir = setupDataDir(),
  env: Record<string, string> = {},
  cpu = opts.serverCpu,
): Promise<Server> {
  const port = await freePort();
  const cmd = [opts.bin, "serve", "--port", String(port), "--host", "127.0.0.1", "--data", dir];
  return spawnServer(cmd, port, dir, opts.log === "file", "/health", { ...engineEnv(dir), ...env }, cpu);
}

/** The bare `Bun.serve` yardstick (bench/bare.ts) run by the bun running this harness. */
export async function startBare(): Promise<Server> {
  const port = await freePort();
  const cmd = [process.execPath, join(import.meta.dir, "bare.ts"), String(port)];
  return spawnServer(cmd, port, tempDir("tandem-bench-bare-"), true, "/");
}

/** The WebSocket yardstick (bench/bare-ws.ts): a relay and a broadcaster that store and check nothing. */
export async function startBareWs(): Promise<Server> {
  const port = await freePort();
  const cmd = [process.execPath, join(import.meta.dir, "bare-ws.ts"), String(port)];
  return spawnServer(cmd, port, tempDir("tandem-bench-bare-ws-"), true, "/");
}

/** An access token of `who` (the bench admin unless told), signed in through `url`. */
export async function login(url: string, who: { email: string; password: string } = ADMIN): Promise<string> {
  const res = await fetch(`${url}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: who.email, password: who.password }),
  });
  if (!res.ok) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** VmRSS (and the peak VmHWM) of a process, in bytes. */
export function memory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
  return { rss: kib("VmRSS") * 1024, hwm: kib("VmHWM") * 1024 };
}

// ---------------------------------------------------------------------------------------------- wrk

export interface WrkResult {
  requests: number;
  seconds: number;
  rps: number;
  /** Socket errors plus responses outside 2xx/3xx. */
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  latency_ms: { p50: number; p90: number; p99: number; mean: number; max: number };
  /** Share of all cores' time that other processes of the machine used meanwhile (noise; see `cpuSnapshot`). */
  foreign_cpu: number;
  /** Share of all cores' time the hypervisor gave to other machines meanwhile (steal: noise too). */
  steal: number;
  /** CPU seconds wrk itself used. */
  load_cpu: number;
}

const REPORT_LUA = readFileSync(join(import.meta.dir, "lua/report.lua"), "utf8");
let scripts = 0;

export function lua(name: string): string {
  return readFileSync(join(import.meta.dir, "lua", name), "utf8");
}

/** A wrk script with the scenario's constants defined before it. */
export function luaWith(name: string, constants: Record<string, string | number | string[]>): string {
  const defined = Object.entries(constants).map(
    ([k, v]) => `${k} = ${Array.isArray(v) ? `{${v.map((x) => JSON.stringify(x)).join(",")}}` : JSON.stringify(v)}`,
  );
  return `${defined.join("\n")}\n${lua(name)}`;
}

/** Runs wrk pinned to the load core for `seconds` against `server.url` + `req.path`. */
export async function wrk(
  server: Server,
  req: WrkRequest,
  seconds: number,
  connections = opts.connections,
): Promise<WrkResult> {
  const script = join(tempDir("tandem-bench-wrk-"), `s${++scripts}.lua`);
  writeFileSync(script, `${req.lua ?? ""}\n${REPORT_LUA}`);
  const headers = Object.entries(req.headers ?? {}).flatMap(([k, v]) => ["-H", `${k}: ${v}`]);
  const cmd = pin(opts.wrkCpu, [
    "wrk",
    `-t${Math.min(opts.threads, connections)}`,
    `-c${connections}`,
    `-d${seconds}s`,
    "--latency",
    "-s",
    script,
    ...headers,
    `${server.url}${req.path}`,
  ]);
  const before = cpuSnapshot(server.pid);
  const proc = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const after = cpuSnapshot(server.pid);
  const wrkCpu = proc.resourceUsage()?.cpuTime;
  const wrkSeconds = wrkCpu ? Number(wrkCpu.user + wrkCpu.system) / 1e6 : 0;
  const line = out.split("\n").find((l) => l.startsWith('{"wrk":'));
  if (code !== 0 || !line) throw new Error(`wrk failed (${code}): ${err.trim() || out.trim()}`);
  const r = JSON.parse(line);
  const ms = (us: number) => us / 1000;
  const seconds_ = r.duration_us / 1e6;
  return {
    requests: r.requests,
    seconds: seconds_,
    rps: r.requests / seconds_,
    errors: r.errors,
    latency_ms: {
      p50: ms(r.latency_us.p50),
      p90: ms(r.latency_us.p90),
      p99: ms(r.latency_us.p99),
      mean: ms(r.latency_us.mean),
      max: ms(r.latency_us.max),
    },
    foreign_cpu: foreignShare(before, after, wrkSeconds),
    steal: (after.steal - before.steal) / ((after.at - before.at) * cpus().length),
    load_cpu: wrkSeconds,
  };
}

export interface CpuSnapshot {
  at: number;
  /** user + nice + system seconds of all cores, from /proc/stat (softirq, irq and steal are not counted). */
  machine: number;
  /** Seconds of all cores that the hypervisor ran something else on while this machine wanted them. */
  steal: number;
  server: number;
  /** The part of `server` spent in the kernel (system calls, the network stack). */
  serverSystem: number;
  harness: number;
}

const TICK = 0.01; // USER_HZ is 100 on Linux

/** CPU seconds used so far by the machine, the server under test (if any) and this harness. */
export function cpuSnapshot(serverPid?: number): CpuSnapshot {
  const cpu = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.split(/\s+/).slice(1).map(Number);
  const server = serverPid ? processCpu(serverPid) : { user: 0, system: 0 };
  const self = process.cpuUsage();
  return {
    at: performance.now() / 1000,
    machine: (cpu[0]! + cpu[1]! + cpu[2]!) * TICK,
    steal: (cpu[7] ?? 0) * TICK,
    server: server.user + server.system,
    serverSystem: server.system,
    harness: (self.user + self.system) / 1e6,
  };
}

/** The user and system CPU seconds a process (all its threads) has used so far. */
function processCpu(pid: number): { user: number; system: number } {
  // utime and stime are fields 14 and 15 of /proc/PID/stat, counted after the parenthesised command name.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return { user: Number(fields[11]) * TICK, system: Number(fields[12]) * TICK };
}

/**
 * Starts counting the CPU seconds of `pids`. The function returned stops: the seconds each used (0 for one that
 * ended meanwhile), and what others took, as shares of every core: other processes (all but `pids`, this harness
 * and `loadSeconds` of load generators that ran meanwhile) and other machines (steal).
 */
export function cpuMeter(pids: number[]) {
  const total = (pid: number) => {
    try {
      const { user, system } = processCpu(pid);
      return user + system;
    } catch {
      return Number.NaN;
    }
  };
  const start = cpuSnapshot();
  const startOf = pids.map(total);
  return (loadSeconds = 0) => {
    const end = cpuSnapshot();
    const used = pids.map((pid, i) => Math.max(0, total(pid) - startOf[i]!) || 0);
    const ours = used.reduce((a, b) => a + b, 0) + (end.harness - start.harness) + loadSeconds;
    const span = (end.at - start.at) * cpus().length;
    return {
      seconds: end.at - start.at,
      used,
      harness: end.harness - start.harness,
      foreign: Math.max(0, end.machine - start.machine - ours) / span,
      steal: (end.steal - start.steal) / span,
    };
  };
}

/**
 * Waits (up to BENCH_QUIET_WAIT seconds) until the machine is idle apart from this harness for half a second:
 * on a shared machine a test suite running beside the benchmark halves its figures. Returns the seconds waited.
 */
export async function waitQuiet(): Promise<number> {
  const start = performance.now();
  for (;;) {
    const a = cpuSnapshot();
    await Bun.sleep(500);
    const b = cpuSnapshot();
    const busy = (b.machine - a.machine - (b.harness - a.harness)) / ((b.at - a.at) * cpus().length);
    const waited = (performance.now() - start) / 1000;
    if (busy < 0.05 || waited > opts.quietWait) return waited;
  }
}

/** What other processes used, as a share of every core over the interval. */
export function foreignShare(a: CpuSnapshot, b: CpuSnapshot, wrkSeconds = 0): number {
  const ours = b.server - a.server + (b.harness - a.harness) + wrkSeconds;
  const foreign = b.machine - a.machine - ours;
  return Math.max(0, foreign) / ((b.at - a.at) * cpus().length);
}

/** What a run lost to others: other processes of the machine, and other machines of the host. */
export const noiseOf = (runs: WrkResult[]) => Math.max(...runs.map((r) => r.foreign_cpu + r.steal));

export function errorCount(r: WrkResult): number {
  const e = r.errors;
  return e.connect + e.read + e.write + e.status + e.timeout;
}

// ---------------------------------------------------------------------------------------------- running

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const BARE: LoadScenario = {
  kind: "load",
  name: "bare Bun.serve JSON (yardstick)",
  start: startBare,
  request: () => ({ path: "/" }),
};

/**
 * Runs the load scenarios in interleaved rounds (bare, A, B, ..., bare, A, B, ...) so drift hits all alike.
 * Each ratio is the median of the per-round ratios to that round's bare figure.
 */
export async function runLoad(scenarios: LoadScenario[], say: (s: string) => void) {
  const all = [BARE, ...scenarios];
  const servers: Server[] = [];
  for (const s of all) {
    const server = await (s.start ?? startTandem)();
    servers.push(server);
    if (opts.warmup > 0) await wrk(server, await s.request(server), opts.warmup, s.connections);
  }
  const results: WrkResult[][] = all.map(() => []);
  for (let round = 1; round <= opts.rounds; round++) {
    // A round during which other processes (or other machines, by steal) took more than 10% of the CPUs is run
    // again (once by default); the quieter attempt is kept whole, so the interleaving holds.
    let kept: WrkResult[] | undefined;
    for (let attempt = 0; attempt <= opts.retries; attempt++) {
      const runs: WrkResult[] = [];
      for (const [i, s] of all.entries()) {
        const req = await s.request(servers[i]!);
        const waited = await waitQuiet();
        if (waited > 1) say(`waited ${waited.toFixed(0)} s for other processes to quieten`);
        const r = await wrk(servers[i]!, req, opts.duration, s.connections);
        runs.push(r);
        say(
          `round ${round}/${opts.rounds}  ${s.name.padEnd(36)} ${r.rps.toFixed(0).padStart(7)} req/s  ` +
            `p99 ${r.latency_ms.p99.toFixed(2)} ms  other processes ${pct(r.foreign_cpu)}, steal ${pct(r.steal)} of the CPUs` +
            (errorCount(r) ? `  errors ${JSON.stringify(r.errors)}` : ""),
        );
      }
      if (!kept || noiseOf(runs) < noiseOf(kept)) kept = runs;
      if (noiseOf(kept) <= 0.1) break;
      if (attempt < opts.retries) say(`round ${round} was noisy: running it again`);
    }
    for (const [i, r] of kept!.entries()) results[i]!.push(r);
  }
  for (const server of servers) await server.stop();

  const rows: Row[] = all.map((s, i) => {
    const rs = results[i]!;
    const base = s.relativeTo ? all.findIndex((o) => o.name === s.relativeTo) : 0;
    if (base < 0) throw new Error(`${s.name}: no scenario named ${s.relativeTo} to compare with`);
    const ratio = median(rs.map((r, k) => r.rps / results[base]![k]!.rps));
    const p99 = median(rs.map((r) => r.latency_ms.p99));
    const errors = rs.reduce((n, r) => n + errorCount(r), 0);
    const targets: string[] = [];
    let pass: boolean | null = null;
    if (s.minRatio !== undefined) {
      targets.push(s.relativeTo ? `ratio to "${s.relativeTo}" >= ${s.minRatio}` : `ratio >= ${s.minRatio}`);
      pass = ratio >= s.minRatio;
    }
    if (s.maxP99Ms !== undefined) {
      targets.push(`p99 < ${s.maxP99Ms} ms`);
      pass = (pass ?? true) && p99 < s.maxP99Ms;
    }
    const target = s === BARE ? "yardstick" : targets.length ? targets.join(", ") : "info";
    if (errors > 0) pass = false;
    return {
      scenario: s.name,
      rps: median(rs.map((r) => r.rps)),
      p50_ms: median(rs.map((r) => r.latency_ms.p50)),
      p99_ms: p99,
      ratio,
      measured: errors > 0 ? `${errors} errors/non-2xx` : undefined,
      noise: noiseOf(rs),
      target,
      pass,
      details: { rounds: rs },
    };
  });
  return { rows, bareRps: rows[0]!.rps! };
}

// ---------------------------------------------------------------------------------------------- output

/** The rows as a Markdown table; `rate` names what the rows count per second, `ratioTo` what the ratios are taken to. */
export function table(rows: Row[], { rate = "req/s", ratioTo = "bare" } = {}): string {
  const head = [
    "scenario",
    `${rate} (median)`,
    "p50 ms",
    "p99 ms",
    `ratio to ${ratioTo}`,
    "measured",
    "noise",
    "target",
    "result",
  ];
  const cells = rows.map((r) => [
    r.scenario,
    r.rps === undefined ? "" : r.rps.toFixed(0),
    r.p50_ms === undefined ? "" : r.p50_ms.toFixed(2),
    r.p99_ms === undefined ? "" : r.p99_ms.toFixed(2),
    r.ratio === undefined ? "" : r.ratio.toFixed(2),
    r.measured ?? "",
    r.noise === undefined ? "" : pct(r.noise),
    r.target,
    r.pass === null ? "info" : r.pass ? "PASS" : "FAIL",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const right = new Set([1, 2, 3, 4, 6]);
  const fmt = (c: string[]) =>
    `| ${c.map((v, i) => (right.has(i) ? v.padStart(widths[i]!) : v.padEnd(widths[i]!))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (right.has(i) ? `${"-".repeat(w + 1)}:` : "-".repeat(w + 2))).join("|")}|`;
  return [fmt(head), rule, ...cells.map(fmt)].join("\n");
}

export const pct = (x: number) => `${(x * 100).toFixed(0)}%`;

export const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
