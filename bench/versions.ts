/**
 * What a text file's versions keep on disk when it is edited all day, every day: the real collaborative-editing
 * code (the document registry, its group commit, the versions it keeps) over the real schema in a fresh SQLite
 * file, with three editors sending Yjs updates as the y-websocket protocol carries them. Time is simulated: each
 * editing session of five minutes takes a few milliseconds, and the versions' clock (stamps and thinning) moves
 * on by five minutes for each; the server's hourly maintenance thins them every simulated hour.
 *
 * Day 1 is edited around the clock (288 sessions, the most a day can keep), days 2 to 30 for eight hours each,
 * with a REST write every two hours of editing. Printed: versions kept and their bytes at the end of days 1, 2,
 * 7 and 30, next to what keeping every version would have cost.
 *
 *   bun bench/versions.ts [kib=50] [days=30]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as Y from "yjs";
import { updateMessage } from "../src/collab/protocol";
import type { Peer } from "../src/collab/registry";
import { loadConfig } from "../src/config";
import { openDatabase } from "../src/db/client";
import { migrate } from "../src/db/migrate";
import { newId } from "../src/lib/ids";
import { createServices } from "../src/services";

const KIB = Number(process.argv[2] ?? 50);
const DAYS = Number(process.argv[3] ?? 30);
const SESSION_MS = 5 * 60_000;
/** Real milliseconds an editing session lasts here. */
const TICK_MS = 3;
const EDITS_PER_SESSION = 20;
const MARKS = new Set([1, 2, 7, 8, DAYS]);

const words = "the plan ship launch notes review draft team copy design budget date owner risk open question".split(
  " ",
);
let seed = 42;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const word = () => words[Math.floor(random() * words.length)] as string;
const line = () => {
  const n = 6 + Math.floor(random() * 10);
  return `${random() < 0.2 ? "- " : ""}${Array.from({ length: n }, word).join(" ")}\n`;
};

function startText(bytes: number): string {
  let text = "# Launch notes\n\n";
  while (text.length < bytes) text += random() < 0.1 ? `\n## ${word()} ${word()}\n\n` : line();
  return text;
}

