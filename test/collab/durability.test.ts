/**
 * Nothing a collaborator has seen is lost: across a restart, when a document leaves memory and its log is
 * folded, and across a `kill -9` of the compiled binary.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { setupOrg } from "../helpers/factories";
import { client } from "../helpers/http";
import { openDataDirDatabase } from "../helpers/postgres";
import { BINARY, runCli, type SpawnedServer, spawnServer, startTestServer, tempDir } from "../helpers/server";
import { collabBase, type Editor, eventually, openEditor } from "../helpers/sockets";

const dirs: string[] = [];
const spawned: SpawnedServer[] = [];
afterAll(async () => {
  for (const s of spawned) if (s.proc.exitCode === null) await s.stop("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function dataDir(): string {
  const d = tempDir("tandem-collab-");
  dirs.push(d);
  return d;
}

/** How many update-log rows a file has, read from the database itself. */
function logRows(dir: string, fileId: string): number {
  const db = openDataDirDatabase(dir, { readonly: true });
  try {
    return (db.query("SELECT count(*) AS n FROM file_doc_updates WHERE node_id = ?").get(fileId) as { n: number }).n;
  } finally {
    db.close();
  }
}

async function synced(base: string, fileId: string, token: string): Promise<Editor> {
  const editor = openEditor(base, fileId, token);
  await editor.synced();
  return editor;
}

describe("across a restart", () => {
  it("reopens a file with every edit made before the server stopped", async () => {
    const dir = dataDir();
    let server = await startTestServer({ dataDir: dir });
    const org = await setupOrg(server);
    const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "S" });
    const files = `/api/v1/organizations/${org.id}/spaces/${space.body.id}/files`;
    const fileId = (await org.owner.api.post(`${files}/text`, { name: "a.md", content: "v1" })).body.node.id;
    const a = await synced(collabBase(server.url, org.id, space.body.id), fileId, org.owner.token);
    for (let i = 0; i < 50; i++) a.insert(a.text().length, ` ${i}`);
    const expected = a.text();
    await eventually(() => logRows(dir, fileId) > 0, "the log to be written");
    await Bun.sleep(50);
    a.destroy();
    await server.stop();

    server = await startTestServer({ dataDir: dir });
    const login = await client(server.url).post("/api/v1/auth/login", {
      email: org.owner.email,
      password: org.owner.password,
    });
    const token = login.body.access_token;
    // The stopping server folded the log into the snapshot.
    expect(logRows(dir, fileId)).toBe(0);
    const b = await synced(collabBase(server.url, org.id, space.body.id), fileId, token);
    expect(b.text()).toBe(expected);
    expect((await client(server.url, token).get(`${files}/${fileId}/content`)).text).toBe(expected);
    b.destroy();
    await server.stop();
  });
});

describe("the update log", () => {
  it("is folded into the snapshot when the text is written after a few commits, and when the document leaves memory", async () => {
    const dir = dataDir();
    const server = await startTestServer({
      dataDir: dir,
      docs: { idleMs: 100, compactEvery: 5, settleMs: 30, settleMaxMs: 60 },
    });
    try {
      const org = await setupOrg(server);
      const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "S" });
      const files = `/api/v1/organizations/${org.id}/spaces/${space.body.id}/files`;
      const fileId = (await org.owner.api.post(`${files}/text`, { name: "log.md" })).body.node.id;
      const base = collabBase(server.url, org.id, space.body.id);
      const a = await synced(base, fileId, org.owner.token);
      const watcher = await synced(base, fileId, org.owner.token);
      let highest = 0;
      for (let i = 0; i < 80; i++) {
        a.insert(a.text().length, `${i},`);
        await eventually(() => watcher.text() === a.text(), "the edit to be relayed");
        highest = Math.max(highest, logRows(dir, fileId));
        await Bun.sleep(5);
      }
      // Storing an edit logs it. The log is folded when the text is written (at least every 60 ms here): while
      // the typing goes on once it holds 50 (ten times `compactEvery`), once it stops when it holds 5.
      expect(highest).toBeGreaterThan(0);
      expect(highest).toBeLessThan(80);
      await Bun.sleep(100);
      expect(logRows(dir, fileId)).toBeLessThan(5);
      const text = a.text();
      a.destroy();
      watcher.destroy();
      await eventually(() => logRows(dir, fileId) === 0, "the log to be folded once idle");
      // A PUT to a document no longer in memory loads it from the snapshot.
      const put = await org.owner.api.put(`${files}/${fileId}/content`, undefined, {
        raw: `${text}end`,
        contentType: "text/plain",
      });
      expect(put.status).toBe(200);
      const b = await synced(base, fileId, org.owner.token);
      expect(b.text()).toBe(`${text}end`);
      b.destroy();
    } finally {
      await server.stop();
    }
  });
});

