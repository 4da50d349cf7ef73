/**
 * `tandem backup --out FILE` and `tandem restore --from FILE` (contract §1): a consistent backup taken while a
 * spawned server keeps writing, restored into an empty data dir and served from there; and the refusals.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { request } from "../helpers/http";
import { type RunResult, runCli, type SpawnedServer, spawnServer, tempDir } from "../helpers/server";

// Spawned processes and argon2id hashes on a 2-core machine: well beyond bun's default 5 s per test.

// Backups do not hold the encryption key: both installs are given the same one, as an operator would.
const ENV = {
  JWT_SECRET: "backup-test-jwt-secret-0123456789abcdef",
  APP_SSH_ENCRYPTION_KEY: Buffer.alloc(32, 0x2b).toString("base64"),
};
const OWNER = { email: "owner@backup.test", password: "owner-password" };

const dirs: string[] = [];
const servers: SpawnedServer[] = [];

function dir(): string {
  const d = tempDir("tandem-backup-");
  dirs.push(d);
  return d;
}

async function serve(dataDir: string): Promise<SpawnedServer> {
  const server = await spawnServer({ dataDir, env: ENV });
  servers.push(server);
  return server;
}

afterAll(async () => {
  for (const server of servers) if (server.proc.exitCode === null) await server.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function expectOneLineFailure(result: RunResult): string {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe("");
  const lines = result.stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  return lines[0] as string;
}

function jsonOut(result: RunResult): any {
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.stdout.trimEnd().split("\n")).toHaveLength(1);
  return JSON.parse(result.stdout);
}

const login = (base: string, email: string, password: string) =>
  request(base, "POST", "/api/v1/auth/login", { body: { email, password } });

/** What the writers had acknowledged at a moment. */
interface Progress {
  /** Index of the last display name the server acknowledged. */
  name: number;
  /** Emails of the users whose invite acceptance the server acknowledged. */
  users: string[];
}

let source: string;
let server: SpawnedServer;
let orgId: string;
let ownerToken: string;
let backupFile: string;
let restored: string;
let beforeBackup: Progress;
let afterBackup: Progress;
let sentBeforeBackupEnd: number;

beforeAll(async () => {
  source = dir();
  const provisioned = await runCli(
    [
      "provisioning",
      "set",
      "--base-url",
      "https://prov.backup.test",
      "--install-id",
      "inst-b",
      "--install-secret",
      "install-secret-b",
      "--data",
      source,
    ],
    { env: ENV },
  );
  expect(provisioned.code).toBe(0);
  server = await serve(source);
  const token = new URL(server.setupUrl as string).searchParams.get("token");
  const setup = await request(server.url, "POST", "/api/v1/public/setup", {
    body: { token, org_name: "Backup Co", admin_email: OWNER.email, admin_password: OWNER.password },
  });
  expect(setup.status).toBe(201);
  orgId = setup.body.organization_id;
  ownerToken = setup.body.access_token;
});

