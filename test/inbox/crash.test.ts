/**
 * The items of a person's chat posts are written after the posts, in batches (src/features/inbox/inbox.batch.ts):
 * a `kill -9` of dist/tandem right after posts that name people or answer in a thread loses none of their items,
 * writes none twice (posts whose batch had committed are looked at again by the catch-up), and leaves none about a
 * post deleted before its batch ran. A graceful stop writes the batch waiting before it exits. SQLite only: on
 * PostgreSQL a post's items are written in its own transaction (test/cluster/posts.test.ts).
 */
import { afterAll, describe, expect, it } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { addMember, type Person, setupOrg } from "../helpers/factories";
import { type Client, client } from "../helpers/http";
import { ON_POSTGRES, openDataDirDatabase } from "../helpers/postgres";
import { BINARY, type SpawnedServer, spawnServer, tempDir } from "../helpers/server";

const dirs: string[] = [];
const spawned: SpawnedServer[] = [];
afterAll(async () => {
  for (const s of spawned) if (s.proc.exitCode === null) await s.stop("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Item {
  kind: string;
  message_id: string | null;
}

/** The inbox items about chat messages in the database file itself: `user message kind` each. */
function itemsInFile(dir: string): string[] {
  const db = openDataDirDatabase(dir, { readonly: true });
  try {
    const rows = db.query("SELECT user_id, message_id, kind FROM inbox_items WHERE message_id IS NOT NULL").all() as {
      user_id: string;
      message_id: string;
      kind: string;
    }[];
    return rows.map((r) => `${r.user_id} ${r.message_id} ${r.kind}`).sort();
  } finally {
    db.close();
  }
}

describe.skipIf(ON_POSTGRES)("inbox items of chat posts across a crash", () => {
  it("a kill -9 right after posts that name people loses no item, doubles none, and keeps none of a deleted post", async () => {
    expect(existsSync(BINARY)).toBe(true);
    const dir = tempDir("tandem-inbox-crash-");
    dirs.push(dir);
    const start = async () => {
      const server = await spawnServer({ kind: "binary", dataDir: dir });
      spawned.push(server);
      return server;
    };
    const first = await start();
    const org = await setupOrg({
      url: first.url,
      dataDir: dir,
      setupToken: first.setupUrl ? new URL(first.setupUrl).searchParams.get("token") : null,
      logs: [],
      stop: async () => undefined,
    });
    const ada = await addMember(org, ["Member"], "Ada Lovelace");
    const bob = await addMember(org, ["Member"], "Bob Builder");
    const base = `/api/v1/organizations/${org.id}`;
    const spaceId = (await org.owner.api.post(`${base}/spaces`, { name: "Launch" })).body.id as string;
    const roomId = (await org.owner.api.get(`${base}/spaces/${spaceId}/chat-rooms`)).body.chat_rooms[0].id as string;
    const messages = `${base}/spaces/${spaceId}/chat-rooms/${roomId}/messages`;
    // Tokens outlive a restart (the signing key is in the data dir): each call goes to the server running now.
    let url = first.url;
    const as = (who: Person): Client => client(url, who.token);
    const post = async (who: Person, body: Record<string, unknown>) => {
      const res = await as(who).post(messages, body);
      if (res.status !== 201) throw new Error(`post failed: ${res.status} ${res.text}`);
      return res.body.message.id as string;
    };

    // Posts whose batch commits before the crash: the catch-up looks at them again and must not double them.
    const early = await post(org.owner, { content: "@Ada Lovelace early" });
    const root = await post(bob, { content: "a thread to answer in" });
    // Their batch runs a moment later; the burst below follows it at once, so the next batch is a second away.
    for (const started = Date.now(); itemsInFile(dir).length === 0 && Date.now() - started < 5000; ) {
      await Bun.sleep(5);
    }
    expect(itemsInFile(dir)).toEqual([`${ada.id} ${early} mention`]);

    // Answered, then killed before their batch: ten posts at once naming Ada, a reply in Bob's thread naming
    // Ada (her mention, Bob's thread reply), Ada naming herself, and a post deleted at once.
    const burst = await Promise.all(
      Array.from({ length: 10 }, (_, i) => post(org.owner, { content: `@Ada Lovelace burst ${i}` })),
    );
    const reply = await post(org.owner, { content: "@Ada Lovelace see above", thread_root_id: root });
    const own = await post(ada, { content: "@Ada Lovelace note to self" });
    const gone = await post(org.owner, { content: "@Ada Lovelace @Bob Builder soon gone" });
    expect((await org.owner.api.delete(`${messages}/${gone}`)).status).toBe(204);
    first.proc.kill("SIGKILL");
    await first.proc.exited;
    // The crash came before their batch (`FLUSH_MS`): otherwise this test shows nothing.
    expect(itemsInFile(dir).length).toBeLessThan(12);

    const second = await start();
    url = second.url;
    const inboxOf = async (who: Person): Promise<Item[]> => {
      const res = await as(who).get(`/api/v1/me/inbox?org_id=${org.id}&limit=100`);
      expect(res.status).toBe(200);
      return res.body.items;
    };
    const adaItems = await inboxOf(ada);
    const mentions = adaItems.filter((i) => i.kind === "mention").map((i) => i.message_id);
    expect(mentions.sort()).toEqual([early, ...burst, reply].sort());
    expect(adaItems).toHaveLength(12);
    expect((await inboxOf(bob)).map((i) => [i.kind, i.message_id])).toEqual([["thread_reply", reply]]);
    const ids = itemsInFile(dir).map((line) => line.split(" ")[1]);
    expect(ids).not.toContain(own);
    expect(ids).not.toContain(gone);
    // Exactly once each, in the file too.
    expect(new Set(itemsInFile(dir)).size).toBe(itemsInFile(dir).length);
    expect(itemsInFile(dir)).toHaveLength(13);

    // A graceful stop writes the batch waiting before it exits. (A batch just ran, for the read: the next waits
    // a second.)
    await post(org.owner, { content: "@Bob Builder one more" });
    expect(await inboxOf(bob)).toHaveLength(2);
    const waiting = await post(org.owner, { content: "@Bob Builder waiting at the stop" });
    expect(await second.stop("SIGTERM")).toBe(0);
    expect(itemsInFile(dir)).toContain(`${bob.id} ${waiting} mention`);

    // With nothing waiting, it records that every post so far has its items, one that makes none too: the next
    // start after a crash walks back no further than that.
    const third = await start();
    url = third.url;
    const plain = await post(org.owner, { content: "a last word for no one" });
    expect(await third.stop("SIGTERM")).toBe(0);
    const db = openDataDirDatabase(dir, { readonly: true });
    try {
      const written = db.query("SELECT value FROM inbox_state WHERE name = 'posts'").get() as { value: number };
      const stored = db.query("SELECT created_at FROM chat_messages WHERE id = ?").get(plain) as { created_at: number };
      expect(written.value).toBeGreaterThanOrEqual(stored.created_at);
    } finally {
      db.close();
    }
  });
});
