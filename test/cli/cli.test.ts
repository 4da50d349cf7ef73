/**
 * The `tandem` command line from source, as an operator uses it: spawned processes over real data dirs, and
 * real servers on those dirs answering over HTTP (contract §1, README "Running it" and "Administering it").
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { request, UUID } from "../helpers/http";
import {
  cleanEnv,
  cliCommand,
  type RunResult,
  runCli,
  type SpawnedServer,
  spawnServer,
  tempDir,
} from "../helpers/server";
import { listen } from "../helpers/sockets";

// Spawned processes and argon2id hashes on a 2-core machine: well beyond bun's default 5 s per test.

const dirs: string[] = [];
const servers: SpawnedServer[] = [];

/** A temp dir removed after the file. */
function dir(): string {
  const d = tempDir("tandem-cli-");
  dirs.push(d);
  return d;
}

/** A source server on `dataDir`, stopped after the file. */
async function serve(dataDir: string, env: Record<string, string | undefined> = {}): Promise<SpawnedServer> {
  const server = await spawnServer({ dataDir, env });
  servers.push(server);
  return server;
}

afterAll(async () => {
  for (const server of servers) if (server.proc.exitCode === null) await server.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Asserts a failure the way the contract puts it: a non-zero exit and one line on stderr, nothing on stdout. */
function expectOneLineFailure(result: RunResult, code: number | "non-zero" = 1): string {
  if (code === "non-zero") expect(result.code).not.toBe(0);
  else expect(result.code).toBe(code);
  expect(result.stdout).toBe("");
  const lines = result.stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]?.trim().length).toBeGreaterThan(0);
  return lines[0] as string;
}

/** Parses stdout that must be exactly one JSON line. */
function jsonLine(result: RunResult): any {
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.stdout.endsWith("\n")).toBe(true);
  expect(result.stdout.trimEnd().split("\n")).toHaveLength(1);
  return JSON.parse(result.stdout);
}

const login = (base: string, email: string, password: string) =>
  request(base, "POST", "/api/v1/auth/login", { body: { email, password } });

/** `tandem serve` with exactly the given args and env (no flags added), until it logs where it listens. */
async function serveRaw(args: string[], env: Record<string, string>) {
  const proc = Bun.spawn([...cliCommand("source"), "serve", ...args], {
    env: cleanEnv(env),
    stdout: "pipe",
    stderr: "pipe",
  });
  const lines: string[] = [];
  const listening = Promise.withResolvers<{ url: string; data_dir: string }>();
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of proc.stdout as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        lines.push(line);
        try {
          const entry = JSON.parse(line);
          if (entry.msg === "tandem is listening") listening.resolve(entry);
        } catch {}
      }
    }
  })();
  void proc.exited.then(async (code) =>
    listening.reject(new Error(`serve exited with ${code}: ${await new Response(proc.stderr).text()}`)),
  );
  const timer = setTimeout(() => listening.reject(new Error(`serve did not start:\n${lines.join("\n")}`)), 15000);
  try {
    const entry = await listening.promise;
    const stop = () => {
      proc.kill("SIGTERM");
      return proc.exited;
    };
    return { ...entry, lines, stop };
  } catch (error) {
    proc.kill("SIGKILL");
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** A port nobody listens on right now. */
function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const port = probe.port as number;
  probe.stop(true);
  return port;
}

// One install shared by the setup, users, reset-password and provisioning tests.
const ADMIN = { email: "admin@acme.test", password: "8charpwd", name: "Ada Admin" };
let main: string;
let setupIds: { organization_id: string; user_id: string };

beforeAll(() => {
  main = dir();
});