describe("tandem backup while serve writes", () => {
  it("writes a file that passes SQLite's integrity check, and prints JSON with --json", async () => {
    let running = true;
    let sent = 0;
    const progress: Progress = { name: 0, users: [] };
    const errors: string[] = [];

    const renamer = (async () => {
      while (running) {
        const n = ++sent;
        const res = await request(server.url, "PATCH", "/api/v1/me", {
          token: ownerToken,
          body: { display_name: `Owner ${n}` },
        });
        if (res.status !== 200) errors.push(`PATCH /me ${res.status} ${res.text}`);
        else progress.name = Math.max(progress.name, n);
      }
    })();
    const inviter = (async () => {
      for (let n = 1; running; n++) {
        const email = `user${n}@backup.test`;
        const invite = await request(server.url, "POST", `/api/v1/organizations/${orgId}/invites`, {
          token: ownerToken,
          body: { email },
        });
        if (invite.status !== 201) {
          errors.push(`invite ${invite.status} ${invite.text}`);
          continue;
        }
        const accepted = await request(server.url, "POST", "/api/v1/auth/accept-invite", {
          body: { token: invite.body.token, email, password: `password-${n}`, display_name: `User ${n}` },
        });
        if (accepted.status !== 201) errors.push(`accept ${accepted.status} ${accepted.text}`);
        else progress.users.push(email);
      }
    })();

    try {
      // Let the writers get going, then back up in the middle of their writes.
      while (progress.users.length < 2) await Bun.sleep(20);
      beforeBackup = { name: progress.name, users: [...progress.users] };
      backupFile = join(dir(), "tandem-backup.db");
      const res = await runCli(["backup", "--out", backupFile, "--json", "--data", source], { env: ENV });
      sentBeforeBackupEnd = sent;
      const out = jsonOut(res);
      expect(out.path).toBe(backupFile);
      expect(out.bytes).toBe(statSync(backupFile).size);
      // It holds password hashes: owner-only (and so from its first byte, as it is created empty with that mode).
      expect(statSync(backupFile).mode & 0o777).toBe(0o600);
      await Bun.sleep(300);
      afterBackup = { name: progress.name, users: [...progress.users] };
    } finally {
      running = false;
      await Promise.all([renamer, inviter]);
    }
    expect(errors).toEqual([]);
    // The writers really were writing while the backup ran.
    expect(afterBackup.name).toBeGreaterThan(beforeBackup.name);
    expect(afterBackup.users.length).toBeGreaterThan(beforeBackup.users.length);

    const db = new Database(backupFile, { readonly: true });
    try {
      expect(db.query("PRAGMA integrity_check").all()).toEqual([{ integrity_check: "ok" }]);
      expect(db.query("PRAGMA foreign_key_check").all()).toEqual([]);
    } finally {
      db.close();
    }
    // A standalone file: nothing of it lives in a WAL beside it.
    expect(existsSync(`${backupFile}-wal`)).toBe(false);
  });

  it("refuses an --out file that already exists, with one line, and leaves it alone", async () => {
    const before = readFileSync(backupFile);
    const res = await runCli(["backup", "--out", backupFile, "--data", source], { env: ENV });
    expect(expectOneLineFailure(res)).toContain(backupFile);
    expect(readFileSync(backupFile).equals(before)).toBe(true);
  });

  it("refuses a data dir without a database, with one line, and writes nothing", async () => {
    const out = join(dir(), "none.db");
    expectOneLineFailure(await runCli(["backup", "--out", out, "--data", dir()]));
    expect(existsSync(out)).toBe(false);
  });

  it("leaves no file behind when the database comes from a newer Tandem", async () => {
    const newer = dir();
    expect((await runCli(["restore", "--from", backupFile, "--data", newer])).code).toBe(0);
    const db = new Database(join(newer, "tandem.db"));
    db.exec("INSERT INTO __migrations (tag, applied_at) VALUES ('9999_future', 0)");
    db.close();
    const outDir = dir();
    const out = join(outDir, "from-newer.db");
    expect(expectOneLineFailure(await runCli(["backup", "--out", out, "--data", newer]))).toBe(
      `tandem: ${join(newer, "tandem.db")} comes from a newer Tandem (migration 9999_future)`,
    );
    expect(readdirSync(outDir)).toEqual([]);
  });

  it("writes FILE.partial-PID and renames it when complete, removing what a killed backup left", async () => {
    const outDir = dir();
    const out = join(outDir, "again.db");
    // What a backup killed mid-copy leaves: its partial file and SQLite's journal of it, never FILE itself.
    const pid = await gonePid();
    writeFileSync(`${out}.partial-${pid}`, "half a copy");
    writeFileSync(`${out}.partial-${pid}-journal`, "its journal");
    const res = await runCli(["backup", "--out", out, "--data", source], { env: ENV });
    expect(res.code).toBe(0);
    expect(readdirSync(outDir)).toEqual(["again.db"]);
    expect((await runCli(["restore", "--from", out, "--data", dir()])).code).toBe(0);
  });

  it("run twice at once to one FILE: one writes it, the other says it exists, and no partial copy stays", async () => {
    const outDir = dir();
    const out = join(outDir, "both.db");
    const results = await Promise.all([
      runCli(["backup", "--out", out, "--data", source], { env: ENV }),
      runCli(["backup", "--out", out, "--data", source], { env: ENV }),
    ]);
    expect(results.map((r) => r.code).sort()).toEqual([0, 1]);
    expect(expectOneLineFailure(results.find((r) => r.code === 1) as RunResult)).toBe(`tandem: ${out} already exists`);
    expect(readdirSync(outDir)).toEqual(["both.db"]);
  });

  it("names a damaged database file, as serve and users do", async () => {
    const broken = dir();
    writeFileSync(join(broken, "tandem.db"), "this is not a database at all, just text\n".repeat(200));
    const line = `tandem: the database ${join(broken, "tandem.db")} is damaged or not a database: file is not a database (restore a backup with \`tandem restore\`)`;
    const results = await Promise.all([
      runCli(["backup", "--out", join(dir(), "b.db"), "--data", broken]),
      runCli(["serve", "--port", "0", "--data", broken]),
      runCli(["users", "list", "--data", broken]),
    ]);
    for (const res of results) expect(expectOneLineFailure(res)).toBe(line);
  });

  it("exits non-zero with one line without --out", async () => {
    const res = await runCli(["backup", "--data", source]);
    expect(res.code).not.toBe(0);
    expect(res.stderr.trimEnd().split("\n")).toHaveLength(1);
  });
});

