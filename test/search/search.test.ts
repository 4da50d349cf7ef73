/**
 * Search (contract §10, docs/api.md "Search"): against a real server over a SQLite file (or PostgreSQL, with
 * `TANDEM_TEST_DATABASE=postgres`), every rule of the Search row — the 400s of `q`, the `types` and `space_id`
 * filters, whole words ignoring case and accents, every word required, parts of file names, `<mark>` around
 * matches in escaped excerpts, private spaces, edits and deletions at once, a restart, and a file's text once
 * its editing settles.
 */

import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { rmSync } from "node:fs";
import { addMember, addStaff, type Org, type Person, setupOrg } from "../helpers/factories";
import { client, TIMESTAMP, UUID } from "../helpers/http";
import { ON_POSTGRES, openDataDirDatabase } from "../helpers/postgres";
import { runCli, type SpawnedServer, spawnServer, startTestServer, type TestServer, tempDir } from "../helpers/server";
import { collabBase, eventually, openEditor } from "../helpers/sockets";

interface Result {
  type: string;
  id: string;
  space_id: string;
  title: string;
  snippet: string;
  created_at: string;
  chat_room_id?: string;
  task_id?: string;
  file_id?: string;
}

const dataDir = tempDir();
let server: TestServer;
let org: Org;
let member: Person;
/** Holds chat.write and tasks.write, not files.read. */
let noFiles: Person;
let pub: { id: string; base: string; room: string; column: string };
let secret: { id: string; base: string; room: string; column: string };

async function makeSpace(name: string, isPrivate: boolean) {
  const res = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name, private: isPrivate });
  if (res.status !== 201) throw new Error(`space: ${res.status} ${res.text}`);
  const base = `/api/v1/organizations/${org.id}/spaces/${res.body.id}`;
  const rooms = await org.owner.api.get(`${base}/chat-rooms`);
  const board = await org.owner.api.get(`${base}/board`);
  return {
    id: res.body.id as string,
    base,
    room: rooms.body.chat_rooms[0].id as string,
    column: board.body.columns[0].id,
  };
}

