/**
 * JWT_SECRET and APP_SSH_ENCRYPTION_KEY (contract §1 "Secrets", §7): generated once into the data dir when
 * unset, refused with one line when set but invalid, used when given, and never written to the log.
 */

import { Database } from "bun:sqlite";
import { afterAll, describe, expect, it } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { request } from "../helpers/http";
import {
  cleanEnv,
  cliCommand,
  type RunResult,
  runCli,
  type SpawnedServer,
  spawnServer,
  tempDir,
} from "../helpers/server";

// Spawned processes and argon2id hashes on a 2-core machine: well beyond bun's default 5 s per test.

const dirs: string[] = [];
const servers: SpawnedServer[] = [];

function dir(): string {
  const d = tempDir("tandem-secrets-");
  dirs.push(d);
  return d;
}

/** A data dir that `tandem setup` has made an organization in (owner a@acme.test / a-password). */
async function setUpDir(): Promise<string> {
  const data = dir();
  const args = ["--org-name", "Acme", "--admin-email", "a@acme.test", "--admin-password", "a-password"];
  expect((await runCli(["setup", ...args, "--data", data])).code).toBe(0);
  return data;
}

async function serve(dataDir: string, env: Record<string, string | undefined> = {}): Promise<SpawnedServer> {
  const server = await spawnServer({ dataDir, env });
  servers.push(server);
  return server;
}

/** Stops a server and waits for the last lines of its output to be collected. */
async function stop(server: SpawnedServer): Promise<void> {
  await server.stop();
  await Bun.sleep(100);
}