describe("a kill -9 of dist/tandem", () => {
  it("loses no edit that a collaborator had seen", async () => {
    expect(existsSync(BINARY)).toBe(true);
    const dir = dataDir();
    const setup = await runCli(
      [
        "setup",
        "--org-name",
        "Acme",
        "--admin-email",
        "kill@acme.test",
        "--admin-password",
        "kill-password",
        "--data",
        dir,
      ],
      { kind: "binary" },
    );
    expect(setup.code).toBe(0);
    const orgId = JSON.parse(setup.stdout).organization_id;
    const login = async (url: string) =>
      (await client(url).post("/api/v1/auth/login", { email: "kill@acme.test", password: "kill-password" })).body
        .access_token as string;

    let server = await spawnServer({ kind: "binary", dataDir: dir });
    spawned.push(server);
    let token = await login(server.url);
    const api = client(server.url, token);
    const space = await api.post(`/api/v1/organizations/${orgId}/spaces`, { name: "S" });
    const files = `/api/v1/organizations/${orgId}/spaces/${space.body.id}/files`;
    const fileId = (await api.post(`${files}/text`, { name: "crash.md", content: "" })).body.node.id;
    const base = collabBase(server.url, orgId, space.body.id);
    const writer = await synced(base, fileId, token);
    const watcher = await synced(base, fileId, token);
    // Typing goes on while the process is killed; what the watcher had received counts as acknowledged.
    let typing = true;
    const typed = (async () => {
      for (let i = 0; typing; i++) {
        writer.insert(writer.text().length, `line ${i}\n`);
        await Bun.sleep(1);
      }
    })();
    await eventually(() => watcher.text().split("\n").length > 200, "edits to be relayed", 10_000);
    server.proc.kill("SIGKILL");
    await server.proc.exited;
    typing = false;
    await typed;
    const seen = watcher.text();
    writer.destroy();
    watcher.destroy();

    server = await spawnServer({ kind: "binary", dataDir: dir });
    spawned.push(server);
    token = await login(server.url);
    // Before anyone opens the document again, REST serves every edit the watcher saw: the start folded the log
    // the kill cut short into the file's text, size and checksum.
    expect(logRows(dir, fileId)).toBe(0);
    const early = (await client(server.url, token).get(`${files}/${fileId}/content`)).text as string;
    expect(early.startsWith(seen)).toBe(true);
    const node = (await client(server.url, token).get(`${files}/${fileId}`)).body.node;
    expect(node.size_bytes).toBe(Buffer.byteLength(early));
    expect(node.checksum_sha256).toBe(new Bun.CryptoHasher("sha256").update(early).digest("hex"));
    const reopened = await synced(collabBase(server.url, orgId, space.body.id), fileId, token);
    const text = reopened.text();
    reopened.destroy();
    // Every line the watcher saw is there, in order; the server may hold a few more the watcher never got.
    expect(text.startsWith(seen)).toBe(true);
    expect((await client(server.url, token).get(`${files}/${fileId}/content`)).text).toBe(text);
    await server.stop();
  }, 60_000);
});