const dir = mkdtempSync(join(tmpdir(), "tandem-versions-"));
let clock = Date.parse("2026-03-02T00:00:00.000Z");
try {
  const config = loadConfig({ data: dir, port: 0 }, {});
  const conn = openDatabase(config.dbPath);
  migrate(conn.sqlite);
  const services = createServices(conn, config, {
    docs: { versionEveryMs: TICK_MS, idleMs: 3600_000 },
    versionsClock: () => clock,
  });
  const { org, user } = await services.organization.setup({
    orgName: "Bench",
    adminEmail: "bench@example.test",
    adminPassword: "bench-password",
    adminName: "Bench",
  });
  const principal = { userId: user.id, serviceAccountId: null };
  const space = services.spaces.create(services.access.orgActor(principal, org.id, "member"), { name: "Bench" });
  const actor = services.access.spaceActor(principal, org.id, space.id, "files.write");
  const node = services.files.createText(actor, { name: "launch.md", content: startText(KIB * 1024) });
  const scope = { orgId: org.id, spaceId: space.id };

  // Three editors, each on a socket of its own. One Y.Doc stands for their three copies (kept in step, as the
  // server's relays would keep them), each editor typing with a client id of its own.
  const doc = new Y.Doc();
  const editors = Array.from({ length: 3 }, (_, i) => {
    const peer: Peer = { canWrite: true, userId: newId(), send: () => undefined, close: () => undefined };
    const live = services.docs.join(node.id, scope, peer);
    if (!live) throw new Error("no document");
    if (i === 0) Y.applyUpdate(doc, Y.encodeStateAsUpdate(live.doc));
    return { peer, live, clientId: 1000 + i };
  });
  const live = (editors[0] as (typeof editors)[number]).live;
  const shared = doc.getText("content");
  let sent: Uint8Array | null = null;
  doc.on("update", (update: Uint8Array) => {
    sent = update;
  });
  const edit = (i: number) => {
    const editor = editors[i] as (typeof editors)[number];
    doc.clientID = editor.clientId;
    if (shared.length > KIB * 1024 && random() < 0.6) {
      shared.delete(Math.floor(random() * (shared.length - 40)), 1 + Math.floor(random() * 30));
    } else {
      shared.insert(Math.floor(random() * shared.length), `${word()} `);
    }
    if (sent) services.docs.receive(editor.live, editor.peer, updateMessage(sent));
    sent = null;
  };

  const count = () =>
    conn.sqlite
      .query<{ n: number; bytes: number }, []>(
        "SELECT count(*) AS n, coalesce(sum(length(content)), 0) AS bytes FROM file_versions",
      )
      .get() as { n: number; bytes: number };
  let made = 0;
  services.events.subscribe((event) => {
    if (event.type === "file.version.created") made++;
  });
  const rows: string[] = [];
  const mark = (when: string) => {
    const kept = count();
    const each = kept.bytes / Math.max(kept.n, 1);
    rows.push(
      `| ${when} | ${made} | ${kept.n} | ${(kept.bytes / 1024 / 1024).toFixed(2)} MiB | ${(each / 1024).toFixed(1)} KiB | ${((made * each) / 1024 / 1024).toFixed(1)} MiB |`,
    );
  };

  const started = performance.now();
  for (let day = 1; day <= DAYS; day++) {
    const dayStart = Date.parse("2026-03-02T00:00:00.000Z") + (day - 1) * 86_400_000;
    clock = day === 1 ? dayStart : dayStart + 9 * 3600_000;
    const sessions = day === 1 ? 288 : 96;
    for (let s = 0; s < sessions; s++) {
      // The session's edits, stored together (the group commit merges what arrives in one turn): its timer
      // starts with them and fires after the last.
      for (let e = 0; e < EDITS_PER_SESSION; e++) edit((s + e) % 3);
      await live.lastStored;
      if (s % 24 === 23) {
        // A REST write (a PUT, an accepted proposal) every two hours of editing.
        const written = shared.toString().replace(/plan/, "Plan");
        await services.files.writeText(actor, services.files.node(actor, node.id), written);
        Y.applyUpdate(doc, Y.encodeStateAsUpdate(live.doc, Y.encodeStateVector(doc)));
      }
      clock += SESSION_MS;
      // The session's timer fires: its version is kept at the simulated end of the session.
      await Bun.sleep(TICK_MS + 1);
      if (s % 12 === 11) services.versions.thinAged();
    }
    if (MARKS.has(day)) mark(day === 1 ? "day 1, after 24 hours of editing" : `day ${day}, after its 8 hours`);
    console.error(`day ${day}: ${made} versions made, ${((performance.now() - started) / 1000).toFixed(1)} s`);
    // Until the next day's editing: the maintenance rounds go on while nobody edits.
    while (clock < dayStart + 86_400_000 + 9 * 3600_000) {
      clock += 3600_000;
      services.versions.thinAged();
    }
  }
  const stored = conn.sqlite
    .query<{ state: number }, [string]>("SELECT length(state) AS state FROM file_docs WHERE node_id = ?")
    .get(node.id) as { state: number };
  console.log(
    `A ${KIB} KiB markdown file (${(Buffer.byteLength(shared.toString()) / 1024).toFixed(0)} KiB at the end), three editors, ${EDITS_PER_SESSION} edits per 5-minute session, a REST write every 2 hours of editing; day 1 around the clock, then 8 hours a day.`,
  );
  console.log("| when | versions made | kept | bytes kept | per version | had every version been kept |");
  console.log("|-|-|-|-|-|-|");
  for (const row of rows) console.log(row);
  const text = Buffer.from(shared.toString());
  const t0 = performance.now();
  for (let i = 0; i < 20; i++) Bun.zstdCompressSync(text, { level: 3 });
  console.log(
    `The document's own snapshot: ${(stored.state / 1024).toFixed(0)} KiB. Compressing one version: ${((performance.now() - t0) / 20).toFixed(1)} ms. Run: ${((performance.now() - started) / 1000).toFixed(0)} s.`,
  );
  await services.docs.closeAll(1001, "bench done");
  conn.sqlite.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