afterAll(async () => {
  for (const server of servers) if (server.proc.exitCode === null) await server.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** `tandem serve` expected to fail at start; killed (and reported as such) if it serves instead. */
async function serveExpectingFailure(dataDir: string, env: Record<string, string>): Promise<RunResult> {
  const proc = Bun.spawn([...cliCommand("source"), "serve", "--port", "0", "--host", "127.0.0.1", "--data", dataDir], {
    env: cleanEnv(env),
    stdout: "pipe",
    stderr: "pipe",
    timeout: 10000,
    killSignal: "SIGKILL",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

/** Everything in a data dir except the database: name → bytes. */
function secretFiles(dataDir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ["jwt_secret", "encryption_key"]) {
    const path = join(dataDir, name);
    if (existsSync(path)) out[name] = readFileSync(path, "utf8");
  }
  return out;
}

const login = (base: string, email: string, password: string) =>
  request(base, "POST", "/api/v1/auth/login", { body: { email, password } });

function expectOneLineFailure(result: RunResult, mentions: string): void {
  expect(result.code).not.toBe(0);
  expect(result.stdout).not.toContain("tandem is listening");
  const lines = result.stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(mentions);
}

// The install whose secrets were generated; reused by the invalid-secret tests.
let generatedDir: string;
let generatedOutput: string[] = [];

describe("secrets left unset", () => {
  it("are generated into the data dir with mode 0600, with a warning in the log", async () => {
    generatedDir = dir();
    const server = await serve(generatedDir);
    generatedOutput = server.output;
    for (const name of ["jwt_secret", "encryption_key"]) {
      const path = join(generatedDir, name);
      expect(existsSync(path)).toBe(true);
      expect(statSync(path).mode & 0o777).toBe(0o600);
    }
    const files = secretFiles(generatedDir);
    expect((files.jwt_secret ?? "").trim().length).toBeGreaterThanOrEqual(32);
    const key = (files.encryption_key ?? "").trim();
    const keyBytes = /^[0-9a-fA-F]{64}$/.test(key) ? Buffer.from(key, "hex") : Buffer.from(key, "base64");
    expect(keyBytes).toHaveLength(32);

    const warnings = server.output.map((l) => JSON.parse(l)).filter((e) => e.level === "warn");
    expect(warnings.some((w) => String(w.msg).includes("JWT_SECRET"))).toBe(true);
    expect(warnings.some((w) => String(w.msg).includes("APP_SSH_ENCRYPTION_KEY"))).toBe(true);
    expect((await request(server.url, "GET", "/health")).status).toBe(200);
    await stop(server);
  });

  it("are generated only once: a restart keeps them and warns no more", async () => {
    const before = secretFiles(generatedDir);
    const server = await serve(generatedDir);
    expect(secretFiles(generatedDir)).toEqual(before);
    // The only warning left is the way in: the data dir has no organization yet.
    const warnings = server.output.map((l) => JSON.parse(l)).filter((e) => e.level === "warn");
    expect(warnings.map((w) => w.msg)).toEqual(["first-run setup: open this URL to create the organization"]);
    await stop(server);
  });

  it("are generated in place of an empty file (left by a start that could not write it: a full disk)", async () => {
    const data = dir();
    mkdirSync(data, { recursive: true });
    writeFileSync(join(data, "encryption_key"), "", { mode: 0o600 });
    writeFileSync(join(data, "jwt_secret"), "\n", { mode: 0o600 });
    const server = await serve(data);
    expect((await request(server.url, "GET", "/health")).status).toBe(200);
    const files = secretFiles(data);
    expect((files.jwt_secret ?? "").trim().length).toBeGreaterThanOrEqual(32);
    expect((files.encryption_key ?? "").trim().length).toBeGreaterThanOrEqual(44);
    // Written whole, beside the file, and linked into place: no partial file stays.
    expect(readdirSync(data).filter((name) => name.includes(".partial-"))).toEqual([]);
    await stop(server);
  });

  it("never appear in the log", () => {
    const files = secretFiles(generatedDir);
    const log = generatedOutput.join("\n");
    for (const value of Object.values(files)) expect(log).not.toContain(value.trim());
  });
});

describe("a JWT_SECRET that is set but invalid", () => {
  it("stops serve with one line and replaces nothing", async () => {
    const before = secretFiles(generatedDir);
    const res = await serveExpectingFailure(generatedDir, { JWT_SECRET: "x".repeat(31) });
    expectOneLineFailure(res, "JWT_SECRET");
    expect(secretFiles(generatedDir)).toEqual(before);
  });

  it("stops serve on a fresh data dir without generating one in its place", async () => {
    const fresh = dir();
    const res = await serveExpectingFailure(fresh, { JWT_SECRET: "too-short" });
    expectOneLineFailure(res, "JWT_SECRET");
    expect(existsSync(join(fresh, "jwt_secret"))).toBe(false);
  });
});

describe("an APP_SSH_ENCRYPTION_KEY that is set but invalid", () => {
  const invalid = {
    "63 hex characters": "a".repeat(63),
    "65 hex characters": "b".repeat(65),
    "64 characters that are not hex": "g".repeat(64),
    "base64 of 31 bytes": Buffer.alloc(31, 7).toString("base64"),
    "base64 of 33 bytes": Buffer.alloc(33, 7).toString("base64"),
    "not base64": "this is not a key!",
  };

  it("stops serve with one line for each kind, and replaces nothing", async () => {
    const before = secretFiles(generatedDir);
    // One after another: serve processes on one data dir take its lock in turn.
    for (const key of Object.values(invalid)) {
      const res = await serveExpectingFailure(generatedDir, { APP_SSH_ENCRYPTION_KEY: key });
      expectOneLineFailure(res, "APP_SSH_ENCRYPTION_KEY");
    }
    expect(secretFiles(generatedDir)).toEqual(before);
  });

  it("stops serve on a fresh data dir without generating a key in its place", async () => {
    const fresh = dir();
    const res = await serveExpectingFailure(fresh, { APP_SSH_ENCRYPTION_KEY: invalid["base64 of 31 bytes"] });
    expectOneLineFailure(res, "APP_SSH_ENCRYPTION_KEY");
    expect(existsSync(join(fresh, "encryption_key"))).toBe(false);
  });
});

describe("a refused start", () => {
  it("generates neither secret when the other is invalid, and leaves a new data dir uncreated", async () => {
    const invalid: Record<string, string>[] = [{ APP_SSH_ENCRYPTION_KEY: "abc" }, { JWT_SECRET: "too-short" }];
    for (const env of invalid) {
      const fresh = join(dir(), "new");
      const res = await serveExpectingFailure(fresh, env);
      expectOneLineFailure(res, Object.keys(env)[0] as string);
      expect(existsSync(fresh)).toBe(false);
    }
  });

  it("refuses a secret set to nothing (a template left unfilled), rather than generating one", async () => {
    for (const name of ["JWT_SECRET", "APP_SSH_ENCRYPTION_KEY"]) {
      const fresh = join(dir(), "new");
      const res = await serveExpectingFailure(fresh, { [name]: "" });
      expect(res.stderr.trimEnd()).toBe(
        `tandem: ${name} is set but empty: set it to a valid value, or unset it to have one generated`,
      );
      expect(existsSync(fresh)).toBe(false);
    }
  });

  it("refuses a database from a newer Tandem before generating a secret or taking the data dir's lock", async () => {
    const data = await setUpDir();
    const db = new Database(join(data, "tandem.db"));
    db.exec("INSERT INTO __migrations (tag, applied_at) VALUES ('9999_future', 0)");
    db.close();
    const res = await serveExpectingFailure(data, {});
    expectOneLineFailure(res, "comes from a newer Tandem (migration 9999_future)");
    expect(readdirSync(data)).toEqual(["tandem.db"]);
  });
});

describe("the encryption key of the commands beside serve", () => {
  const KEY = Buffer.alloc(32, 0x3c).toString("base64");
  const set = (data: string, env: Record<string, string> = {}) =>
    runCli(
      [
        "provisioning",
        "set",
        "--base-url",
        "https://prov.example.com",
        "--install-id",
        "i-2",
        "--install-secret",
        "s-2-secret",
        "--data",
        data,
      ],
      { env },
    );

  it("is never generated: without APP_SSH_ENCRYPTION_KEY or the data dir's key, provisioning set and show refuse in one line", async () => {
    const data = dir();
    const server = await serve(data, { APP_SSH_ENCRYPTION_KEY: KEY, JWT_SECRET: "j".repeat(32) });
    const refused = [await set(data), await runCli(["provisioning", "show", "--data", data])];
    for (const res of refused) {
      expect(res.code).toBe(1);
      expect(res.stdout).toBe("");
      expect(res.stderr).toBe(
        `tandem: APP_SSH_ENCRYPTION_KEY is not set and ${join(data, "encryption_key")} does not exist: ` +
          "set APP_SSH_ENCRYPTION_KEY as `tandem serve` has it, or start `tandem serve` once to generate the key\n",
      );
    }
    expect(secretFiles(data)).toEqual({});
    // Given the server's key, the secret it stores is one the server reads.
    expect((await set(data, { APP_SSH_ENCRYPTION_KEY: KEY })).code).toBe(0);
    expect(secretFiles(data)).toEqual({});
    expect((await request(server.url, "GET", "/api/v1/public/instance")).body.provisioning_enabled).toBe(true);
    await stop(server);
  });

  it("lets provisioning set run before the first start only when given, and then writes no secret file", async () => {
    const fresh = join(dir(), "new");
    expect((await set(fresh)).code).toBe(1);
    expect(existsSync(fresh)).toBe(false);
    expect((await set(fresh, { APP_SSH_ENCRYPTION_KEY: KEY })).code).toBe(0);
    expect(secretFiles(fresh)).toEqual({});
  });
});

describe("a valid APP_SSH_ENCRYPTION_KEY", () => {
  it("is accepted as 64 hex characters and as base64 of 32 bytes, as the same key", async () => {
    const generated = await runCli(["keygen"]);
    const base64 = generated.stdout.trim();
    const hex = Buffer.from(base64, "base64").toString("hex");
    expect(hex).toHaveLength(64);
    const data = dir();
    // Stored encrypted under the hex form of the key...
    const set = await runCli(
      [
        "provisioning",
        "set",
        "--base-url",
        "https://prov.example.com",
        "--install-id",
        "i-1",
        "--install-secret",
        "s-1-secret",
        "--data",
        data,
      ],
      { env: { APP_SSH_ENCRYPTION_KEY: hex } },
    );
    expect(set.code).toBe(0);
    // ...and read back by a server given the base64 form.
    const server = await serve(data, { APP_SSH_ENCRYPTION_KEY: base64 });
    const inst = await request(server.url, "GET", "/api/v1/public/instance");
    expect(inst.status).toBe(200);
    expect(inst.body.provisioning_enabled).toBe(true);
    expect(existsSync(join(data, "encryption_key"))).toBe(false);
    await stop(server);
    const upper = await serve(data, { APP_SSH_ENCRYPTION_KEY: hex.toUpperCase() });
    expect((await request(upper.url, "GET", "/api/v1/public/instance")).body.provisioning_enabled).toBe(true);
    await stop(upper);
  });
});

describe("a given JWT_SECRET", () => {
  const A = "A".repeat(32); // exactly 32 characters is enough
  const B = "b-secret-of-more-than-32-characters-0123456789";

  it("signs the tokens: a server with another secret refuses them with 401 unauthorized", async () => {
    const data = await setUpDir();

    const first = await serve(data, { JWT_SECRET: A });
    const session = await login(first.url, "a@acme.test", "a-password");
    expect(session.status).toBe(200);
    const token = session.body.access_token as string;
    expect((await request(first.url, "GET", "/api/v1/me", { token })).status).toBe(200);
    await stop(first);

    const second = await serve(data, { JWT_SECRET: B });
    const refused = await request(second.url, "GET", "/api/v1/me", { token });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: "unauthorized" });
    const own = await login(second.url, "a@acme.test", "a-password");
    expect((await request(second.url, "GET", "/api/v1/me", { token: own.body.access_token })).status).toBe(200);
    await stop(second);

    // Given in the environment, it is never written to (or generated into) the data dir.
    expect(existsSync(join(data, "jwt_secret"))).toBe(false);

    const third = await serve(data, { JWT_SECRET: A });
    expect((await request(third.url, "GET", "/api/v1/me", { token })).status).toBe(200);
    await stop(third);
  });
});

describe("the log", () => {
  it("never holds an access token, a refresh token, a password or a secret", async () => {
    const JWT_SECRET = "jwt-secret-for-the-log-test-0123456789abcdef";
    const KEY = Buffer.alloc(32, 0x5a).toString("hex");
    const PASSWORD = "owner-log-password";
    const WRONG = "wrong-log-password";
    const MEMBER_PASSWORD = "member-log-password";
    const QUERY_TOKEN = "query-token-value-8f3a9c";
    const server = await serve(dir(), { JWT_SECRET, APP_SSH_ENCRYPTION_KEY: KEY, LOG_LEVEL: "debug" });
    const setupToken = new URL(server.setupUrl as string).searchParams.get("token") as string;
    const base = server.url;

    const setup = await request(base, "POST", "/api/v1/public/setup", {
      body: { token: setupToken, org_name: "Acme", admin_email: "o@acme.test", admin_password: PASSWORD },
    });
    expect(setup.status).toBe(201);
    const secrets: string[] = [PASSWORD, WRONG, MEMBER_PASSWORD, QUERY_TOKEN, JWT_SECRET, KEY];
    secrets.push(setup.body.access_token, setup.body.refresh_token);

    expect((await login(base, "o@acme.test", WRONG)).status).toBe(401);
    const session = await login(base, "o@acme.test", PASSWORD);
    expect(session.status).toBe(200);
    const access = session.body.access_token as string;
    secrets.push(access, session.body.refresh_token);

    const org = setup.body.organization_id as string;
    const invite = await request(base, "POST", `/api/v1/organizations/${org}/invites`, {
      token: access,
      body: { email: "m@acme.test" },
    });
    expect(invite.status).toBe(201);
    secrets.push(invite.body.token);
    const accepted = await request(base, "POST", "/api/v1/auth/accept-invite", {
      body: { token: invite.body.token, email: "m@acme.test", password: MEMBER_PASSWORD, display_name: "M" },
    });
    expect(accepted.status).toBe(201);
    secrets.push(accepted.body.access_token, accepted.body.refresh_token);

    expect((await request(base, "GET", "/api/v1/me", { token: access })).status).toBe(200);
    const refreshed = await request(base, "POST", "/api/v1/auth/refresh", {
      body: { refresh_token: session.body.refresh_token },
    });
    expect(refreshed.status).toBe(200);
    secrets.push(refreshed.body.access_token, refreshed.body.refresh_token);
    // A reused refresh token and a bad bearer token are refused, and are not logged either.
    expect(
      (await request(base, "POST", "/api/v1/auth/refresh", { body: { refresh_token: session.body.refresh_token } }))
        .status,
    ).toBe(401);
    expect((await request(base, "GET", "/api/v1/me", { token: `${access}tampered` })).status).toBe(401);
    expect(
      (await request(base, "POST", "/api/v1/auth/logout", { body: { refresh_token: refreshed.body.refresh_token } }))
        .status,
    ).toBe(204);
    await request(base, "GET", `/api/v1/me?token=${access}`);
    await request(base, "GET", `/api/v1/nothing?token=${QUERY_TOKEN}&access_token=${access}&x=1`);
    await request(base, "GET", `/setup?token=${QUERY_TOKEN}`);
    await stop(server);

    const output = server.output;
    expect(output.length).toBeGreaterThan(5);
    // Every request was logged, so the redaction had something to do.
    expect(output.some((l) => l.includes("/api/v1/auth/login"))).toBe(true);
    expect(output.some((l) => l.includes("/api/v1/nothing"))).toBe(true);
    const log = output.join("\n");
    for (const secret of secrets) {
      expect(typeof secret).toBe("string");
      expect(log.includes(secret) ? `log contains ${secret}` : "clean").toBe("clean");
    }
    // The setup token appears once, by design, in the setup URL line.
    expect(output.filter((l) => l.includes(setupToken))).toHaveLength(1);
  });
});