beforeAll(async () => {
  server = await startTestServer({ dataDir });
  org = await setupOrg(server);
  member = await addMember(org, ["Member"], "Mia Member");
  const role = await org.owner.api.post(`/api/v1/organizations/${org.id}/roles`, {
    name: "Talkers",
    permissions: ["chat.write", "tasks.write"],
  });
  noFiles = await addMember(org, ["Viewer"], "Nat NoFiles");
  await org.owner.api.put(`/api/v1/organizations/${org.id}/members/${noFiles.id}/roles`, {
    role_ids: [role.body.role.id],
  });
  pub = await makeSpace("Launch", false);
  secret = await makeSpace("Secret", true);
});
afterAll(async () => {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** GET /search as `who` with these query parameters. */
async function search(who: Person | { api: ReturnType<typeof client> }, params: Record<string, string>) {
  const query = new URLSearchParams(params).toString();
  return who.api.get<{ results: Result[]; error?: string }>(`/api/v1/organizations/${org.id}/search?${query}`);
}

/** The ids a search finds (200 expected). */
async function found(who: Person | { api: ReturnType<typeof client> }, q: string, extra: Record<string, string> = {}) {
  const res = await search(who, { q, ...extra });
  expect(res.status).toBe(200);
  return res.body.results.map((r) => r.id);
}

async function post(space: typeof pub, content: string, as: Person = org.owner) {
  const res = await as.api.post(`${space.base}/chat-rooms/${space.room}/messages`, { content });
  if (res.status !== 201) throw new Error(`post: ${res.status} ${res.text}`);
  return res.body.message as { id: string; created_at: string };
}

async function task(space: typeof pub, title: string, description = "") {
  const res = await org.owner.api.post(`${space.base}/tasks`, { title, description, column_id: space.column });
  if (res.status !== 201) throw new Error(`task: ${res.status} ${res.text}`);
  return res.body as { id: string };
}

/** A count (`SELECT count(*) AS n ... ?`) in the database of a data dir, on the engine under test. */
function countIn(dir: string, sql: string, ...params: string[]): number {
  const db = openDataDirDatabase(dir, { readonly: true });
  try {
    return (db.query(sql).get(...params) as { n: number }).n;
  } finally {
    db.close();
  }
}

async function textFile(space: typeof pub, name: string, content = "", parentId?: string) {
  const res = await org.owner.api.post(`${space.base}/files/text`, { name, content, parent_id: parentId });
  if (res.status !== 201) throw new Error(`file: ${res.status} ${res.text}`);
  return res.body.node as { id: string };
}

describe("GET /organizations/{orgId}/search: q", () => {
  it("answers 400 `q: ...` for an empty, blank or missing q", async () => {
    for (const params of [{ q: "" }, { q: "   " }, {}] as Record<string, string>[]) {
      const res = await search(member, params);
      expect(res.status).toBe(400);
      expect(res.body.error).toStartWith("q: ");
    }
  });

  it("answers 400 `q: ...` over 200 characters, and searches at 200", async () => {
    const over = await search(member, { q: "a".repeat(201) });
    expect(over.status).toBe(400);
    expect(over.body.error).toBe("q: must be at most 200 characters");
    // Characters, not UTF-16 units: 200 emoji are 200 characters.
    expect((await search(member, { q: "😀".repeat(200) })).status).toBe(200);
    expect((await search(member, { q: "😀".repeat(201) })).status).toBe(400);
  });

  it("treats FTS5 syntax as text: operators, quotes, stars and columns find nothing by themselves", async () => {
    const m = await post(pub, "The zircon OR the onyx");
    for (const q of [
      '"',
      "zircon OR",
      "NEAR(zircon onyx)",
      "zir*",
      "title:zircon",
      "(zircon",
      "zircon AND onyx",
      "-",
    ]) {
      const res = await search(member, { q });
      expect(res.status, q).toBe(200);
    }
    // `OR` is a word like any other: the message holds it.
    expect(await found(member, "zircon OR")).toEqual([m.id]);
    expect(await found(member, '"zircon"')).toEqual([m.id]);
    expect(await found(member, "zir*")).toEqual([]);
    expect(await found(member, "zircon AND onyx")).toEqual([]);
  });
});

describe("GET /organizations/{orgId}/search: matching", () => {
  it("finds a message by a whole word, ignoring case, with the result's fields", async () => {
    const m = await post(pub, "The quarterly Budget review is on Friday");
    const res = await search(member, { q: "budget" });
    expect(res.status).toBe(200);
    const hit = res.body.results.find((r) => r.id === m.id) as Result;
    expect(hit.type).toBe("message");
    expect(hit.space_id).toBe(pub.id);
    expect(hit.chat_room_id).toBe(pub.room);
    expect(hit.title).toBe("general");
    expect(hit.created_at).toBe(m.created_at);
    expect(hit.created_at).toMatch(TIMESTAMP);
    expect(hit.id).toMatch(UUID);
    expect(hit.snippet).toBe("The quarterly <mark>Budget</mark> review is on Friday");
    expect(hit.task_id).toBeUndefined();
    expect(hit.file_id).toBeUndefined();
    expect(await found(member, "BUDGET")).toContain(m.id);
  });

  it("matches whole words only", async () => {
    const m = await post(pub, "budgetary constraints");
    expect(await found(member, "budgetary")).toEqual([m.id]);
    expect(await found(member, "budge")).toEqual([]);
    expect(await found(member, "constraint")).toEqual([]);
  });

  it("ignores accents both ways", async () => {
    const m = await post(pub, "Rendez-vous au Café Zürich");
    expect(await found(member, "cafe zurich")).toEqual([m.id]);
    expect(await found(member, "CAFÉ")).toEqual([m.id]);
    const plain = await post(pub, "a naive resume");
    expect(await found(member, "naïve résumé")).toEqual([plain.id]);
  });

  it("needs every word of q", async () => {
    const m = await post(pub, "Lunar lander telemetry on Tuesday");
    expect(await found(member, "lunar tuesday")).toEqual([m.id]);
    expect(await found(member, "lunar wednesday")).toEqual([]);
  });

  it("finds tasks by title or description and task messages, titled by their task", async () => {
    const t = await task(pub, "Prepare the walrus report", "numbers from the aquarium");
    const comment = await org.owner.api.post(`${pub.base}/tasks/${t.id}/messages`, { content: "walrus count is 12" });
    const res = await search(member, { q: "walrus" });
    const byId = new Map(res.body.results.map((r) => [r.id, r]));
    const asTask = byId.get(t.id) as Result;
    expect(asTask.type).toBe("task");
    expect(asTask.title).toBe("Prepare the walrus report");
    expect(asTask.task_id).toBe(t.id);
    expect(asTask.snippet).toBe("Prepare the <mark>walrus</mark> report");
    const asComment = byId.get(comment.body.id) as Result;
    expect(asComment.type).toBe("task_message");
    expect(asComment.title).toBe("Prepare the walrus report");
    expect(asComment.task_id).toBe(t.id);
    expect(asComment.snippet).toBe("<mark>walrus</mark> count is 12");
    expect(await found(member, "aquarium")).toEqual([t.id]);
  });

  it("ranks a match in a title before one in a long body", async () => {
    const m = await post(
      pub,
      "a long message about many things where the word ocelot appears once among a great many other words here",
    );
    const t = await task(pub, "Ocelot");
    expect(await found(member, "ocelot")).toEqual([t.id, m.id]);
  });

  it("finds a file by any part of its name of 3 characters or more, and by whole words of it", async () => {
    const f = await textFile(pub, "Launch-Notes.md");
    const res = await search(member, { q: "aunch-no" });
    const hit = res.body.results.find((r) => r.id === f.id) as Result;
    expect(hit.type).toBe("file");
    expect(hit.file_id).toBe(f.id);
    expect(hit.title).toBe("Launch-Notes.md");
    expect(hit.snippet).toBe("L<mark>aunch-No</mark>tes.md");
    expect(await found(member, "NOTES")).toContain(f.id);
    expect(await found(member, "tes.m")).toContain(f.id);
    expect(await found(member, "no")).not.toContain(f.id);
  });

  it("finds a part of a file's name ignoring case and accents, and marks it in the name as written", async () => {
    const f = await textFile(pub, "Café-Zürich.txt");
    const [hit] = (await search(member, { q: "ZURI", types: "file" })).body.results;
    expect(hit?.id).toBe(f.id);
    expect(hit?.snippet).toBe("Café-<mark>Züri</mark>ch.txt");
    const [both] = (await search(member, { q: "afe zür", types: "file" })).body.results;
    expect(both?.snippet).toBe("C<mark>afé</mark>-<mark>Zür</mark>ich.txt");
    // `%` and `_` are characters of a name like any other.
    const pct = await textFile(pub, "report_100%.txt");
    expect(await found(member, "t_100%", { types: "file" })).toEqual([pct.id]);
    expect(await found(member, "t_1", { types: "file" })).toEqual([pct.id]);
    expect(await found(member, "t%1", { types: "file" })).toEqual([]);
  });

  it("takes a word with punctuation inside for its parts, one after the other", async () => {
    const m = await post(pub, "see Foliage-Notes.md and rambutan.example.com/path?x=1");
    const messages = { types: "message" };
    expect(await found(member, "notes.md", messages)).toEqual([m.id]);
    expect(await found(member, "FOLIAGE-notes", messages)).toEqual([m.id]);
    expect(await found(member, "rambutan.example", messages)).toEqual([m.id]);
    expect(await found(member, "notes-foliage", messages)).toEqual([]);
    expect(await found(member, "foliage.md", messages)).toEqual([]);
  });

  it("excerpts a long text around a match, `…` where it goes on", async () => {
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `filler${i}`).join(" ");
    const f = await textFile(pub, "long.txt", `${filler(1500)} the durian is here ${filler(1500)}`);
    const [hit] = (await search(member, { q: "durian" })).body.results;
    expect(hit?.id).toBe(f.id);
    expect(hit?.snippet).toStartWith("…");
    expect(hit?.snippet).toEndWith("…");
    expect(hit?.snippet).toContain("the <mark>durian</mark> is here");
  });

  it("finds a file's text that holds NUL by its words", async () => {
    const f = await textFile(pub, "nul.txt");
    const put = await org.owner.api.put(`${pub.base}/files/${f.id}/content`, undefined, {
      raw: "jicama\u0000tamarillo salak",
      contentType: "text/plain",
    });
    expect(put.status).toBe(200);
    // Written while the new file settles: its text is indexed once it is quiet.
    let hit: Result | undefined;
    for (const until = Date.now() + 5000; !hit && Date.now() < until; await Bun.sleep(100)) {
      [hit] = (await search(member, { q: "tamarillo" })).body.results;
    }
    expect(hit?.id).toBe(f.id);
    // PostgreSQL's text holds no NUL: its indexed copy has U+FFFD there (docs/api.md).
    expect(hit?.snippet).toBe(`jicama${ON_POSTGRES ? "\uFFFD" : "\u0000"}<mark>tamarillo</mark> salak`);
  });

  it("titles a file by its path, and finds a file's text", async () => {
    const folder = await org.owner.api.post(`${pub.base}/files/folders`, { name: "Plans" });
    const f = await textFile(pub, "garden.txt", "Plant the kumquat trees in spring", folder.body.node.id);
    const res = await search(member, { q: "kumquat" });
    expect(res.body.results.map((r) => [r.id, r.title, r.snippet])).toEqual([
      [f.id, "Plans/garden.txt", "Plant the <mark>kumquat</mark> trees in spring"],
    ]);
    // Name and text both match: one result.
    const both = await textFile(pub, "quince.txt", "quince jam");
    expect(await found(member, "quince")).toEqual([both.id]);
  });

  it("escapes every character of an excerpt but the marks", async () => {
    const m = await post(pub, `<script>alert("x&y")</script> 'danger' <b>bold</b>`);
    const [hit] = (await search(member, { q: "danger" })).body.results;
    expect(hit?.id).toBe(m.id);
    expect(hit?.snippet).toBe(
      "&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt; &#39;<mark>danger</mark>&#39; &lt;b&gt;bold&lt;/b&gt;",
    );
    const [script] = (await search(member, { q: "script alert" })).body.results;
    expect(script?.snippet).toBe(
      "&lt;<mark>script</mark>&gt;<mark>alert</mark>(&quot;x&amp;y&quot;)&lt;/<mark>script</mark>&gt; &#39;danger&#39; &lt;b&gt;bold&lt;/b&gt;",
    );
    // Characters 1 and 2 in a text (the marks inside the server) are never taken for marks.
    const sneaky = await post(pub, "tricky \u0001pelican\u0002 text");
    const [bird] = (await search(member, { q: "pelican" })).body.results;
    expect(bird?.id).toBe(sneaky.id);
    expect(bird?.snippet).toBe("tricky \uFFFD<mark>pelican</mark>\uFFFD text");
  });
});

describe("GET /organizations/{orgId}/search: filters", () => {
  it("keeps to `types`, comma-separated; an unknown type is 400 `types: ...`", async () => {
    const m = await post(pub, "marmot sighting");
    const t = await task(pub, "Marmot census");
    const f = await textFile(pub, "marmot.txt");
    expect((await found(member, "marmot", { types: "task" })).sort()).toEqual([t.id]);
    expect((await found(member, "marmot", { types: "message,file" })).sort()).toEqual([m.id, f.id].sort());
    expect((await found(member, "marmot", { types: "" })).length).toBe(3);
    const bad = await search(member, { q: "marmot", types: "message,card" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toStartWith("types: ");
  });

  it("keeps to `space_id`; a space the caller cannot see is 404 `space not found`", async () => {
    const inPub = await post(pub, "heron nest");
    const inSecret = await post(secret, "heron nest");
    expect(await found(org.owner, "heron", { space_id: secret.id })).toEqual([inSecret.id]);
    expect(await found(org.owner, "heron", { space_id: pub.id })).toEqual([inPub.id]);
    for (const space_id of [secret.id, "01a1fdb9-0000-7000-8000-0000000000ff", "nope"]) {
      const res = await search(member, { q: "heron", space_id });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe("space not found");
    }
  });

  it("answers at most `limit`, and only what was created before `before`", async () => {
    const first = await post(pub, "ibex one");
    const second = await post(pub, "ibex two");
    expect((await found(member, "ibex", { limit: "1" })).length).toBe(1);
    expect(await found(member, "ibex", { before: second.created_at })).toEqual([first.id]);
    expect((await search(member, { q: "ibex", limit: "0" })).body.error).toBe("invalid limit");
    expect((await search(member, { q: "ibex", before: "yesterday" })).body.error).toBe("invalid before");
  });
});

describe("GET /organizations/{orgId}/search: who sees what", () => {
  it("never shows a private space's messages, tasks, comments or files to a non-member", async () => {
    const m = await post(secret, "zeppelin plans");
    const t = await task(secret, "Zeppelin budget");
    const c = await org.owner.api.post(`${secret.base}/tasks/${t.id}/messages`, { content: "zeppelin hangar" });
    const f = await textFile(secret, "zeppelin.txt", "zeppelin");
    expect(await found(member, "zeppelin")).toEqual([]);
    expect(await found(member, "eppeli")).toEqual([]);
    expect((await found(org.owner, "zeppelin")).sort()).toEqual([m.id, t.id, c.body.id, f.id].sort());
    // Made a member of the space, they find it on the next search; removed, they no longer do.
    await org.owner.api.post(`${secret.base}/members`, { user_id: member.id });
    expect((await found(member, "zeppelin")).length).toBe(4);
    await org.owner.api.delete(`${secret.base}/members/${member.id}`);
    expect(await found(member, "zeppelin")).toEqual([]);
  });

  it("shows files only to callers holding files.read", async () => {
    const f = await textFile(pub, "okapi.txt", "okapi");
    const m = await post(pub, "okapi");
    expect((await found(noFiles, "okapi")).sort()).toEqual([m.id]);
    expect(await found(noFiles, "okapi", { types: "file" })).toEqual([]);
    expect((await found(member, "okapi")).sort()).toEqual([m.id, f.id].sort());
  });

  it("serves staff (an `sa_` token) by their roles", async () => {
    const staff = await addStaff(org);
    const m = await post(pub, "tapir tracks");
    await post(secret, "tapir tracks");
    expect(await found(staff, "tapir")).toEqual([m.id]);
  });
});

describe("GET /organizations/{orgId}/search: changes show in the next search", () => {
  it("an edited message is found by its new words only; a deleted one not at all", async () => {
    const m = await post(pub, "alpha centauri");
    expect(await found(member, "alpha")).toEqual([m.id]);
    await org.owner.api.patch(`${pub.base}/chat-rooms/${pub.room}/messages/${m.id}`, { content: "omega centauri" });
    expect(await found(member, "alpha")).toEqual([]);
    expect(await found(member, "omega")).toEqual([m.id]);
    await org.owner.api.delete(`${pub.base}/chat-rooms/${pub.room}/messages/${m.id}`);
    expect(await found(member, "centauri")).toEqual([]);
  });

  it("a task's new title counts at once; a deleted task goes with its comments", async () => {
    const t = await task(pub, "Feed the llama");
    const c = await org.owner.api.post(`${pub.base}/tasks/${t.id}/messages`, { content: "llama fed" });
    await org.owner.api.patch(`${pub.base}/tasks/${t.id}`, { title: "Feed the alpaca" });
    expect(await found(member, "alpaca")).toEqual([t.id]);
    const [comment] = (await search(member, { q: "llama" })).body.results;
    expect(comment?.id).toBe(c.body.id);
    expect(comment?.title).toBe("Feed the alpaca");
    await org.owner.api.delete(`${pub.base}/tasks/${t.id}`);
    expect(await found(member, "llama")).toEqual([]);
    expect(await found(member, "alpaca")).toEqual([]);
  });

  it("a renamed file is found by its new name; a deleted folder takes its files along", async () => {
    const folder = await org.owner.api.post(`${pub.base}/files/folders`, { name: "Archive" });
    const f = await textFile(pub, "gecko.txt", "gecko facts", folder.body.node.id);
    await org.owner.api.patch(`${pub.base}/files/${f.id}`, { name: "salamander.txt" });
    expect(await found(member, "alamand")).toEqual([f.id]);
    expect(await found(member, "gecko.txt")).toEqual([]);
    await org.owner.api.delete(`${pub.base}/files/${folder.body.node.id}`);
    expect(await found(member, "salamander")).toEqual([]);
    expect(await found(member, "gecko")).toEqual([]);
    expect(await found(member, "archive")).toEqual([]);
  });

  it("a deleted room's messages are gone at once", async () => {
    const room = await org.owner.api.post(`${pub.base}/chat-rooms`, { name: "random" });
    const res = await org.owner.api.post(`${pub.base}/chat-rooms/${room.body.id}/messages`, { content: "narwhal" });
    expect(await found(member, "narwhal")).toEqual([res.body.message.id]);
    await org.owner.api.delete(`${pub.base}/chat-rooms/${room.body.id}`);
    expect(await found(member, "narwhal")).toEqual([]);
    // And leave the index soon after.
    const left = () =>
      countIn(dataDir, "SELECT count(*) AS n FROM search_docs WHERE parent_id = ?", room.body.id) +
      countIn(dataDir, "SELECT count(*) AS n FROM search_room_purges");
    await eventually(() => left() === 0, "the room's messages to leave the index");
  });

  it("a file's text written over REST shows in the next search", async () => {
    const f = await textFile(pub, "rest.txt", "first draft");
    // Created a moment ago: this write comes while the file settles.
    await Bun.sleep(2100);
    const put = await org.owner.api.put(`${pub.base}/files/${f.id}/content`, undefined, {
      raw: "final wombat text",
      contentType: "text/plain",
    });
    expect(put.status).toBe(200);
    expect(await found(member, "wombat")).toEqual([f.id]);
    expect(await found(member, "draft")).toEqual([]);
  });

  it("a file's text edited together is found once the editing settles", async () => {
    const f = await textFile(pub, "together.txt", "");
    const editor = openEditor(collabBase(server.url, org.id, pub.id), f.id, org.owner.token);
    try {
      await editor.synced();
      for (const word of ["capybara ", "swims ", "daily "]) {
        editor.insert(editor.text().length, word);
        await Bun.sleep(50);
      }
      await eventually(() => editor.text() === "capybara swims daily ", "the edits applied");
      let ids: string[] = [];
      for (const until = Date.now() + 8000; ids.length === 0 && Date.now() < until; await Bun.sleep(100)) {
        ids = await found(member, "capybara daily");
      }
      expect(ids).toEqual([f.id]);
    } finally {
      editor.destroy();
    }
  });
});

describe("GET /organizations/{orgId}/search: a restart", () => {
  it("keeps the index", async () => {
    const m = await post(pub, "quokka smiles");
    await server.stop();
    server = await startTestServer({ dataDir });
    org.owner.api = client(server.url, org.owner.token);
    member.api = client(server.url, member.token);
    expect(await found(member, "quokka")).toEqual([m.id]);
    expect(await found(member, "walrus")).not.toEqual([]);
  });
});

describe("GET /organizations/{orgId}/search: a crash", () => {
  it("finds the messages and task comments posted just before a kill -9, and not one deleted then", async () => {
    const dir = tempDir("tandem-search-");
    const spawned: SpawnedServer[] = [];
    try {
      const admin = ["--admin-email", "o@acme.test", "--admin-password", "owner-pass"];
      const setup = await runCli(["setup", "--org-name", "Acme", ...admin, "--data", dir]);
      expect(setup.code).toBe(0);
      const orgId = JSON.parse(setup.stdout).organization_id as string;
      const start = async () => {
        const s = await spawnServer({ dataDir: dir });
        spawned.push(s);
        const login = await client(s.url).post("/api/v1/auth/login", { email: "o@acme.test", password: "owner-pass" });
        return { server: s, api: client(s.url, login.body.access_token) };
      };
      const first = await start();
      const base = `/api/v1/organizations/${orgId}`;
      const space = (await first.api.post(`${base}/spaces`, { name: "S" })).body;
      const room = (await first.api.get(`${base}/spaces/${space.id}/chat-rooms`)).body.chat_rooms[0].id;
      const messages = `${base}/spaces/${space.id}/chat-rooms/${room}/messages`;
      const gone = (await first.api.post(messages, { content: "dugong gone" })).body.message.id as string;
      expect((await first.api.delete(`${messages}/${gone}`)).status).toBe(204);
      const kept = (await first.api.post(messages, { content: "dugong kept" })).body.message.id as string;
      const board = (await first.api.get(`${base}/spaces/${space.id}/board`)).body;
      const task = (
        await first.api.post(`${base}/spaces/${space.id}/tasks`, { title: "Count", column_id: board.columns[0].id })
      ).body.id as string;
      const comment = (
        await first.api.post(`${base}/spaces/${space.id}/tasks/${task}/messages`, { content: "dugong noted" })
      ).body.id as string;
      first.server.proc.kill("SIGKILL");
      await first.server.proc.exited;
      // The post was answered and stored; on SQLite its index waited for a batch the crash never ran (on
      // PostgreSQL it was indexed in the post's transaction).
      expect(countIn(dir, "SELECT count(*) AS n FROM chat_messages WHERE id = ?", kept)).toBe(1);
      const indexed = ON_POSTGRES ? 1 : 0;
      expect(countIn(dir, "SELECT count(*) AS n FROM search_docs WHERE item_id = ?", kept)).toBe(indexed);
      expect(countIn(dir, "SELECT count(*) AS n FROM search_docs WHERE item_id = ?", comment)).toBe(indexed);

      const second = await start();
      const res = await second.api.get(`${base}/search?q=dugong`);
      expect(res.status).toBe(200);
      expect(res.body.results.map((r: Result) => r.id).sort()).toEqual([kept, comment].sort());
    } finally {
      for (const s of spawned) if (s.proc.exitCode === null) await s.stop("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