describe("tandem setup", () => {
  it("exits 1 with one line for an invalid email, and creates no organization", async () => {
    const res = await runCli([
      "setup",
      "--org-name",
      "Acme",
      "--admin-email",
      "not-an-email",
      "--admin-password",
      "long enough password",
      "--data",
      main,
    ]);
    // The reason names the flag the operator typed, not the API's field.
    expect(expectOneLineFailure(res)).toBe("tandem: --admin-email: must be an email address");
  });

  it("exits 1 with one line for a password under 8 characters", async () => {
    const res = await runCli([
      "setup",
      "--org-name",
      "Acme",
      "--admin-email",
      ADMIN.email,
      "--admin-password",
      "7-chars",
      "--data",
      main,
    ]);
    expect(expectOneLineFailure(res)).toBe("tandem: --admin-password: must be at least 8 characters");
    // Input is checked before anything is written: no database appears.
    expect(existsSync(join(main, "tandem.db"))).toBe(false);
  });

  it("prints exactly {organization_id, user_id} on stdout and exits 0 (8 characters is enough)", async () => {
    const res = await runCli([
      "setup",
      "--org-name",
      "Acme",
      "--admin-email",
      ADMIN.email,
      "--admin-password",
      ADMIN.password,
      "--admin-name",
      ADMIN.name,
      "--data",
      main,
    ]);
    setupIds = jsonLine(res);
    expect(Object.keys(setupIds).sort()).toEqual(["organization_id", "user_id"]);
    expect(setupIds.organization_id).toMatch(UUID);
    expect(setupIds.user_id).toMatch(UUID);
    expect(existsSync(join(main, "tandem.db"))).toBe(true);
  });

  it("exits 1 with one line when an organization already exists", async () => {
    const res = await runCli([
      "setup",
      "--org-name",
      "Other",
      "--admin-email",
      "other@acme.test",
      "--admin-password",
      "another password",
      "--data",
      main,
    ]);
    expect(expectOneLineFailure(res)).toMatch(/organization already exists/);
  });

  it("run four times at once on a new data dir: one creates the organization, the others say it exists", async () => {
    const fresh = dir();
    const results = await Promise.all(
      [1, 2, 3, 4].map((i) =>
        runCli([
          ...["setup", "--org-name", `Race ${i}`, "--admin-email", `race${i}@acme.test`],
          ...["--admin-password", "race password", "--data", fresh],
        ]),
      ),
    );
    // Each migrates the new database first: none may fail on a migration another one applied meanwhile.
    expect(results.filter((r) => r.code === 0)).toHaveLength(1);
    for (const res of results.filter((r) => r.code !== 0)) {
      expect(expectOneLineFailure(res)).toBe("tandem: organization already exists");
    }
  });

  it("exits non-zero with one line when a required option is missing", async () => {
    const res = await runCli(["setup", "--org-name", "Acme", "--admin-email", "x@acme.test", "--data", dir()]);
    expect(expectOneLineFailure(res, "non-zero")).toContain("--admin-password");
  });

  it("holds names to the API's rule: 1 to 100 characters, one line", async () => {
    const base = ["setup", "--org-name", "Acme", "--admin-email", "x@acme.test", "--admin-password", "password-1"];
    const long = await runCli([...base, "--admin-name", "N".repeat(101), "--data", dir()]);
    expect(expectOneLineFailure(long)).toBe("tandem: --admin-name: must be 1 to 100 characters");
    const twoLines = await runCli([...base, "--admin-name", "a\nb", "--data", dir()]);
    expect(expectOneLineFailure(twoLines)).toBe("tandem: --admin-name: must not contain control characters");
    const blank = await runCli([...base, "--admin-name", "\u200b", "--data", dir()]);
    expect(expectOneLineFailure(blank)).toBe("tandem: --admin-name: must contain a visible character");
  });

  it("holds the email and password to POST /api/v1/public/setup's rules: refused alike, and nothing created", async () => {
    const server = await serve(dir());
    const token = new URL(server.setupUrl as string).searchParams.get("token") as string;
    const good = { org_name: "Acme", admin_email: "x@acme.test", admin_password: "password-1" };
    const cases: [Partial<typeof good>, string][] = [
      [{ admin_email: `${"e".repeat(245)}@acme.test` }, "--admin-email: must be at most 254 characters"],
      [{ admin_email: "x@acme.t" }, "--admin-email: must be an email address"],
      [{ admin_password: "p".repeat(1025) }, "--admin-password: must be at most 1024 characters"],
    ];
    for (const [bad, line] of cases) {
      const body = { ...good, ...bad };
      const api = await request(server.url, "POST", "/api/v1/public/setup", { body: { token, ...body } });
      expect(api.status).toBe(400);
      expect(`--${api.body.error.replace("_", "-")}`).toBe(line);
      const data = dir();
      const res = await runCli([
        "setup",
        "--org-name",
        body.org_name,
        "--admin-email",
        body.admin_email,
        "--admin-password",
        body.admin_password,
        "--data",
        data,
      ]);
      expect(expectOneLineFailure(res)).toBe(`tandem: ${line}`);
      expect(existsSync(join(data, "tandem.db"))).toBe(false);
    }
    await server.stop();
  });

  it("takes an email of 254 and a password of 1024 characters, and the owner logs in with them", async () => {
    const data = dir();
    const email = `${"e".repeat(244)}@acme.test`;
    const password = "p".repeat(1024);
    expect(email).toHaveLength(254);
    const res = await runCli([
      "setup",
      "--org-name",
      "Long",
      "--admin-email",
      email,
      "--admin-password",
      password,
      "--data",
      data,
    ]);
    jsonLine(res);
    const server = await serve(data);
    expect((await login(server.url, email, password)).status).toBe(200);
    await server.stop();
  });
});

describe("tandem keygen", () => {
  const STRICT_BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

  it("prints a fresh base64 key of exactly 32 bytes", async () => {
    const [a, b] = await Promise.all([runCli(["keygen"]), runCli(["keygen"])]);
    for (const res of [a, b]) {
      expect(res.code).toBe(0);
      expect(res.stdout.trimEnd().split("\n")).toHaveLength(1);
      const key = res.stdout.trim();
      expect(key).toMatch(STRICT_BASE64);
      expect(Buffer.from(key, "base64")).toHaveLength(32);
    }
    expect(a.stdout).not.toBe(b.stdout);
  });

  it("prints the key as JSON with --json", async () => {
    const out = jsonLine(await runCli(["keygen", "--json"]));
    const values = Object.values(out);
    expect(values).toHaveLength(1);
    const key = values[0] as string;
    expect(key).toMatch(STRICT_BASE64);
    expect(Buffer.from(key, "base64")).toHaveLength(32);
  });
});

