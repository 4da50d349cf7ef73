/**
 * `kill -9` of dist/tandem in the middle of bursts of 16 writers (chat posts, new tasks, task moves, file
 * writes, and a scheduled automation posting every second), three times over: after each crash the database passes
 * `PRAGMA integrity_check`, every write the server acknowledged is there, a file holds its last acknowledged text
 * or a later one that was on its way, and every automation run posted its message exactly once. Then, while 16
 * writers write, `tandem backup` every 2 seconds: each backup passes the check and restores.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { allMessages } from "../helpers/factories";
import type { Client } from "../helpers/http";
import { binaryInstall, runCli, type SpawnedServer, tempDir } from "../helpers/server";
import { integrity } from "../helpers/storage";

const dirs: string[] = [];
const spawned: SpawnedServer[] = [];
afterAll(async () => {
  for (const s of spawned) if (s.proc.exitCode === null) await s.stop("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

let install: Awaited<ReturnType<typeof binaryInstall>>;
let base: string;
let messages: string;
let columns: string[];
const fileIds: string[] = [];
let automationId: string;

/** What the writers sent, and what the server acknowledged. */
interface Ledger {
  posts: Set<string>;
  tasks: Set<string>;
  /** Per file: the texts sent in order, and the index of the last one acknowledged. */
  files: Map<string, { sent: string[]; acked: number }>;
}

const ledger: Ledger = { posts: new Set(), tasks: new Set(), files: new Map() };

/** 16 writers until `stop` resolves; each write that answered 2xx is in the ledger. */
async function writers(api: Client, round: string, stop: Promise<void>): Promise<void> {
  let running = true;
  void stop.then(() => {
    running = false;
  });
  const loop = async (write: (n: number) => Promise<void>) => {
    for (let n = 0; running; n++) {
      try {
        await write(n);
      } catch {
        // The server went away mid-request: that write was not acknowledged.
        return;
      }
    }
  };
  const poster = (w: number) =>
    loop(async (n) => {
      const content = `${round} writer ${w} post ${n}`;
      const res = await api.post(messages, { content });
      if (res.status === 201) ledger.posts.add(content);
    });
  const creator = (w: number) =>
    loop(async (n) => {
      const res = await api.post(`${base}/tasks`, { title: `${round} w${w} task ${n}`, column_id: columns[0] });
      if (res.status === 201) ledger.tasks.add(res.body.id);
    });
  const mover = (w: number) =>
    loop(async (n) => {
      const ids = [...ledger.tasks];
      const id = ids[(n * 7 + w) % Math.max(ids.length, 1)];
      if (!id) return void (await Bun.sleep(5));
      await api.patch(`${base}/tasks/${id}`, { column_id: columns[(n + w) % columns.length], position: 0 });
    });
  const fileWriter = (w: number) =>
    loop(async (n) => {
      const id = fileIds[w] as string;
      const entry = ledger.files.get(id) ?? { sent: [], acked: -1 };
      ledger.files.set(id, entry);
      const text = `# ${round} file ${w}\n\nversion ${n}\n`;
      entry.sent.push(text);
      const index = entry.sent.length - 1;
      const res = await fetch(`${api.base}${base}/files/${id}/content`, {
        method: "PUT",
        headers: { authorization: `Bearer ${api.token}`, "content-type": "text/markdown" },
        body: text,
      });
      if (res.status === 200) entry.acked = Math.max(entry.acked, index);
    });
  await Promise.all([
    ...[0, 1, 2, 3, 4, 5].map(poster),
    ...[0, 1, 2, 3].map(creator),
    ...[0, 1, 2].map(mover),
    ...[0, 1, 2].map(fileWriter),
  ]);
}

