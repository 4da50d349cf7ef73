/**
 * The compiled executable `dist/tandem` end to end, with nothing beside it but its data dir: setup, serve,
 * login, a reverse tunnel through `tandem tunnel`, a backup while serving, a restore into a new dir served and
 * logged into, the build stamp and the web UI.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { copyFileSync, existsSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json";
import { request, UUID } from "../helpers/http";
import { BINARY, cleanEnv, type RunResult, runCli, type SpawnedServer, spawnServer, tempDir } from "../helpers/server";

// Spawned processes and argon2id hashes on a 2-core machine: well beyond bun's default 5 s per test.

if (!existsSync(BINARY)) {
  throw new Error(`${BINARY} is missing: run ./install.sh first`);
}

const OWNER = { email: "owner@smoke.test", password: "smoke-owner-password" };
const dirs: string[] = [];
const servers: SpawnedServer[] = [];

function dir(): string {
  const d = tempDir("tandem-smoke-");
  dirs.push(d);
  return d;
}

const tandem = (args: string[]) => runCli(args, { kind: "binary" });

async function serve(dataDir: string): Promise<SpawnedServer> {
  const server = await spawnServer({ kind: "binary", dataDir });
  servers.push(server);
  return server;
}

function jsonOut(result: RunResult): any {
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
}

const login = (base: string) => request(base, "POST", "/api/v1/auth/login", { body: OWNER });

let data: string;
let server: SpawnedServer;
let ids: { organization_id: string; user_id: string };

beforeAll(async () => {
  data = dir();
});

afterAll(async () => {
  for (const s of servers) if (s.proc.exitCode === null) await s.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("dist/tandem", () => {
  it("sets up an install and prints {organization_id, user_id}", async () => {
    ids = jsonOut(
      await tandem([
        "setup",
        "--org-name",
        "Smoke",
        "--admin-email",
        OWNER.email,
        "--admin-password",
        OWNER.password,
        "--data",
        data,
      ]),
    );
    expect(Object.keys(ids).sort()).toEqual(["organization_id", "user_id"]);
    expect(ids.organization_id).toMatch(UUID);
    expect(ids.user_id).toMatch(UUID);
  });

  it("is stamped with the package version and a git sha, not dev", async () => {
    const version = jsonOut(await tandem(["version", "--json"]));
    expect(Object.keys(version).sort()).toEqual(["git_sha", "version"]);
    expect(version.version).toBe(pkg.version);
    expect(version.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(version.git_sha).toMatch(/^([0-9a-f]{7,40})?$/);
  });

  it("serves /health as {status, version, git_sha} with the build's version", async () => {
    server = await serve(data);
    expect(server.setupUrl).toBeNull();
    const health = await request(server.url, "GET", "/health");
    expect(health.status).toBe(200);
    expect(Object.keys(health.body).sort()).toEqual(["git_sha", "status", "version"]);
    expect(typeof health.body.status).toBe("string");
    expect(health.body.version).toBe(pkg.version);
    expect(health.body.version).not.toBe("dev");
    const version = jsonOut(await tandem(["version", "--json"]));
    expect(health.body.git_sha).toBe(version.git_sha);
  });

  it("serves the web page at / and its assets", async () => {
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const html = await page.text();
    expect(html.toLowerCase()).toContain("<html");
    const asset = html.match(/\/assets\/[^"']+\.js/)?.[0];
    expect(asset).toBeDefined();
    const js = await fetch(`${server.url}${asset}`);
    expect(js.status).toBe(200);
    expect((await js.text()).length).toBeGreaterThan(0);
  });

  it("logs in the owner the CLI created", async () => {
    const res = await login(server.url);
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe("Bearer");
    expect(res.body.expires_in).toBe(900);
    const orgs = await request(server.url, "GET", "/api/v1/organizations", { token: res.body.access_token });
    expect(orgs.body.organizations.map((o: { id: string }) => o.id)).toEqual([ids.organization_id]);
  });

  it("relays a reverse tunnel to a local service through its own connector, `tandem tunnel`", async () => {
    const token = (await login(server.url)).body.access_token as string;
    const org = `/api/v1/organizations/${ids.organization_id}`;
    const space = (await request(server.url, "POST", `${org}/spaces`, { token, body: { name: "Smoke tunnel" } })).body
      .id;
    const created = await request(server.url, "POST", `${org}/spaces/${space}/automations`, {
      token,
      body: { name: "Preview", kind: "reverse_tunnel", status: "active" },
    });
    expect(created.status).toBe(201);
    const id = created.body.automation.id as string;
    const local = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (req) => new Response(`${req.method} ${new URL(req.url).pathname} ${(await req.bytes()).length}`),
    });
    const connector = Bun.spawn(
      [
        BINARY,
        "tunnel",
        "--server",
        server.url,
        "--automation",
        id,
        "--to",
        `http://127.0.0.1:${local.port}`,
        "--json",
      ],
      { env: cleanEnv({ TANDEM_TOKEN: token }), stdin: "ignore", stdout: "pipe", stderr: "pipe" },
    );
    try {
      const reader = (connector.stdout as ReadableStream<Uint8Array>).getReader();
      const { value } = await reader.read();
      const connected = JSON.parse(new TextDecoder().decode(value).split("\n")[0] as string);
      expect(connected).toMatchObject({ event: "connected", url: `${server.url}/tunnels/${id}/` });
      const auth = { authorization: `Bearer ${token}` };
      const got = await fetch(`${server.url}/tunnels/${id}/hello?x=1`, { headers: auth });
      expect(got.status).toBe(200);
      expect(await got.text()).toBe("GET /hello 0");
      const posted = await fetch(`${server.url}/tunnels/${id}/up`, {
        method: "POST",
        headers: auth,
        body: new Uint8Array(3 * 1024 * 1024),
      });
      expect(await posted.text()).toBe(`POST /up ${3 * 1024 * 1024}`);
      reader.releaseLock();
      connector.kill("SIGINT");
      expect(await connector.exited).toBe(0);
    } finally {
      connector.kill("SIGKILL");
      local.stop(true);
    }
  });

  it("backs up while serving and writing, restores into a new dir, and serves and logs in from there", async () => {
    // Something encrypted under the data dir's generated key, to find again after the restore.
    const provisioned = await tandem([
      "provisioning",
      "set",
      "--base-url",
      "https://prov.smoke.test:8443",
      "--install-id",
      "smoke-install",
      "--install-secret",
      "smoke-install-secret",
      "--data",
      data,
    ]);
    expect(provisioned.code).toBe(0);
    const token = (await login(server.url)).body.access_token as string;
    let running = true;
    let acknowledged = 0;
    const writer = (async () => {
      for (let n = 1; running; n++) {
        const res = await request(server.url, "PATCH", "/api/v1/me", { token, body: { display_name: `Smoke ${n}` } });
        if (res.status === 200) acknowledged = n;
      }
    })();
    let backupFile: string;
    let before: number;
    try {
      while (acknowledged < 20) await Bun.sleep(10);
      before = acknowledged;
      backupFile = join(dir(), "smoke.backup");
      const out = jsonOut(await tandem(["backup", "--out", backupFile, "--json", "--data", data]));
      expect(out.bytes).toBe(statSync(backupFile).size);
    } finally {
      running = false;
      await writer;
    }

    const restored = join(dir(), "restored");
    jsonOut(await tandem(["restore", "--from", backupFile, "--data", restored, "--json"]));
    expect(existsSync(join(restored, "tandem.db"))).toBe(true);
    // The backup holds no key; the operator keeps the data dir's encryption_key file with it (README).
    expect(existsSync(join(restored, "encryption_key"))).toBe(false);
    copyFileSync(join(data, "encryption_key"), join(restored, "encryption_key"));

    const back = await serve(restored);
    expect(back.setupUrl).toBeNull();
    expect(back.output.join("\n")).not.toContain("APP_SSH_ENCRYPTION_KEY was not set");
    const instance = await request(back.url, "GET", "/api/v1/public/instance");
    expect(instance.status).toBe(200);
    expect(instance.body).toEqual({
      provisioning_enabled: true,
      provisioning_base_domain: "prov.smoke.test",
      needs_setup: false,
      open_signups_enabled: false,
      email_enabled: false,
    });
    const res = await login(back.url);
    expect(res.status).toBe(200);
    const me = await request(back.url, "GET", "/api/v1/me", { token: res.body.access_token });
    expect(me.body.user.id).toBe(ids.user_id);
    expect(Number(/^Smoke (\d+)$/.exec(me.body.user.display_name)?.[1])).toBeGreaterThanOrEqual(before);
    const users = jsonOut(await tandem(["users", "list", "--json", "--data", restored]));
    expect(users.users.map((u: { email: string }) => u.email)).toEqual([OWNER.email]);
    await back.stop();
  });
});
