/**
 * Stock y-websocket clients editing one file at random, going offline and coming back, must all end with the
 * same text, which is also what REST serves.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHash } from "node:crypto";
import { type Org, setupOrg } from "../helpers/factories";
import { startTestServer, type TestServer } from "../helpers/server";
import { collabBase, type Editor, eventually, openEditor } from "../helpers/sockets";

let server: TestServer;
let org: Org;
let files: string;
let base: string;

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server);
  const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Drafts" });
  files = `/api/v1/organizations/${org.id}/spaces/${space.body.id}/files`;
  base = collabBase(server.url, org.id, space.body.id);
});
afterAll(() => server.stop());

/** A small deterministic generator (mulberry32), so a failing run can be replayed from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ["alpha ", "beta ", "γάμμα ", "δ ", "emoji 😀 ", "\n", "tab\t", "ünïcödé "];

/** One random edit: mostly inserts, some deletes. */
function edit(editor: Editor, rnd: () => number): void {
  const length = editor.text().length;
  if (length > 0 && rnd() < 0.3) {
    const at = Math.floor(rnd() * length);
    editor.delete(at, Math.min(1 + Math.floor(rnd() * 5), length - at));
  } else {
    editor.insert(Math.floor(rnd() * (length + 1)), WORDS[Math.floor(rnd() * WORDS.length)] as string);
  }
}

async function converge(clients: number, rounds: number, seed: number): Promise<void> {
  const rnd = random(seed);
  const created = await org.owner.api.post(`${files}/text`, { name: `doc-${seed}.md`, content: "start\n" });
  const fileId = created.body.node.id;
  const editors = Array.from({ length: clients }, () => openEditor(base, fileId, org.owner.token));
  try {
    await Promise.all(editors.map((e) => e.synced()));
    for (let round = 0; round < rounds; round++) {
      for (const editor of editors) {
        const roll = rnd();
        if (roll < 0.08 && editor.provider.wsconnected) editor.provider.disconnect();
        else if (roll < 0.2 && !editor.provider.shouldConnect) editor.provider.connect();
        const edits = 1 + Math.floor(rnd() * 3);
        for (let i = 0; i < edits; i++) edit(editor, rnd);
      }
      await Bun.sleep(Math.floor(rnd() * 15));
    }
    for (const editor of editors) if (!editor.provider.shouldConnect) editor.provider.connect();
    await Promise.all(editors.map((e) => e.synced()));
    const first = editors[0] as Editor;
    await eventually(
      () => editors.every((e) => e.text() === first.text()),
      `${clients} editors to converge (seed ${seed})`,
      15_000,
    );
    const text = first.text();
    expect(text.length).toBeGreaterThan(0);
    // What REST serves is what every editor holds, size and checksum included.
    let served = "";
    for (let i = 0; i < 200 && served !== text; i++) {
      served = (await org.owner.api.get(`${files}/${fileId}/content`)).text;
      if (served !== text) await Bun.sleep(10);
    }
    expect(served).toBe(text);
    const node = (await org.owner.api.get(`${files}/${fileId}`)).body.node;
    expect(node.size_bytes).toBe(Buffer.byteLength(text));
    expect(node.checksum_sha256).toBe(createHash("sha256").update(text).digest("hex"));
  } finally {
    for (const editor of editors) editor.destroy();
  }
}

describe("editors converge", () => {
  it("two editors with random edits and random disconnects end with the same text", async () => {
    for (const seed of [1, 2, 3]) await converge(2, 40, seed);
  }, 60_000);

  it("eight editors with random edits and random disconnects end with the same text", async () => {
    for (const seed of [11, 12]) await converge(8, 30, seed);
  }, 60_000);
});
