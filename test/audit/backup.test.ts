/**
 * The audit log and the command line: `tandem backup` records its backup in the database it copied, and
 * `tandem restore` its restore in the database it made, both as the `command line` (no one signed in, no
 * address). And records are kept a year: the server's maintenance removes older ones.
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, it } from "bun:test";
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { addMember, type Org, setupOrg } from "../helpers/factories";
import { client } from "../helpers/http";
import { ON_POSTGRES, openDataDirDatabase } from "../helpers/postgres";
import { runCli, startTestServer, type TestServer, tempDir } from "../helpers/server";
import { eventually } from "../helpers/sockets";

const DAY = 24 * 3600 * 1000;
const dirs: string[] = [];
const servers: TestServer[] = [];

function dir(): string {
  const made = tempDir("tandem-audit-");
  dirs.push(made);
  return made;
}

async function serve(dataDir: string): Promise<TestServer> {
  const server = await startTestServer({ dataDir });
  servers.push(server);
  return server;
}

afterAll(async () => {
  for (const server of servers) await server.stop();
  for (const made of dirs) rmSync(made, { recursive: true, force: true });
});

const audit = async (org: Org, query = "") =>
  (await org.owner.api.get(`/api/v1/organizations/${org.id}/audit${query}`)).body.events as any[];

describe("tandem backup and tandem restore", () => {
  it("record themselves as the command line, each in the database it worked on", async () => {
    const source = dir();
    const server = await serve(source);
    const org = await setupOrg(server, "Backed Up");
    await org.owner.api.post(`/api/v1/organizations/${org.id}/invites`, { email: "before@backup.test" });

    const out = join(dir(), "tandem-backup.db");
    const backup = await runCli(["backup", "--out", out, "--json", "--data", source]);
    expect(backup.stderr).toBe("");
    expect(backup.code).toBe(0);
    const newest = (await audit(org, "?limit=1"))[0];
    expect(newest).toMatchObject({
      action: "backup.created",
      actor_user_id: null,
      actor_kind: "command_line",
      actor_label: "command line",
      address: null,
      target_type: "backup",
      target_id: null,
      target_label: out,
      details: { bytes: statSync(out).size },
    });
    // Recorded once the copy was complete: the backup does not hold its own record.
    const copy = new Database(out, { readonly: true });
    const actions = copy.query("SELECT action FROM audit_events ORDER BY created_at").all();
    copy.close();
    expect(actions).toEqual([{ action: "invite.created" }]);

    const restored = dir();
    const restore = await runCli(["restore", "--from", out, "--data", restored]);
    expect(restore.stderr).toBe("");
    expect(restore.code).toBe(0);
    const again = await serve(restored);
    const login = await client(again.url).post("/api/v1/auth/login", {
      email: org.owner.email,
      password: org.owner.password,
    });
    const back = { ...org, owner: { ...org.owner, api: client(again.url, login.body.access_token) } };
    const records = await audit(back);
    expect(records.map((r) => r.action)).toEqual(["backup.restored", "invite.created"]);
    expect(records[0]).toMatchObject({
      actor_user_id: null,
      actor_kind: "command_line",
      actor_label: "command line",
      address: null,
      target_type: "backup",
      target_label: out,
      // The size of what was restored: SQLite's file; on PostgreSQL, the backup read.
      details: { bytes: ON_POSTGRES ? statSync(out).size : statSync(join(restored, "tandem.db")).size },
    });
  });

  it("a backup that fails records nothing", async () => {
    const source = dir();
    const server = await serve(source);
    const org = await setupOrg(server, "Not Backed Up");
    const out = join(dir(), "missing-folder", "backup.db");
    const res = await runCli(["backup", "--out", out, "--data", source]);
    expect(res.code).toBe(1);
    expect(await audit(org)).toEqual([]);
  });
});

describe("keeping records a year", () => {
  it("removes records older than a year at the server's maintenance, in batches, and keeps the rest", async () => {
    const data = dir();
    let server = await serve(data);
    const org = await setupOrg(server, "Kept");
    const person = await addMember(org, ["Viewer"], "Yuri Yearold");
    await org.owner.api.delete(`/api/v1/organizations/${org.id}/members/${person.id}`);
    const [removed, invited] = await audit(org);
    servers.splice(servers.indexOf(server), 1);
    await server.stop();

    // One record a year and a day old, one a day short of a year, and more old ones than one batch removes.
    const db = openDataDirDatabase(data);
    const now = Date.now();
    db.query("UPDATE audit_events SET created_at = ? WHERE id = ?").run(now - 366 * DAY, invited.id);
    db.query("UPDATE audit_events SET created_at = ? WHERE id = ?").run(now - 364 * DAY, removed.id);
    const insert = db.query(
      `INSERT INTO audit_events (id, org_id, actor_kind, actor_label, action, target_type, created_at)
       VALUES (?, ?, 'server', 'Tandem', 'task.deleted', 'task', ?)`,
    );
    db.transaction(() => {
      for (let i = 0; i < 2500; i++) insert.run(crypto.randomUUID(), org.id, now - 400 * DAY - i);
    })();
    db.close();

    server = await serve(data);
    const login = await client(server.url).post("/api/v1/auth/login", {
      email: org.owner.email,
      password: org.owner.password,
    });
    const owner = client(server.url, login.body.access_token);
    const count = () => {
      const check = openDataDirDatabase(data, { readonly: true });
      const { n } = check.query("SELECT count(*) AS n FROM audit_events").get() as { n: number };
      check.close();
      return n;
    };
    await eventually(() => count() === 1, "year-old records removed", 10_000);
    const left = (await owner.get(`/api/v1/organizations/${org.id}/audit`)).body.events;
    expect(left.map((r: any) => r.id)).toEqual([removed.id]);
  });
});