beforeAll(async () => {
  install = await binaryInstall("tandem-crash-", { dirs, spawned });
  const { server, api } = await install.start();
  const space = (await api.post(`/api/v1/organizations/${install.orgId}/spaces`, { name: "Crash" })).body;
  base = `/api/v1/organizations/${install.orgId}/spaces/${space.id}`;
  const room = (await api.get(`${base}/chat-rooms`)).body.chat_rooms[0].id;
  messages = `${base}/chat-rooms/${room}/messages`;
  const board = (await api.get(`${base}/board`)).body;
  columns = (board.columns ?? board.board.columns).map((c: { id: string }) => c.id);
  for (const name of ["a.md", "b.md", "c.md"]) {
    fileIds.push((await api.post(`${base}/files/text`, { name, content: "" })).body.node.id);
  }
  const automation = await api.post(`${base}/automations`, {
    name: "Every second",
    kind: "scheduled",
    status: "active",
    config: { cron: "* * * * * *", channel: "general", message: "tick" },
  });
  expect(automation.status).toBe(201);
  automationId = automation.body.automation.id;
  await server.stop("SIGTERM");
}, 60_000);

describe("kill -9 under 16 writers", () => {
  it("loses no acknowledged write, keeps the database intact and runs each automation tick once, three times over", async () => {
    for (const round of ["r1", "r2", "r3"]) {
      const { server, api } = await install.start();
      const stop = Promise.withResolvers<void>();
      const load = writers(api, round, stop.promise);
      await Bun.sleep(1500);
      await server.stop("SIGKILL");
      stop.resolve();
      await load;
      const dataDir = install.dataDir;
      expect(integrity(dataDir)).toBe("ok");

      const again = await install.start();
      const stored = await allMessages(again.api, messages);
      const contents = new Set(stored.map((m) => m.content));
      const lost = [...ledger.posts].filter((c) => !contents.has(c));
      expect(lost).toEqual([]);
      const tasks = new Set(
        ((await again.api.get(`${base}/tasks?limit=1000`)).body.tasks as { id: string }[]).map((t) => t.id),
      );
      expect([...ledger.tasks].filter((id) => !tasks.has(id))).toEqual([]);
      for (const [id, entry] of ledger.files) {
        if (entry.acked < 0) continue;
        const text = await (
          await fetch(`${again.server.url}${base}/files/${id}/content`, {
            headers: { authorization: `Bearer ${again.api.token}` },
          })
        ).text();
        expect(entry.sent.slice(entry.acked)).toContain(text);
      }
      // Each finished run posted once: no tick run twice across the crash. The restarted server goes on ticking
      // (a tick missed while it was down runs once at the start), so the two are read until they hold still.
      const succeeded = async () =>
        (
          (await again.api.get(`${base}/automations/${automationId}/runs?limit=100`)).body.runs as { status: string }[]
        ).filter((r) => r.status === "succeeded").length;
      let counts = { ticks: -1, runs: 0 };
      for (let attempt = 0; attempt < 20 && counts.ticks !== counts.runs; attempt++) {
        if (attempt > 0) await Bun.sleep(100);
        const before = await succeeded();
        const ticks = (await allMessages(again.api, messages)).filter((m) => m.automation_id === automationId).length;
        if (before === (await succeeded())) counts = { ticks, runs: before };
      }
      expect(counts.ticks).toBe(counts.runs);
      await again.server.stop("SIGTERM");
    }
    expect(ledger.posts.size).toBeGreaterThan(100);
    expect(ledger.tasks.size).toBeGreaterThan(50);
  }, 120_000);
});

describe("backups while 16 writers write", () => {
  it("takes one every 2 s, each intact and restorable", async () => {
    const { server, api } = await install.start();
    const stop = Promise.withResolvers<void>();
    const load = writers(api, "backup", stop.promise);
    const dataDir = install.dataDir;
    const made: string[] = [];
    for (let i = 0; i < 4; i++) {
      await Bun.sleep(2000);
      const out = join(dataDir, `backup-${i}.db`);
      const res = await runCli(["backup", "--data", dataDir, "--out", out], { kind: "binary" });
      expect(res.code).toBe(0);
      made.push(out);
    }
    stop.resolve();
    await load;
    await server.stop("SIGTERM");
    for (const file of made) {
      const db = new Database(file, { readonly: true });
      expect((db.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check).toBe("ok");
      db.close();
      const target = tempDir("tandem-restored-");
      dirs.push(target);
      rmSync(target, { recursive: true, force: true });
      const restored = await runCli(["restore", "--from", file, "--data", target], { kind: "binary" });
      expect(restored.code).toBe(0);
      expect(integrity(target)).toBe("ok");
    }
  }, 120_000);
});