describe("tandem restore", () => {
  it("restores the backup into an empty data dir, and prints JSON with --json", async () => {
    restored = dir();
    const out = jsonOut(await runCli(["restore", "--from", backupFile, "--data", restored, "--json"], { env: ENV }));
    expect(typeof out).toBe("object");
    expect(existsSync(join(restored, "tandem.db"))).toBe(true);
  });

  it("serves the restored data, consistent as of a moment during the backup", async () => {
    const back = await serve(restored);
    expect(back.setupUrl).toBeNull();
    const instance = await request(back.url, "GET", "/api/v1/public/instance");
    expect(instance.body).toEqual({
      provisioning_enabled: true,
      provisioning_base_domain: "prov.backup.test",
      needs_setup: false,
      open_signups_enabled: false,
      email_enabled: false,
    });

    const owner = await login(back.url, OWNER.email, OWNER.password);
    expect(owner.status).toBe(200);
    const me = await request(back.url, "GET", "/api/v1/me", { token: owner.body.access_token });
    const n = Number(/^Owner (\d+)$/.exec(me.body.user.display_name)?.[1]);
    // Every rename acknowledged before the backup started is in it; none sent after it ended.
    expect(n).toBeGreaterThanOrEqual(beforeBackup.name);
    expect(n).toBeLessThanOrEqual(sentBeforeBackupEnd);

    const list = jsonOut(await runCli(["users", "list", "--json", "--data", restored]));
    const emails: string[] = list.users.map((u: { email: string }) => u.email);
    for (const email of beforeBackup.users) expect(emails).toContain(email);
    // Each user came with its membership in one transaction: no user without a role.
    for (const user of list.users) expect(user.role_names.length).toBeGreaterThan(0);
    // One writer created user1, user2, … in turn: the backup holds exactly the first K of them.
    const numbers = emails.filter((e) => e.startsWith("user")).map(num);
    numbers.sort((a, b) => a - b);
    expect(numbers).toEqual(numbers.map((_, i) => i + 1));
    expect(numbers.length).toBeGreaterThanOrEqual(beforeBackup.users.length);

    const members = await request(back.url, "GET", `/api/v1/organizations/${orgId}/members`, {
      token: owner.body.access_token,
    });
    expect(members.status).toBe(200);
    expect(members.body.members).toHaveLength(list.users.length);

    const first = beforeBackup.users[0] as string;
    expect((await login(back.url, first, `password-${num(first)}`)).status).toBe(200);
    await back.stop();
  });

  it("refuses a data dir that already has a database, with one line, and leaves it alone", async () => {
    const before = readFileSync(join(restored, "tandem.db"));
    expectOneLineFailure(await runCli(["restore", "--from", backupFile, "--data", restored]));
    expect(readFileSync(join(restored, "tandem.db")).equals(before)).toBe(true);
  });

  it("refuses a file that is not a Tandem database, with one line, and restores nothing", async () => {
    const scratch = dir();
    const text = join(scratch, "notes.txt");
    writeFileSync(text, "this is not a database\n".repeat(100));
    const foreign = join(scratch, "foreign.db");
    const db = new Database(foreign);
    db.exec("CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO things (name) VALUES ('x');");
    db.close();
    const truncated = join(scratch, "truncated.db");
    const full = readFileSync(backupFile);
    writeFileSync(truncated, full.subarray(0, Math.floor(full.length / 2)));
    const missing = join(scratch, "missing.db");

    const targets = [dir(), dir(), dir(), dir()];
    const results = await Promise.all(
      [text, foreign, truncated, missing].map((from, i) =>
        runCli(["restore", "--from", from, "--data", targets[i] as string]),
      ),
    );
    for (const res of results) expectOneLineFailure(res);
    for (const target of targets) expect(existsSync(join(target, "tandem.db"))).toBe(false);
  });

  it("refuses a database damaged in its middle with one line naming the first problem", async () => {
    const damaged = join(dir(), "damaged.db");
    const bytes = new Uint8Array(readFileSync(backupFile));
    // Overwrite the cell pointers of a few B-tree pages: SQLite's check reports a problem per cell.
    for (let page = 2; page <= 6; page++) bytes.fill(7, page * 4096 + 8, page * 4096 + 88);
    writeFileSync(damaged, bytes);
    const target = dir();
    const line = expectOneLineFailure(await runCli(["restore", "--from", damaged, "--data", target]));
    expect(line).toContain(`${damaged} is damaged: `);
    expect(line).not.toContain("*** in database");
    expect(line).toMatch(/\(and \d+ more problems\)$/);
    expect(existsSync(join(target, "tandem.db"))).toBe(false);
  });

  it("removes what a restore cut off earlier left in the data dir", async () => {
    const target = dir();
    writeFileSync(join(target, `.restore-${await gonePid()}.db`), "half a copy");
    expect((await runCli(["restore", "--from", backupFile, "--data", target])).code).toBe(0);
    expect(readdirSync(target).filter((name) => name.startsWith(".restore-"))).toEqual([]);
  });

  it("run twice at once into one data dir: one restores, the other says the database exists, and no copy stays", async () => {
    const target = dir();
    const results = await Promise.all([
      runCli(["restore", "--from", backupFile, "--data", target], { env: ENV }),
      runCli(["restore", "--from", backupFile, "--data", target], { env: ENV }),
    ]);
    expect(results.map((r) => r.code).sort()).toEqual([0, 1]);
    expect(expectOneLineFailure(results.find((r) => r.code === 1) as RunResult)).toBe(
      `tandem: ${join(target, "tandem.db")} already exists: restore needs an empty data dir`,
    );
    expect(readdirSync(target).filter((name) => name.startsWith(".restore-"))).toEqual([]);
  });

  it("leaves serve refusing, in one line, a data dir whose restore was cut off: no new install beside it", async () => {
    const target = dir();
    const left = `.restore-${await gonePid()}.db`;
    writeFileSync(join(target, left), "half a copy");
    const line = expectOneLineFailure(await runCli(["serve", "--port", "0", "--data", target], { env: ENV }));
    expect(line).toContain(`${left} is left from a restore that did not finish`);
    expect(readdirSync(target).sort()).toEqual([left]);
    // Restoring again takes its place.
    expect((await runCli(["restore", "--from", backupFile, "--data", target])).code).toBe(0);
    expect(readdirSync(target).filter((name) => name.startsWith(".restore-"))).toEqual([]);
  });

  it("refuses a data dir holding the WAL of a database removed by hand, and restores nothing", async () => {
    const target = dir();
    writeFileSync(join(target, "tandem.db-wal"), "left over");
    const line = expectOneLineFailure(await runCli(["restore", "--from", backupFile, "--data", target]));
    expect(line).toContain("tandem.db-wal is left from an earlier database");
    expect(existsSync(join(target, "tandem.db"))).toBe(false);
  });

  it("leaves serve refusing a database from a newer Tandem, as restore does", async () => {
    const target = dir();
    expect((await runCli(["restore", "--from", backupFile, "--data", target])).code).toBe(0);
    const db = new Database(join(target, "tandem.db"));
    db.exec("INSERT INTO __migrations (tag, applied_at) VALUES ('9999_future', 0)");
    db.close();
    const line = expectOneLineFailure(await runCli(["serve", "--port", "0", "--data", target], { env: ENV }));
    expect(line).toContain("comes from a newer Tandem (migration 9999_future)");
  });

  it("exits non-zero with one line without --from", async () => {
    const res = await runCli(["restore", "--data", dir()]);
    expect(res.code).not.toBe(0);
    expect(res.stderr.trimEnd().split("\n")).toHaveLength(1);
  });
});

function num(email: string): number {
  return Number(/^user(\d+)@/.exec(email)?.[1]);
}

/** The id of a process that has exited: what a copy cut off by a kill is named after. */
async function gonePid(): Promise<number> {
  const gone = Bun.spawn(["true"]);
  await gone.exited;
  return gone.pid;
}
