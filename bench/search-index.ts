/**
 * What indexing a chat message for search costs, over the real schema (every migration applied to a fresh file):
 * CPU per message of a post stored alone, stored with its index row and FTS5 entries in the same transaction (as
 * the first version of search did, a savepoint per post), and of the same index written afterwards in batches.
 * Posts are grouped as the group commit groups them under load (`perTx`). Raw statements: no HTTP, no JSON.
 *
 *   bun bench/search-index.ts [messages=20000]
 */
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../src/db/client";
import { migrate } from "../src/db/migrate";
import { MESSAGES_INDEX_SQL } from "../src/features/search/search.store";

const N = Number(process.argv[2] ?? 20_000);
const words = Array.from({ length: 5000 }, (_, i) => `w${(i * 7919) % 100_000}x`);
const text = (i: number) =>
  `hello from the bench, message ${Array.from({ length: 6 }, (_, k) => words[(i * 31 + k * 977) % words.length]).join(" ")}`;
const idOf = (i: number) => `0190${String(i).padStart(28, "0")}`;

function fresh(): { sqlite: Database; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "tandem-search-index-"));
  const { sqlite } = openDatabase(join(dir, "t.db"));
  migrate(sqlite);
  sqlite.exec("PRAGMA foreign_keys = OFF");
  sqlite.exec(
    "INSERT INTO chat_rooms (id, space_id, name, name_key, created_at) VALUES ('r', 's', 'general', 'general', 0)",
  );
  return { sqlite, dir };
}

const cpu = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return u.user + u.system;
};

/** µs of CPU per post, `perTx` posts per transaction; `index`: what each post also writes. */
function inPost(perTx: number, index: "none" | "savepoint" | "row" | "full"): number {
  const { sqlite, dir } = fresh();
  if (index === "row") sqlite.exec("DROP TRIGGER search_docs_ai");
  const post = sqlite.prepare(
    "INSERT INTO chat_messages (id, room_id, space_id, content, created_at, updated_at) VALUES (?, 'r', 's', ?, ?, ?)",
  );
  const doc = sqlite.prepare(
    "INSERT INTO search_docs (kind, item_id, space_id, parent_id, created_at, title, body) VALUES ('message', ?, 's', 'r', ?, '', ?)",
  );
  const [begin, commit, savepoint, release] = ["BEGIN IMMEDIATE", "COMMIT", "SAVEPOINT job", "RELEASE job"].map((s) =>
    sqlite.prepare(s),
  ) as [ReturnType<Database["prepare"]>, ...ReturnType<Database["prepare"]>[]];
  const start = process.cpuUsage();
  for (let i = 0; i < N; i += perTx) {
    begin.run();
    for (let j = i; j < i + perTx; j++) {
      if (index !== "none") savepoint?.run();
      post.run(idOf(j), text(j), j, j);
      if (index === "row" || index === "full") doc.run(idOf(j), j, text(j));
      if (index !== "none") release?.run();
    }
    commit?.run();
  }
  const us = cpu(start) / N;
  sqlite.close();
  rmSync(dir, { recursive: true, force: true });
  return us;
}

/** µs of CPU per message of indexing `batch` stored messages in one transaction (`MESSAGES_INDEX_SQL`). */
function batched(batch: number): number {
  const { sqlite, dir } = fresh();
  const post = sqlite.prepare(
    "INSERT INTO chat_messages (id, room_id, space_id, content, created_at, updated_at) VALUES (?, 'r', 's', ?, ?, ?)",
  );
  const index = sqlite.prepare(MESSAGES_INDEX_SQL);
  let spent = 0;
  for (let i = 0; i < N; i += batch) {
    const ids: string[] = [];
    sqlite.transaction(() => {
      for (let j = i; j < i + batch; j++) {
        ids.push(idOf(j));
        post.run(idOf(j), text(j), j, j);
      }
    })();
    const start = process.cpuUsage();
    sqlite.exec("BEGIN IMMEDIATE");
    index.run({ $ids: JSON.stringify(ids) });
    sqlite.exec("COMMIT");
    spent += cpu(start);
  }
  sqlite.close();
  rmSync(dir, { recursive: true, force: true });
  return spent / N;
}

for (const perTx of [1, 4, 16]) {
  const row = (["none", "savepoint", "row", "full"] as const).map((k) => `${k} ${inPost(perTx, k).toFixed(1)}`);
  console.log(`in the post, ${perTx} post(s) per transaction, µs CPU per post: ${row.join(", ")}`);
}
for (const batch of [20, 200, 2000])
  console.log(`afterwards, ${batch} per transaction, µs CPU per message: ${batched(batch).toFixed(1)}`);
