/**
 * `npm run record-order`: records which functions `tandem serve` runs while a team uses it, into
 * scripts/serve.order, which the build hands to `bun build --bytecode-order`. The executable then keeps the
 * bytecode a server runs together at the front, and reads and keeps in memory fewer of its own pages (docs/
 * benchmarks.md). Functions are named by a hash of their syntax, so the profile still applies as the code
 * changes; what changed since it was recorded is placed right after what it names. Record it again when much
 * of the server has changed.
 *
 * Drives dist/tandem (build it first) on a fresh data dir: sign-in, the REST routes of every day (chat, board,
 * files, search, inbox), a live-events socket and a document edited by a few people, then a graceful stop,
 * which writes the profile.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as Y from "yjs";
import { awarenessFrame, connect, updateFrame } from "../bench/collab-client";
import { cleanup, setupDataDir, startTandem, tempDir } from "../bench/harness";
import { collabPath, wsUrl } from "../bench/realtime";
import { api, space, times } from "../bench/seed";

const OUT = join(import.meta.dir, "serve.order");
const recorded = tempDir("tandem-order-");

const server = await startTandem(setupDataDir(), { BUN_BYTECODE_ORDER_OUT: join(recorded, "serve-%p.order") });
try {
  const s = await space(server, "order");
  const events = await connect(
    wsUrl(server, `/api/v1/organizations/${s.org}/ws?token=${await server.token()}`),
    () => {},
  );
  await api(server, "GET", "/api/v1/me");
  await api(server, "GET", `/api/v1/organizations/${s.org}/spaces`);
  await times(50, 4, async (i) => {
    const message = await api(server, "POST", `${s.base}/chat-rooms/${s.room}/messages`, { content: `note ${i}` });
    if (i % 10 === 0) {
      await api(server, "POST", `${s.base}/chat-rooms/${s.room}/messages`, {
        content: `a reply ${i}`,
        thread_root_id: message.message.id,
      });
    }
  });
  await api(server, "GET", `${s.base}/chat-rooms/${s.room}/messages?limit=50`);
  await times(20, 4, async (i) => {
    const task = await api(server, "POST", `${s.base}/tasks`, { title: `task ${i}`, column_id: s.columns[0] });
    await api(server, "PATCH", `${s.base}/tasks/${task.id}`, { column_id: s.columns[1], position: 0 });
    await api(server, "POST", `${s.base}/tasks/${task.id}/messages`, { content: `on it ${i}` });
  });
  await api(server, "GET", `${s.base}/tasks`);
  await api(server, "GET", `${s.base}/board`);
  const { node } = await api(server, "POST", `${s.base}/files/text`, { name: "notes.md", content: "# Notes\n" });
  const content = `${server.url}${s.base}/files/${node.id}/content`;
  const authorization = `Bearer ${await server.token()}`;
  await fetch(content, { method: "PUT", headers: { authorization }, body: "# Notes\n\nSettled.\n" });
  await fetch(content, { headers: { authorization } }).then((r) => r.text());
  await api(server, "GET", `${s.base}/files/tree`);
  await api(server, "GET", `/api/v1/organizations/${s.org}/search?q=note`);
  await api(server, "GET", `/api/v1/me/inbox?org_id=${s.org}`);
  await api(server, "GET", `/api/v1/me/unread?org_id=${s.org}`);
  await edit(wsUrl(server, await collabPath(server, "editing")));
  events.close();
} finally {
  await server.stop();
}

// The stopped server wrote its profile. Kept: the functions it ran (`F`) and the modules (`M`, `N`), which are
// what the layout follows. Left out: the lines about every other function of the build it ran (`K`, `S`), ten
// times as many, which would change with every build and laid the bytecode out no differently here.
const [file] = readdirSync(recorded).filter((f) => f.endsWith(".order"));
if (!file) throw new Error("tandem serve wrote no profile: was dist/tandem built with --bytecode?");
const lines = readFileSync(join(recorded, file), "utf8")
  .split("\n")
  .filter((line) => line !== "" && !line.startsWith("K ") && !line.startsWith("S "));
writeFileSync(OUT, `${lines.join("\n")}\n`);
console.log(`${OUT}: ${lines.length - 1} functions and modules`);
await cleanup();

/** Five editors type into one document and move their cursors, as people do. */
async function edit(url: string): Promise<void> {
  const editors = await Promise.all(
    Array.from({ length: 5 }, async (_, client) => {
      const socket = await connect(url, () => {});
      const doc = new Y.Doc();
      doc.on("update", (update: Uint8Array) => socket.send(updateFrame(update) as Uint8Array<ArrayBuffer>));
      return { socket, doc, client };
    }),
  );
  for (let round = 0; round < 40; round++) {
    for (const { socket, doc, client } of editors) {
      doc.getText("content").insert(0, `${client}.${round} `);
      socket.send(awarenessFrame(doc.clientID, round + 1, { cursor: { anchor: round } }) as Uint8Array<ArrayBuffer>);
    }
    await Bun.sleep(20);
  }
  await Bun.sleep(500);
  for (const { socket, doc } of editors) {
    socket.close();
    doc.destroy();
  }
}
