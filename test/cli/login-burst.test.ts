/**
 * A burst of logins against a spawned server: argon2id takes 64 MiB per hash, so the server bounds how many
 * run at once. Thirty at once from thirty clients (behind a trusted proxy) must all succeed, and the process's
 * peak memory must stay well bounded; thirty at once from one client are checked 8 at a time, the rest refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { request } from "../helpers/http";
import { runCli, type SpawnedServer, spawnServer, tempDir } from "../helpers/server";

// Spawned processes and argon2id hashes on a 2-core machine: well beyond bun's default 5 s per test.

const OWNER = { email: "burst@acme.test", password: "burst-password" };
const SECOND = { email: "second@acme.test", password: "second-password" };
const MiB = 1024 * 1024;

let data: string;
let server: SpawnedServer;

/** A field of /proc/PID/status in bytes (VmHWM: the peak resident set size). */
function procStatusBytes(pid: number, field: "VmHWM" | "VmRSS"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status);
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

beforeAll(async () => {
  data = tempDir("tandem-burst-");
  const setup = await runCli([
    "setup",
    "--org-name",
    "Burst",
    "--admin-email",
    OWNER.email,
    "--admin-password",
    OWNER.password,
    "--data",
    data,
  ]);
  expect(setup.code).toBe(0);
  const added = await runCli(["users", "add", "--email", SECOND.email, "--data", data], {
    env: { TANDEM_PASSWORD: SECOND.password },
  });
  expect(added.code).toBe(0);
  server = await spawnServer({ dataDir: data, env: { TANDEM_TRUSTED_PROXIES: "127.0.0.1" } });
});

afterAll(async () => {
  if (server && server.proc.exitCode === null) await server.stop();
  rmSync(data, { recursive: true, force: true });
});

describe("a burst of logins", () => {
  it("answers 30 simultaneous logins of 30 clients with 200 and keeps the server's peak RSS under 600 MiB", async () => {
    // At most 16 checks of one account run at once: 15 sign in as one person, 15 as another.
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        request(server.url, "POST", "/api/v1/auth/login", {
          body: i % 2 === 0 ? OWNER : SECOND,
          headers: { "x-forwarded-for": `192.0.2.${i + 1}` },
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(30).fill(200));
    const tokens = new Set(results.map((r) => r.body.refresh_token as string));
    expect(tokens.size).toBe(30);

    const peak = procStatusBytes(server.pid, "VmHWM");
    expect(Math.round(peak / MiB)).toBeLessThan(600);
    // The server still serves after the burst.
    expect((await request(server.url, "GET", "/health")).status).toBe(200);
  });

  it("checks 8 of 30 simultaneous logins of one client and refuses the rest with 429", async () => {
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        request(server.url, "POST", "/api/v1/auth/login", {
          body: OWNER,
          headers: { "x-forwarded-for": "198.51.100.1" },
        }),
      ),
    );
    // 8 at once (more only if some arrived after others were done, as a loaded machine may spread them).
    const signedIn = results.filter((r) => r.status === 200).length;
    expect(signedIn).toBeGreaterThanOrEqual(8);
    expect(signedIn).toBeLessThan(30);
    for (const r of results.filter((r) => r.status !== 200)) {
      expect({ status: r.status, body: r.body }).toEqual({ status: 429, body: { error: "too many attempts" } });
    }
  });
});
