/**
 * The editing socket under abuse: sockets sending random frames (and frames that start like real ones), truncated
 * and huge updates, and floods of awareness (cursor) updates, while two people edit the same file. The server
 * (`tandem serve` from source, a process of its own) must not crash, must keep answering `/health` within 200 ms
 * throughout (its event loop is never held up longer), and the two editors must converge on what they typed, which
 * is what the server stores.
 */
import { afterAll, beforeAll, expect, it } from "bun:test";
import { rmSync } from "node:fs";
import { Awareness, encodeAwarenessUpdate } from "y-protocols/awareness";
import * as Y from "yjs";
import { request } from "../helpers/http";
import { type SpawnedServer, spawnServer, tempDir } from "../helpers/server";
import { collabBase, eventually, collabFrame as frame, openEditor, openRaw, type RawSocket } from "../helpers/sockets";

let data: string;
let server: SpawnedServer;
let token: string;
let base: string;
let fileId: string;
let files: string;

/** A repeatable stream of numbers in [0, 1). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

beforeAll(async () => {
  data = tempDir("tandem-fuzz-");
  server = await spawnServer({ dataDir: data });
  const setupToken = new URL(server.setupUrl as string).searchParams.get("token");
  const setup = await request(server.url, "POST", "/api/v1/public/setup", {
    body: { token: setupToken, org_name: "Fuzz", admin_email: "owner@fuzz.test", admin_password: "owner-password" },
  });
  token = setup.body.access_token;
  const org = setup.body.organization_id;
  const space = (
    await request(server.url, "POST", `/api/v1/organizations/${org}/spaces`, { token, body: { name: "F" } })
  ).body.id;
  files = `/api/v1/organizations/${org}/spaces/${space}/files`;
  fileId = (await request(server.url, "POST", `${files}/text`, { token, body: { name: "f.md", content: "" } })).body
    .node.id;
  base = collabBase(server.url, org, space);
}, 30_000);

afterAll(async () => {
  await server?.stop();
  rmSync(data, { recursive: true, force: true });
});

it("survives garbage, truncated, huge and flooding sockets, keeps /health within 200 ms, and editors converge", async () => {
  const alice = openEditor(base, fileId, token);
  const bob = openEditor(base, fileId, token);
  await Promise.all([alice.synced(), bob.synced()]);

  // /health is timed by a process of its own: the fuzzing here blocks this process's loop at times, not the server's.
  const probe = Bun.spawn(
    [
      process.execPath,
      "-e",
      `const lags = [];
       process.stdin.on("data", () => {});
       process.stdin.on("end", () => { console.log(JSON.stringify(lags)); process.exit(0); });
       for (;;) {
         const t0 = performance.now();
         const res = await fetch(process.argv[1] + "/health");
         await res.text();
         lags.push(performance.now() - t0);
         await Bun.sleep(10);
       }`,
      server.url,
    ],
    { stdin: "pipe", stdout: "pipe" },
  );
  await Bun.sleep(100);

  const rnd = random(42);
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(rnd() * 256));
  // A real update, to cut short and to corrupt.
  const sample = new Y.Doc();
  sample.getText("content").insert(0, "a real update, cut into pieces ".repeat(20));
  const update = Y.encodeStateAsUpdate(sample);

  const open = async (): Promise<RawSocket> => {
    const raw = openRaw(`${base}/${fileId}?token=${token}`);
    await raw.opened;
    return raw;
  };
  let garbage = 0;
  const fuzzer = async () => {
    for (let round = 0; round < 100; round++) {
      const raw = await open();
      const pick = rnd();
      if (pick < 0.3) raw.send(bytes(Math.floor(rnd() * 200)));
      else if (pick < 0.5) raw.send(new Uint8Array([Math.floor(rnd() * 3), ...bytes(Math.floor(rnd() * 64))]));
      else if (pick < 0.7) raw.send(frame(0, 2, update.slice(0, Math.floor(rnd() * update.length))));
      else if (pick < 0.85) {
        const corrupt = update.slice();
        for (let i = 0; i < 8; i++) corrupt[Math.floor(rnd() * corrupt.length)] = Math.floor(rnd() * 256);
        raw.send(frame(0, 2, corrupt));
      } else raw.send(`text ${rnd()}`);
      garbage++;
      await Promise.race([raw.closed, Bun.sleep(200)]);
      raw.ws.close();
    }
  };
  const flooder = async (n: number) => {
    const doc = new Y.Doc();
    const awareness = new Awareness(doc);
    const raw = await open();
    for (let i = 0; i < 4000; i++) {
      awareness.setLocalState({ user: { name: `flood ${n}` }, cursor: { anchor: i, head: i + 1 } });
      raw.send(frame(1, null, encodeAwarenessUpdate(awareness, [doc.clientID])));
      if (i % 50 === 0) await Bun.sleep(1);
    }
    raw.ws.close();
    awareness.destroy();
  };
  const huge = async () => {
    const doc = new Y.Doc();
    doc.getText("content").insert(0, "h".repeat(4 * 1024 * 1024));
    const raw = await open();
    raw.send(frame(0, 2, Y.encodeStateAsUpdate(doc).slice(0, 3 * 1024 * 1024)));
    await Promise.race([raw.closed, Bun.sleep(2000)]);
    raw.ws.close();
  };
  const typist = async () => {
    for (let i = 0; i < 60; i++) {
      (i % 2 === 0 ? alice : bob).insert(0, `${i % 10}`);
      await Bun.sleep(15);
    }
  };

  await Promise.all([fuzzer(), fuzzer(), fuzzer(), flooder(1), flooder(2), flooder(3), huge(), typist()]);
  probe.stdin.end();
  const lags = JSON.parse(await new Response(probe.stdout).text()) as number[];

  expect(garbage).toBe(300);
  await eventually(() => alice.text() === bob.text() && alice.text().length === 60, "the editors to converge", 10_000);
  const stored = await (
    await fetch(`${server.url}${files}/${fileId}/content`, { headers: { authorization: `Bearer ${token}` } })
  ).text();
  expect(stored).toBe(alice.text());
  expect(server.proc.exitCode).toBeNull();
  expect(lags.length).toBeGreaterThan(20);
  expect(Math.max(...lags)).toBeLessThan(200);
  alice.destroy();
  bob.destroy();
}, 120_000);