describe("tandem version", () => {
  it("prints dev and an empty sha from source, as JSON with --json", async () => {
    expect(jsonLine(await runCli(["version", "--json"]))).toEqual({ version: "dev", git_sha: "" });
    const text = await runCli(["version"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("dev");
    for (const flag of ["--version", "-V"]) {
      const res = await runCli([flag]);
      expect(res.code).toBe(0);
      expect(res.stdout.trim()).toBe("dev");
    }
  });
});

describe("tandem users", () => {
  it("adds a member with the Member role by default", async () => {
    const res = await runCli([
      "users",
      "add",
      "--email",
      "mia@acme.test",
      "--password",
      "mia-password",
      "--name",
      "Mia Member",
      "--data",
      main,
    ]);
    expect(res.code).toBe(0);
    expect(res.stderr).toBe("");
  });

  it("adds a user with the role given by --role, and prints JSON with --json", async () => {
    const out = jsonLine(
      await runCli([
        "users",
        "add",
        "--email",
        "vic@acme.test",
        "--password",
        "vic-password",
        "--role",
        "Viewer",
        "--json",
        "--data",
        main,
      ]),
    );
    expect(out.email).toBe("vic@acme.test");
    expect(out.id).toMatch(UUID);
  });

  it("exits 1 with one line for an unknown role, a duplicate email or a short password", async () => {
    const attempts = [
      ["--email", "x1@acme.test", "--password", "x1-password", "--role", "Astronaut"],
      ["--email", "mia@acme.test", "--password", "another-password"],
      ["--email", "MIA@acme.test", "--password", "another-password"],
      ["--email", "x2@acme.test", "--password", "short"],
      ["--email", "not-an-email", "--password", "x3-password"],
      ["--email", "x4@acme.test", "--password", "x4-password", "--role", ""],
    ];
    const results = await Promise.all(attempts.map((a) => runCli(["users", "add", ...a, "--data", main])));
    expect(results.map((res) => expectOneLineFailure(res))).toEqual([
      'tandem: --role: no role named "Astronaut"',
      "tandem: already a member of the organization",
      "tandem: already a member of the organization",
      "tandem: --password: must be at least 8 characters",
      "tandem: --email: must be an email address",
      "tandem: --role: must name a role",
    ]);
    const emails = jsonLine(await runCli(["users", "list", "--json", "--data", main])).users.map(
      (u: { email: string }) => u.email,
    );
    expect(emails).not.toContain("x1@acme.test");
    expect(emails).not.toContain("x2@acme.test");
    expect(emails).not.toContain("x4@acme.test");
  });

  it("refuses an email over 254 and a password over 1024 characters, as the API does, and adds no one", async () => {
    const long = `${"e".repeat(245)}@acme.test`;
    const [email, password] = await Promise.all([
      runCli(["users", "add", "--email", long, "--password", "long-password", "--data", main]),
      runCli(["users", "add", "--email", "x4@acme.test", "--password", "p".repeat(1025), "--data", main]),
    ]);
    expect(expectOneLineFailure(email)).toBe("tandem: --email: must be at most 254 characters");
    expect(expectOneLineFailure(password)).toBe("tandem: --password: must be at most 1024 characters");
    const emails = jsonLine(await runCli(["users", "list", "--json", "--data", main])).users.map(
      (u: { email: string }) => u.email,
    );
    expect(emails).not.toContain(long);
    expect(emails).not.toContain("x4@acme.test");
  });

  it("refuses an empty or blank --name as setup refuses --admin-name, and names no one after the email by it", async () => {
    for (const name of ["", "   "]) {
      const res = await runCli([
        "users",
        "add",
        "--email",
        "nn@acme.test",
        "--password",
        "nn-password",
        "--name",
        name,
        "--data",
        main,
      ]);
      expect(expectOneLineFailure(res)).toBe("tandem: --name: must be 1 to 100 characters");
    }
    const setup = await runCli([
      "setup",
      "--org-name",
      "Acme",
      "--admin-email",
      "x@acme.test",
      "--admin-password",
      "password-1",
      "--admin-name",
      "",
      "--data",
      dir(),
    ]);
    expect(expectOneLineFailure(setup)).toBe("tandem: --admin-name: must be 1 to 100 characters");
    // Without --name, the display name is the email's local part, as before.
    const added = jsonLine(
      await runCli(["users", "add", "--email", "nn@acme.test", "--password", "nn-password", "--json", "--data", main]),
    );
    expect(added.display_name).toBe("nn");
  });

  it("exits non-zero with one line when --email or --password is missing", async () => {
    expectOneLineFailure(await runCli(["users", "add", "--password", "some-password", "--data", main]), "non-zero");
    expectOneLineFailure(await runCli(["users", "add", "--email", "y@acme.test", "--data", main]), "non-zero");
  });

  it("lists every account with its roles as {users: [{id, email, display_name, role_names}]}", async () => {
    const out = jsonLine(await runCli(["users", "list", "--json", "--data", main]));
    expect(Object.keys(out)).toEqual(["users"]);
    for (const user of out.users) {
      expect(Object.keys(user).sort()).toEqual(["display_name", "email", "id", "role_names"]);
      expect(user.id).toMatch(UUID);
    }
    const byEmail = Object.fromEntries(out.users.map((u: { email: string }) => [u.email, u]));
    expect(Object.keys(byEmail).sort()).toEqual([ADMIN.email, "mia@acme.test", "nn@acme.test", "vic@acme.test"]);
    expect(byEmail[ADMIN.email]).toEqual({
      id: setupIds.user_id,
      email: ADMIN.email,
      display_name: ADMIN.name,
      role_names: ["Owner"],
    });
    expect(byEmail["mia@acme.test"].display_name).toBe("Mia Member");
    expect(byEmail["mia@acme.test"].role_names).toEqual(["Member"]);
    expect(byEmail["vic@acme.test"].role_names).toEqual(["Viewer"]);
  });

  it("lists the accounts as text without --json", async () => {
    const res = await runCli(["users", "list", "--data", main]);
    expect(res.code).toBe(0);
    for (const email of [ADMIN.email, "mia@acme.test", "vic@acme.test"]) expect(res.stdout).toContain(email);
    const lines = res.stdout.trim().split("\n");
    expect(lines[0]).toBe("EMAIL\tNAME\tROLES\tSTATUS\tID");
    expect(lines.find((l) => l.startsWith(`${ADMIN.email}\t`))).toBe(
      `${ADMIN.email}\t${ADMIN.name}\tOwner\tmember\t${setupIds.user_id}`,
    );
  });

  it("exits 1 with one line on a data dir without a database, and creates none", async () => {
    const empty = dir();
    expectOneLineFailure(await runCli(["users", "list", "--data", empty]));
    expect(existsSync(join(empty, "tandem.db"))).toBe(false);
  });
});

describe("tandem users reset-password", () => {
  let server: SpawnedServer;
  const RESET = { email: "rita@acme.test", old: "rita-old-password", new: "rita-new-password" };

  beforeAll(async () => {
    const added = await runCli(["users", "add", "--email", RESET.email, "--password", RESET.old, "--data", main]);
    expect(added.code).toBe(0);
    server = await serve(main);
  });

  it("serves an existing install without a setup URL", () => {
    expect(server.setupUrl).toBeNull();
    expect(server.output.join("\n")).not.toContain("setup_url");
  });

  it("makes the users the CLI created able to log in at the running server", async () => {
    const res = await login(server.url, ADMIN.email, ADMIN.password);
    expect(res.status).toBe(200);
    const orgs = await request(server.url, "GET", "/api/v1/organizations", { token: res.body.access_token });
    expect(orgs.body.organizations.map((o: { id: string }) => o.id)).toEqual([setupIds.organization_id]);
    expect((await login(server.url, "vic@acme.test", "vic-password")).status).toBe(200);
  });

  it("makes the old password fail, the new one work, and ends the user's sessions", async () => {
    const before = await login(server.url, RESET.email, RESET.old);
    expect(before.status).toBe(200);
    const oldRefresh = before.body.refresh_token as string;
    const events = await listen(server.url, setupIds.organization_id, before.body.access_token);

    const res = await runCli([
      "users",
      "reset-password",
      "--email",
      RESET.email,
      "--password",
      RESET.new,
      "--data",
      main,
    ]);
    expect(res.code).toBe(0);
    expect(res.stderr).toBe("");

    const oldLogin = await login(server.url, RESET.email, RESET.old);
    expect(oldLogin.status).toBe(401);
    expect(oldLogin.body).toEqual({ error: "invalid credentials" });
    const newLogin = await login(server.url, RESET.email, RESET.new);
    expect(newLogin.status).toBe(200);
    expect(newLogin.body.token_type).toBe("Bearer");

    const refresh = await request(server.url, "POST", "/api/v1/auth/refresh", { body: { refresh_token: oldRefresh } });
    expect(refresh.status).toBe(401);
    expect(refresh.body).toEqual({ error: "invalid refresh token" });

    // The access token of the old session ends too, within seconds (the server reads sessions again every 5 s),
    // long before its 15 minutes; the new session's works.
    const me = (token: string) => request(server.url, "GET", "/api/v1/me", { token });
    const deadline = Date.now() + 8000;
    let old = await me(before.body.access_token);
    while (old.status === 200 && Date.now() < deadline) {
      await Bun.sleep(200);
      old = await me(before.body.access_token);
    }
    expect(old.status).toBe(401);
    expect(old.body).toEqual({ error: "unauthorized" });
    expect((await me(newLogin.body.access_token)).status).toBe(200);
    // Its open live-events socket closes too, within about 5 s (open sockets' sessions are read every 5 s).
    const closed = await Promise.race([events.closed, Bun.sleep(15_000).then(() => null)]);
    events.close();
    expect(closed).toEqual({ code: 4401, reason: "unauthorized" });
  });

  it("users add brings back a removed member, with the operator's password, name and role", async () => {
    const RON = { email: "ron@acme.test", old: "ron-old-password", new: "ron-new-password" };
    const first = jsonLine(
      await runCli(["users", "add", "--email", RON.email, "--password", RON.old, "--json", "--data", main]),
    );
    const admin = (await login(server.url, ADMIN.email, ADMIN.password)).body.access_token as string;
    const members = `/api/v1/organizations/${setupIds.organization_id}/members`;
    const ron = (await login(server.url, RON.email, RON.old)).body.access_token as string;
    expect((await request(server.url, "DELETE", `${members}/${first.id}`, { token: admin })).status).toBe(204);
    const listing = (await runCli(["users", "list", "--data", main])).stdout.split("\n");
    expect(listing.find((l) => l.startsWith(`${RON.email}\t`))).toBe(
      `${RON.email}\tron\t(no role)\tnot a member\t${first.id}`,
    );

    const again = await runCli([
      "users",
      "add",
      "--email",
      RON.email,
      "--password",
      RON.new,
      "--name",
      "Ron Again",
      "--role",
      "Viewer",
      "--json",
      "--data",
      main,
    ]);
    expect(again.code).toBe(0);
    expect(jsonLine(again)).toEqual({ id: first.id, email: RON.email, display_name: "Ron Again" });
    expect((await login(server.url, RON.email, RON.old)).status).toBe(401);
    const back = await login(server.url, RON.email, RON.new);
    expect(back.status).toBe(200);
    const orgs = await request(server.url, "GET", "/api/v1/organizations", { token: back.body.access_token });
    expect(orgs.body.organizations.map((o: { id: string }) => o.id)).toEqual([setupIds.organization_id]);
    const listed = (await request(server.url, "GET", members, { token: admin })).body.members.find(
      (m: { user_id: string }) => m.user_id === first.id,
    );
    const roles = (
      await request(server.url, "GET", `/api/v1/organizations/${setupIds.organization_id}/roles`, {
        token: admin,
      })
    ).body.roles;
    expect(listed.display_name).toBe("Ron Again");
    expect(listed.role_ids).toEqual([roles.find((r: { name: string }) => r.name === "Viewer").id]);
    // The session from before the removal stays ended.
    expect((await request(server.url, "GET", "/api/v1/me", { token: ron })).status).toBe(401);

    expect(
      expectOneLineFailure(await runCli(["users", "add", "--email", RON.email, "--password", RON.new, "--data", main])),
    ).toBe("tandem: already a member of the organization");
  });

  it("prints JSON with --json", async () => {
    const out = jsonLine(
      await runCli([
        "users",
        "reset-password",
        "--email",
        RESET.email,
        "--password",
        RESET.new,
        "--json",
        "--data",
        main,
      ]),
    );
    expect(out.email).toBe(RESET.email);
  });

  it("exits 1 with one line for an unknown email or a password under 8 or over 1024 characters", async () => {
    const [unknown, short] = await Promise.all([
      runCli(["users", "reset-password", "--email", "nobody@acme.test", "--password", "long-password", "--data", main]),
      runCli(["users", "reset-password", "--email", RESET.email, "--password", "1234567", "--data", main]),
    ]);
    expectOneLineFailure(unknown);
    expect(expectOneLineFailure(short)).toBe("tandem: --password: must be at least 8 characters");
    // Login takes no password over 1024 characters: one set here would lock the user out.
    const long = await runCli([
      "users",
      "reset-password",
      "--email",
      RESET.email,
      "--password",
      "p".repeat(1025),
      "--data",
      main,
    ]);
    expect(expectOneLineFailure(long)).toBe("tandem: --password: must be at most 1024 characters");
    expect((await login(server.url, RESET.email, RESET.new)).status).toBe(200);
  });

  it("exits non-zero for an unknown subcommand", async () => {
    expectOneLineFailure(await runCli(["users", "frobnicate", "--data", main]), "non-zero");
    expectOneLineFailure(await runCli(["frobnicate"]), "non-zero");
  });
});

describe("tandem provisioning", () => {
  const SECRET = "install-secret-value-QWxy";
  const SET = [
    "provisioning",
    "set",
    "--base-url",
    "https://prov.example.com:8443/api",
    "--install-id",
    "install-42",
    "--install-secret",
    SECRET,
  ];
  let server: SpawnedServer;
  const instance = async (base = server.url) => (await request(base, "GET", "/api/v1/public/instance")).body;

  beforeAll(async () => {
    server = servers.find((s) => s.proc.exitCode === null) ?? (await serve(main));
  });

  it("show and clear need a database: a mistyped --data creates nothing", async () => {
    const typo = join(dir(), "typo");
    for (const sub of ["show", "clear"]) {
      expect(expectOneLineFailure(await runCli(["provisioning", sub, "--data", typo]))).toContain("no database at");
    }
    expect(existsSync(typo)).toBe(false);
  });

  it("is disabled with an empty base domain before anything is set", async () => {
    expect(await instance()).toMatchObject({ provisioning_enabled: false, provisioning_base_domain: "" });
    const shown = jsonLine(await runCli(["provisioning", "show", "--json", "--data", main]));
    expect(shown.provisioning_enabled).toBe(false);
  });

  it("after set, the server answers enabled with the base URL's hostname without its port", async () => {
    const out = jsonLine(await runCli([...SET, "--json", "--data", main]));
    expect(typeof out).toBe("object");
    expect(await instance()).toMatchObject({
      provisioning_enabled: true,
      provisioning_base_domain: "prov.example.com",
    });
  });

  it("show never prints the install secret in full, as text or JSON", async () => {
    const text = await runCli(["provisioning", "show", "--data", main]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("install-42");
    expect(text.stdout).not.toContain(SECRET);
    const json = jsonLine(await runCli(["provisioning", "show", "--json", "--data", main]));
    expect(json.provisioning_enabled).toBe(true);
    expect(JSON.stringify(json)).toContain("https://prov.example.com:8443/api");
    expect(JSON.stringify(json)).not.toContain(SECRET);
  });

  it("stores the install secret encrypted, not in the database file as plain text", () => {
    // The server holds the database open, so its write-ahead log is there beside it.
    for (const file of ["tandem.db", "tandem.db-wal"]) {
      const path = join(main, file);
      expect(existsSync(path), path).toBe(true);
      expect(readFileSync(path).includes(Buffer.from(SECRET)), path).toBe(false);
    }
  });

  it("lets the PROVISIONING_* environment override the stored values", async () => {
    const env = {
      PROVISIONING_BASE_URL: "https://override.example.net:9443",
      PROVISIONING_INSTALL_ID: "install-env",
      PROVISIONING_INSTALL_SECRET: "env-secret-value-ZZ99",
    };
    const shown = await runCli(["provisioning", "show", "--json", "--data", main], { env });
    const json = jsonLine(shown);
    expect(json.provisioning_enabled).toBe(true);
    expect(shown.stdout).toContain("install-env");
    expect(shown.stdout).toContain("https://override.example.net:9443");
    expect(shown.stdout).not.toContain("install-42");
    expect(shown.stdout).not.toContain(env.PROVISIONING_INSTALL_SECRET);

    // One serve per data dir: the usual server steps aside for one started with the override.
    await server.stop();
    const other = await serve(main, { PROVISIONING_BASE_URL: env.PROVISIONING_BASE_URL });
    expect(await instance(other.url)).toMatchObject({
      provisioning_enabled: true,
      provisioning_base_domain: "override.example.net",
    });
    await other.stop();
    server = await serve(main);
  });

  it("exits 1 with one line for a base URL that is not http(s), and keeps the stored values", async () => {
    const bad = await runCli([
      "provisioning",
      "set",
      "--base-url",
      "not a url",
      "--install-id",
      "x",
      "--install-secret",
      "y",
      "--data",
      main,
    ]);
    expect(expectOneLineFailure(bad)).toBe("tandem: --base-url: must be an http(s) URL");
    expect((await instance()).provisioning_base_domain).toBe("prov.example.com");
  });

  it("exits non-zero with one line when a required option is missing", async () => {
    const res = await runCli(["provisioning", "set", "--base-url", "https://x.example.com", "--data", main]);
    expectOneLineFailure(res, "non-zero");
    expectOneLineFailure(await runCli(["provisioning", "enable", "--data", main]), "non-zero");
  });

  it("after clear, the server answers disabled with an empty base domain", async () => {
    const out = jsonLine(await runCli(["provisioning", "clear", "--json", "--data", main]));
    expect(typeof out).toBe("object");
    expect(await instance()).toMatchObject({ provisioning_enabled: false, provisioning_base_domain: "" });
    const json = jsonLine(await runCli(["provisioning", "show", "--json", "--data", main]));
    expect(json.provisioning_enabled).toBe(false);
    expect(JSON.stringify(json)).not.toContain("prov.example.com");
  });

  it("is enabled by the three environment variables alone, and not by only some of them", async () => {
    const all = {
      PROVISIONING_BASE_URL: "https://env-only.example.org",
      PROVISIONING_INSTALL_ID: "install-env",
      PROVISIONING_INSTALL_SECRET: "env-secret-value-ZZ99",
    };
    expect(jsonLine(await runCli(["provisioning", "show", "--json", "--data", main], { env: all }))).toMatchObject({
      provisioning_enabled: true,
    });
    const some = { ...all, PROVISIONING_INSTALL_SECRET: undefined };
    expect(jsonLine(await runCli(["provisioning", "show", "--json", "--data", main], { env: some }))).toMatchObject({
      provisioning_enabled: false,
    });
  });
});

describe("tandem serve on a new install", () => {
  let server: SpawnedServer;
  let token: string;
  const body = () => ({
    token,
    org_name: "Fresh Org",
    admin_email: "founder@fresh.test",
    admin_password: "founder-password",
    admin_name: "Fay Founder",
  });

  beforeAll(async () => {
    server = await serve(dir());
  });

  it("logs exactly one line carrying setup_url = http://HOST:PORT/setup?token=…", () => {
    const lines = server.output.filter((l) => l.includes("setup_url"));
    expect(lines).toHaveLength(1);
    const setupUrl = JSON.parse(lines[0] as string).setup_url as string;
    const port = new URL(server.url).port;
    expect(setupUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/setup\\?token=[A-Za-z0-9_-]{16,}$`));
    token = new URL(setupUrl).searchParams.get("token") as string;
  });

  it("answers needs_setup true at GET /api/v1/public/instance", async () => {
    const res = await request(server.url, "GET", "/api/v1/public/instance");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      provisioning_enabled: false,
      provisioning_base_domain: "",
      needs_setup: true,
      open_signups_enabled: false,
      email_enabled: false,
    });
  });

  it("refuses a wrong setup token with 403 invalid setup token", async () => {
    const res = await request(server.url, "POST", "/api/v1/public/setup", { body: { ...body(), token: `${token}x` } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "invalid setup token" });
    const empty = await request(server.url, "POST", "/api/v1/public/setup", { body: { ...body(), token: "" } });
    expect(empty.status).toBe(403);
    expect(empty.body).toEqual({ error: "invalid setup token" });
  });

  it("creates the organization and its signed-in owner with the logged token: 201", async () => {
    const res = await request(server.url, "POST", "/api/v1/public/setup", { body: body() });
    expect(res.status).toBe(201);
    expect(res.body.organization_id).toMatch(UUID);
    expect(res.body.user_id).toMatch(UUID);
    expect(res.body.token_type).toBe("Bearer");
    expect(res.body.expires_in).toBe(900);
    expect(typeof res.body.access_token).toBe("string");
    expect(typeof res.body.refresh_token).toBe("string");
    const me = await request(server.url, "GET", "/api/v1/me", { token: res.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(res.body.user_id);
    expect(me.body.user.display_name).toBe("Fay Founder");
    const inst = await request(server.url, "GET", "/api/v1/public/instance");
    expect(inst.body.needs_setup).toBe(false);
    expect((await login(server.url, "founder@fresh.test", "founder-password")).status).toBe(200);
  });

  it("answers a second setup, even with the same token, 409 organization already exists", async () => {
    const res = await request(server.url, "POST", "/api/v1/public/setup", {
      body: { ...body(), admin_email: "second@fresh.test" },
    });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "organization already exists" });
    expect((await login(server.url, "second@fresh.test", "founder-password")).status).toBe(401);
  });
});

describe("every subcommand", () => {
  // Contract §1: every subcommand takes `--data DIR`, and `--json` where it prints.
  it("accepts --json on setup, printing the same {organization_id, user_id}", async () => {
    const fresh = dir();
    const res = await runCli([
      "setup",
      "--org-name",
      "Json Org",
      "--admin-email",
      "json@acme.test",
      "--admin-password",
      "json-password",
      "--json",
      "--data",
      fresh,
    ]);
    const out = jsonLine(res);
    expect(Object.keys(out).sort()).toEqual(["organization_id", "user_id"]);
  });

  it("accepts --data on keygen and version", async () => {
    const d = dir();
    const [keygen, version] = await Promise.all([
      runCli(["keygen", "--json", "--data", d]),
      runCli(["version", "--json", "--data", d]),
    ]);
    expect(Buffer.from(Object.values(jsonLine(keygen))[0] as string, "base64")).toHaveLength(32);
    expect(jsonLine(version)).toEqual({ version: "dev", git_sha: "" });
  });
});

describe("a database that cannot be opened", () => {
  it("makes serve, users and backup exit 1 with one line naming the file", async () => {
    const d = dir();
    // A directory where the database file should be: SQLite says only "unable to open database file".
    mkdirSync(join(d, "tandem.db"));
    const results = await Promise.all([
      runCli(["serve", "--port", "0", "--data", d]),
      runCli(["users", "list", "--data", d]),
      runCli(["backup", "--out", join(dir(), "b.db"), "--data", d]),
    ]);
    for (const res of results) {
      expect(expectOneLineFailure(res)).toBe(
        `tandem: cannot open the database ${join(d, "tandem.db")}: unable to open database file (it and its directory must be readable and writable)`,
      );
    }
  });
});

describe("a data dir that cannot be made", () => {
  it("makes serve and setup exit 1 with one line naming the dir and why", async () => {
    const d = dir();
    // A file where a directory on the data dir's path should be.
    writeFileSync(join(d, "file"), "");
    const data = join(d, "file", "data");
    const setup = ["setup", "--org-name", "Acme", "--admin-email", "o@acme.test", "--admin-password", "owner-pass"];
    const results = await Promise.all([
      runCli(["serve", "--port", "0", "--data", data]),
      runCli([...setup, "--data", data]),
    ]);
    for (const res of results) {
      expect(expectOneLineFailure(res)).toBe(
        `tandem: cannot create the data dir ${data}: something on its path is a file, not a directory: give another --data`,
      );
    }
  });
});

describe("a provisioning secret stored under another encryption key", () => {
  it("reads as unreadable and leaves the instance answering 200 with provisioning off", async () => {
    const d = dir();
    const keyA = "a".repeat(64);
    const keyB = "b".repeat(64);
    jsonLine(
      await runCli([
        "setup",
        "--org-name",
        "K",
        "--admin-email",
        "k@acme.test",
        "--admin-password",
        "k-password",
        "--data",
        d,
      ]),
    );
    const set = await runCli(
      [
        "provisioning",
        "set",
        "--base-url",
        "https://p.example.com",
        "--install-id",
        "i",
        "--install-secret",
        "s3cret-value",
        "--data",
        d,
      ],
      { env: { APP_SSH_ENCRYPTION_KEY: keyA } },
    );
    expect(set.code).toBe(0);
    const show = jsonLine(
      await runCli(["provisioning", "show", "--json", "--data", d], { env: { APP_SSH_ENCRYPTION_KEY: keyB } }),
    );
    expect(show.provisioning_enabled).toBe(false);
    expect(show.settings.find((e: { key: string }) => e.key === "install_secret")).toEqual({
      key: "install_secret",
      value: null,
      source: "unreadable",
    });
    const server = await serve(d, { APP_SSH_ENCRYPTION_KEY: keyB });
    const res = await request(server.url, "GET", "/api/v1/public/instance");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      provisioning_enabled: false,
      provisioning_base_domain: "",
      needs_setup: false,
      open_signups_enabled: false,
      email_enabled: false,
    });
  });
});

describe("command groups", () => {
  it("exits 1 with one line when a group is given no subcommand", async () => {
    for (const group of ["users", "provisioning"]) {
      const res = await runCli([group]);
      expect(res.code).toBe(1);
      expect(res.stderr.trim().split("\n")).toHaveLength(1);
      expect(res.stderr).toContain(`${group} needs a subcommand`);
    }
  });

  it("exits 1 with one line naming an unknown subcommand of a group, options or not", async () => {
    const [users, provisioning] = await Promise.all([
      runCli(["users", "bogus", "--data", dir()]),
      runCli(["provisioning", "bogus", "--json"]),
    ]);
    expect(expectOneLineFailure(users)).toBe(
      "tandem: unknown command 'bogus' for 'users': use add, list or reset-password",
    );
    expect(expectOneLineFailure(provisioning)).toBe(
      "tandem: unknown command 'bogus' for 'provisioning': use set, show or clear",
    );
  });
});

describe("stray words after a subcommand", () => {
  it("are refused, as before the groups learnt to name unknown subcommands", async () => {
    const data = dir();
    const results = await Promise.all([
      runCli(["users", "list", "extra", "--data", data]),
      runCli(["provisioning", "clear", "extra", "--data", data]),
      runCli(["users", "add", "--email", "w@acme.test", "--password", "longpassword1", "more", "--data", data]),
    ]);
    for (const res of results) expect(expectOneLineFailure(res)).toContain("too many arguments");
  });
});

describe("mistakes on the command line", () => {
  it("exits 1 with one line naming the commands when given none", async () => {
    const line = expectOneLineFailure(await runCli([]));
    expect(line).toStartWith("tandem: needs a command: serve, setup");
  });

  it("exits 1 with one line, in Tandem's words, for an unknown command or option or a missing option", async () => {
    for (const [args, text] of [
      [["nope"], "tandem: unknown command 'nope'"],
      [["version", "--bogus"], "tandem: unknown option '--bogus'"],
      [["users", "reset-password", "--password", "x"], "tandem: required option '--email <email>' not specified"],
    ] as const) {
      expect(expectOneLineFailure(await runCli([...args]))).toBe(text);
    }
  });
});

describe("flags and environment", () => {
  it("takes PORT, HOST and TANDEM_DATA_DIR from the environment", async () => {
    const envDir = dir();
    const port = freePort();
    const server = await serveRaw([], { PORT: String(port), HOST: "127.0.0.1", TANDEM_DATA_DIR: envDir });
    try {
      expect(server.url).toBe(`http://127.0.0.1:${port}`);
      expect(server.data_dir).toBe(envDir);
      expect((await request(server.url, "GET", "/health")).status).toBe(200);
      expect(existsSync(join(envDir, "tandem.db"))).toBe(true);
    } finally {
      await server.stop();
    }
  });

  it("lets --port, --host and --data win over PORT, HOST and TANDEM_DATA_DIR", async () => {
    const envDir = dir();
    const flagDir = dir();
    const envPort = freePort();
    const server = await serveRaw(["--port", "0", "--host", "127.0.0.1", "--data", flagDir], {
      PORT: String(envPort),
      HOST: "0.0.0.0",
      TANDEM_DATA_DIR: envDir,
    });
    try {
      const url = new URL(server.url);
      expect(url.hostname).toBe("127.0.0.1");
      expect(url.port).not.toBe(String(envPort));
      expect(server.data_dir).toBe(flagDir);
      expect((await request(server.url, "GET", "/health")).status).toBe(200);
      expect(existsSync(join(flagDir, "tandem.db"))).toBe(true);
      expect(existsSync(join(envDir, "tandem.db"))).toBe(false);
    } finally {
      await server.stop();
    }
  });

  it("takes --json on serve, whose log is JSON lines anyway", async () => {
    const server = await serveRaw(["--port", "0", "--host", "127.0.0.1", "--data", dir(), "--json"], {});
    try {
      expect((await request(server.url, "GET", "/health")).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it("lets --data win over TANDEM_DATA_DIR for the other subcommands, and uses the env without it", async () => {
    const empty = dir();
    const viaFlag = jsonLine(
      await runCli(["users", "list", "--json", "--data", main], { env: { TANDEM_DATA_DIR: empty } }),
    );
    expect(viaFlag.users.length).toBeGreaterThan(0);
    const viaEnv = jsonLine(await runCli(["users", "list", "--json"], { env: { TANDEM_DATA_DIR: main } }));
    expect(viaEnv).toEqual(viaFlag);
    expect(existsSync(join(empty, "tandem.db"))).toBe(false);
  });

  it("uses ./data of the working directory without --data or TANDEM_DATA_DIR", async () => {
    const cwd = dir();
    const proc = Bun.spawn(
      [
        ...cliCommand("source"),
        "setup",
        "--org-name",
        "Cwd",
        "--admin-email",
        "c@acme.test",
        "--admin-password",
        "cwd-pass",
      ],
      { cwd, env: cleanEnv(), stdout: "pipe", stderr: "pipe" },
    );
    expect(await proc.exited).toBe(0);
    expect(existsSync(join(cwd, "data", "tandem.db"))).toBe(true);
  });

  it("exits non-zero with one line for a port out of range", async () => {
    expectOneLineFailure(await runCli(["serve", "--port", "70000", "--data", dir()]), "non-zero");
  });

  it("exits non-zero with one line for an invalid PROVISIONING_BASE_URL, LOG_LEVEL, blank port or a file as --data", async () => {
    const file = join(dir(), "a-file");
    await Bun.write(file, "x");
    const cases: [string[], Record<string, string>, string][] = [
      [["--port", "0"], { PROVISIONING_BASE_URL: "notaurl" }, "PROVISIONING_BASE_URL must be an http(s) URL"],
      [["--port", "0"], { LOG_LEVEL: "chatty" }, "LOG_LEVEL must be one of"],
      [["--port", " "], {}, "must be 0 to 65535"],
      [["--port", "0", "--data", file], {}, "is not a directory"],
    ];
    for (const [args, env, says] of cases) {
      const line = expectOneLineFailure(await runCli(["serve", "--data", dir(), ...args], { env }), "non-zero");
      expect(line).toContain(says);
    }
  });

  it("refuses integers not written in plain decimal digits, flag or env, with the range in one line", async () => {
    const cases: [string[], Record<string, string>, string][] = [
      [["--port", "0x86a0"], {}, "'0x86a0' is invalid. must be 0 to 65535"],
      [["--port", "1e4"], {}, "'1e4' is invalid. must be 0 to 65535"],
      [["--port", "8080.0"], {}, "'8080.0' is invalid. must be 0 to 65535"],
      [["--port", "-0"], {}, "'-0' is invalid. must be 0 to 65535"],
      [[], { PORT: "34202.0" }, "PORT must be an integer between 0 and 65535"],
      [[], { PORT: " " }, "PORT must be an integer between 0 and 65535"],
      [["--port", "0"], { TANDEM_STAFF_WORKERS: "0x10" }, "TANDEM_STAFF_WORKERS must be an integer between 1 and 256"],
      [["--port", "0"], { TANDEM_MAX_UPLOAD_BYTES: "1e3" }, "TANDEM_MAX_UPLOAD_BYTES must be an integer between 1 and"],
      [["--port", "0"], { MODELROUTER_CHAT_MAX_TOKENS: "+100" }, "MODELROUTER_CHAT_MAX_TOKENS must be an integer"],
    ];
    const results = await Promise.all(
      cases.map(([args, env]) => runCli(["serve", "--host", "127.0.0.1", "--data", dir(), ...args], { env })),
    );
    results.forEach((res, i) => {
      expect(expectOneLineFailure(res, "non-zero")).toContain(cases[i]?.[2] as string);
    });
  });

  it("takes integers in plain decimal digits with whitespace around them", async () => {
    const port = freePort();
    const server = await serveRaw(["--data", dir()], {
      PORT: ` ${port} `,
      HOST: " 127.0.0.1 ",
      TANDEM_STAFF_WORKERS: "04",
      TANDEM_MAX_UPLOAD_BYTES: "1000 ",
    });
    try {
      expect(server.url).toBe(`http://127.0.0.1:${port}`);
    } finally {
      await server.stop();
    }
    const flagged = await serveRaw(["--port", ` ${freePort()}`, "--host", "127.0.0.1", "--data", dir()], {});
    await flagged.stop();
  });

  it("refuses an empty --host and an empty or blank HOST in one line, rather than listening on every interface", async () => {
    const cases: [string[], Record<string, string>, string][] = [
      [["--host", ""], {}, "tandem: option '--host <host>' argument '' is invalid. must not be empty"],
      [["--host", "  "], {}, "tandem: option '--host <host>' argument '  ' is invalid. must not be empty"],
      [[], { HOST: "" }, "tandem: HOST must not be empty"],
      [[], { HOST: " " }, "tandem: HOST must not be empty"],
    ];
    const results = await Promise.all(
      cases.map(([args, env]) => runCli(["serve", "--port", "0", "--data", dir(), ...args], { env })),
    );
    results.forEach((res, i) => {
      expect(expectOneLineFailure(res, "non-zero")).toBe(cases[i]?.[2] as string);
    });
  });

  it("refuses an empty --data in one line on every command, rather than using the working directory", async () => {
    const results = await Promise.all([
      runCli(["serve", "--port", "0", "--data", ""]),
      runCli(["users", "list", "--data", " "]),
      runCli(["backup", "--out", join(dir(), "b.db"), "--data", ""]),
    ]);
    for (const res of results) expect(expectOneLineFailure(res)).toBe("tandem: --data must not be empty");
  });

  it("names the data dir's key file, not an unset variable, when that file is invalid", async () => {
    const data = dir();
    await Bun.write(join(data, "encryption_key"), "garbage\n");
    const line = expectOneLineFailure(await runCli(["serve", "--port", "0", "--data", data]), "non-zero");
    expect(line).toContain(`${join(data, "encryption_key")}: must be 64 hex characters`);
  });

  it("refuses a second serve on a data dir in use, in one line, and serves it once the first has stopped", async () => {
    const data = dir();
    const first = await serveRaw(["--port", "0", "--host", "127.0.0.1", "--data", data], {});
    let again: Awaited<ReturnType<typeof serveRaw>> | undefined;
    try {
      const line = expectOneLineFailure(await runCli(["serve", "--port", "0", "--data", data]), "non-zero");
      expect(line).toBe(`tandem: ${data} is in use by another \`tandem serve\`: stop it first, or give another --data`);
      // The short commands still run beside a serving process.
      expect((await runCli(["users", "list", "--json", "--data", data])).code).toBe(0);
      expect((await request(first.url, "GET", "/health")).status).toBe(200);
      expect(await first.stop()).toBe(0);
      again = await serveRaw(["--port", "0", "--host", "127.0.0.1", "--data", data], {});
      expect((await request(again.url, "GET", "/health")).status).toBe(200);
    } finally {
      await first.stop();
      await again?.stop();
    }
  });

  it("refuses a port another server holds, even another tandem serve, in one line", async () => {
    const first = await serveRaw(["--port", "0", "--host", "127.0.0.1", "--data", dir()], {});
    try {
      const port = new URL(first.url).port;
      const result = await runCli(["serve", "--port", port, "--host", "127.0.0.1", "--data", dir()]);
      // serve logs its start (the data dir's new keys, migrations) to stdout before it tries the port.
      expect(result.code).not.toBe(0);
      const lines = result.stderr.trimEnd().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toStartWith(`tandem: cannot listen on 127.0.0.1:${port}: `);
      // The first keeps every request: the instance answer is its own, time after time.
      for (let i = 0; i < 6; i++) {
        const res = await request(first.url, "GET", "/api/v1/public/instance");
        expect(res.body.needs_setup).toBe(true);
      }
    } finally {
      await first.stop();
    }
  });

  it("frees the data dir when a serving process is killed outright", async () => {
    const data = dir();
    const first = Bun.spawn([...cliCommand("source"), "serve", "--port", "0", "--host", "127.0.0.1", "--data", data], {
      env: cleanEnv(),
      stdout: "pipe",
      stderr: "pipe",
    });
    // Wait until it serves (it logs where), then kill it without a chance to clean up.
    const reader = (first.stdout as ReadableStream<Uint8Array>).getReader();
    let out = "";
    while (!out.includes("tandem is listening")) {
      const chunk = await reader.read();
      if (chunk.done) throw new Error(`serve exited: ${out}`);
      out += new TextDecoder().decode(chunk.value);
    }
    first.kill("SIGKILL");
    await first.exited;
    const again = await serveRaw(["--port", "0", "--host", "127.0.0.1", "--data", data], {});
    try {
      expect((await request(again.url, "GET", "/health")).status).toBe(200);
    } finally {
      await again.stop();
    }
  });

  it("exits non-zero with one line when MODELROUTER_CHAT_MAX_TOKENS does not exceed the reasoning budget", async () => {
    const env = { MODELROUTER_CHAT_REASONING_JSON: '{"max_tokens":1000}', MODELROUTER_CHAT_MAX_TOKENS: "1000" };
    const line = expectOneLineFailure(await runCli(["serve", "--port", "0", "--data", dir()], { env }), "non-zero");
    expect(line).toContain("MODELROUTER_CHAT_MAX_TOKENS must exceed");
  });
});
