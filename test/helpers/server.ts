/**
 * Real servers for tests: in-process (`startTestServer`, the source app listening on a random port over a
 * SQLite file in a temp dir) or as a child process (`spawnServer`, the CLI from source or dist/tandem).
 */
import { expect } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { RegistryOptions } from "../../src/collab/registry";
import { loadConfig } from "../../src/config";
import type { EmailOptions } from "../../src/features/notifications/notifications.email";
import { createAccessLog } from "../../src/lib/access-log";
import { createLogger } from "../../src/lib/log";
import { startServer } from "../../src/server";
import type { JobTuning } from "../../src/services";
import { client } from "./http";
import { databaseOf } from "./postgres";

export const ROOT = resolve(import.meta.dir, "../..");
export const BUN = process.execPath;
/** The executable under test: dist/tandem, or `TANDEM_BINARY` (a build made with `TANDEM_BUILD_OUT`). */
export const BINARY = process.env.TANDEM_BINARY ?? join(ROOT, "dist", "tandem");

/** A fresh temp directory, removed by the returned cleanup. */
export function tempDir(prefix = "tandem-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A running in-process server with its captured log lines. */
export interface TestServer {
  url: string;
  dataDir: string;
  setupToken: string | null;
  logs: string[];
  stop(): Promise<void>;
}

/**
 * The settings that put a data dir's server on the engine under test: on PostgreSQL
 * (`TANDEM_TEST_DATABASE=postgres`), its database and the secrets every node must be given; nothing on SQLite.
 */
export function engineEnv(dataDir: string): Record<string, string> {
  const url = databaseOf(dataDir);
  if (!url) return {};
  return { TANDEM_DATABASE_URL: url, JWT_SECRET: TEST_JWT_SECRET, APP_SSH_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY };
}

/** The secrets of servers on PostgreSQL, shared by every node of a test, as an operator sets them. */
export const TEST_JWT_SECRET = "test-jwt-secret-shared-by-every-node-0123456789abcdef";
const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString("base64");

/** Starts the app from source on 127.0.0.1 and a random port, with a new data dir. */
export async function startTestServer(
  options: {
    dataDir?: string;
    docs?: RegistryOptions;
    /** Settings on top of the process environment (provider URLs of loopback fakes). */
    env?: Record<string, string>;
    jobs?: JobTuning;
    /** How often email looks for unread items. */
    email?: EmailOptions;
    /** The clock versions are stamped and thinned by, for a test that moves time on. */
    versionsClock?: () => number;
  } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? tempDir();
  const logs: string[] = [];
  const sink = { write: (line: string) => void logs.push(line) };
  const env = { ...process.env, ...engineEnv(dataDir), ...options.env };
  const config = loadConfig({ data: dataDir, port: 0, host: "127.0.0.1" }, env);
  const server = await startServer(config, createLogger("debug", sink), createAccessLog("debug", sink), {
    secretsEnv: env,
    docs: options.docs,
    jobs: options.jobs,
    email: options.email,
    versionsClock: options.versionsClock,
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    dataDir,
    setupToken: server.setupUrl ? new URL(server.setupUrl).searchParams.get("token") : null,
    logs,
    async stop() {
      await server.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The result of a CLI run. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The command line that runs the CLI: from source, or the compiled binary. */
export function cliCommand(kind: "source" | "binary"): string[] {
  return kind === "binary" ? [BINARY] : [BUN, join(ROOT, "src", "main.ts")];
}

/** Runs one CLI command to completion. */
export async function runCli(
  args: string[],
  options: { kind?: "source" | "binary"; env?: Record<string, string | undefined> } = {},
): Promise<RunResult> {
  const data = args.indexOf("--data");
  const dataDir = data === -1 ? undefined : args[data + 1];
  const proc = Bun.spawn([...cliCommand(options.kind ?? "source"), ...args], {
    env: cleanEnv({ ...(dataDir ? engineEnv(dataDir) : {}), ...options.env }),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

/** The environment of a child: ours without anything Tandem reads, plus `extra`. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (/^(PORT|HOST|TANDEM_|JWT_SECRET|APP_SSH_ENCRYPTION_KEY|PROVISIONING_|MODELROUTER_|AGENT_|LOG_LEVEL)/.test(key))
      continue;
    env[key] = value;
  }
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) env[key] = value;
  return env;
}

/** A server running as a child process. */
export interface SpawnedServer {
  url: string;
  pid: number;
  setupUrl: string | null;
  /** Every line the process wrote so far. */
  output: string[];
  proc: ReturnType<typeof Bun.spawn>;
  stop(signal?: NodeJS.Signals): Promise<number>;
}

/** Spawns `tandem serve` and waits until it logs where it listens. */
export async function spawnServer(options: {
  kind?: "source" | "binary";
  dataDir: string;
  args?: string[];
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
}): Promise<SpawnedServer> {
  const proc = Bun.spawn(
    [
      ...cliCommand(options.kind ?? "source"),
      "serve",
      "--port",
      "0",
      "--host",
      "127.0.0.1",
      "--data",
      options.dataDir,
      ...(options.args ?? []),
    ],
    { env: cleanEnv({ ...engineEnv(options.dataDir), ...options.env }), stdout: "pipe", stderr: "pipe" },
  );
  const output: string[] = [];
  let url: string | null = null;
  let setupUrl: string | null = null;
  const ready = Promise.withResolvers<void>();
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let nl = buffer.indexOf("\n");
      while (nl !== -1) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        output.push(line);
        try {
          const entry = JSON.parse(line) as { url?: string; setup_url?: string; msg?: string };
          if (entry.setup_url) setupUrl = entry.setup_url;
          if (entry.msg === "tandem is listening" && entry.url) url = entry.url;
        } catch {
          // Not a log line (stderr of a failed start): kept in output.
        }
        if (url) ready.resolve();
        nl = buffer.indexOf("\n");
      }
    }
  };
  void pump(proc.stdout as ReadableStream<Uint8Array>);
  void pump(proc.stderr as ReadableStream<Uint8Array>);
  const timeout = setTimeout(
    () => ready.reject(new Error(`server did not start:\n${output.join("\n")}`)),
    options.timeoutMs ?? 15000,
  );
  void proc.exited.then((code) => ready.reject(new Error(`server exited with ${code}:\n${output.join("\n")}`)));
  // The setup line comes before the listening line: once this resolves, `setupUrl` is known.
  await ready.promise.finally(() => clearTimeout(timeout));
  return {
    url: (url as string | null)?.replace("localhost", "127.0.0.1") ?? "",
    pid: proc.pid,
    get setupUrl() {
      return setupUrl;
    },
    output,
    proc,
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      proc.kill(signal);
      return proc.exited;
    },
  };
}

/** What a test made that `afterAll` ends: data dirs and spawned servers. */
export interface Leftovers {
  dirs: string[];
  spawned: SpawnedServer[];
}

/**
 * A data dir set up by dist/tandem (organization Acme, owner o@acme.test) and `start`, which serves it (again
 * after a stop or a kill) and signs the owner in. The data dir is a new temp dir, or `dataDir` (left to its
 * caller to remove).
 */
export async function binaryInstall(
  prefix: string,
  left: Leftovers,
  env: Record<string, string> = {},
  dataDir?: string,
) {
  expect(existsSync(BINARY)).toBe(true);
  const dir = dataDir ?? tempDir(prefix);
  if (dataDir === undefined) left.dirs.push(dir);
  const args = ["setup", "--org-name", "Acme", "--admin-email", "o@acme.test", "--admin-password", "owner-pass"];
  const setup = await runCli([...args, "--data", dir], { kind: "binary" });
  expect(setup.code).toBe(0);
  const orgId = JSON.parse(setup.stdout).organization_id as string;
  const start = async () => {
    const server = await spawnServer({ kind: "binary", dataDir: dir, env });
    left.spawned.push(server);
    const login = await client(server.url).post("/api/v1/auth/login", { email: "o@acme.test", password: "owner-pass" });
    return { server, api: client(server.url, login.body.access_token) };
  };
  return { orgId, dataDir: dir, start };
}
