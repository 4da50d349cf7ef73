/**
 * Threads (contract §11): a reply goes in the thread of a top-level message of the same room, counts on its
 * root, stays out of the room's list unless sent `also_in_room`, and is read back through `.../replies`.
 * Everything is observed over HTTP and the live-events socket.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, addStaff, type Org, type Person, setupOrg } from "../helpers/factories";
import { completion, type FakeProvider, startFakeProvider } from "../helpers/fake-providers";
import { TIMESTAMP } from "../helpers/http";
import { startTestServer, type TestServer } from "../helpers/server";
import { eventually, type Listener, listen } from "../helpers/sockets";

let server: TestServer;
let org: Org;
let ada: Person;
let bob: Person;
let viewer: Person;
let spaceId: string;
let rooms: string;
let live: Listener;
let gateway: FakeProvider;

const UNKNOWN = "01a1fdb9-0000-7000-8000-000000000000";

beforeAll(async () => {
  gateway = startFakeProvider(() => completion("Tuesday, 14:00 UTC."));
  server = await startTestServer({
    env: { MODELROUTER_API_BASE_URL: `${gateway.origin}/api/v1` },
    jobs: { reply: { timeScale: 0.001 } },
  });
  org = await setupOrg(server);
  ada = await addMember(org, ["Member"], "Ada Lovelace");
  bob = await addMember(org, ["Member"], "Bob Builder");
  viewer = await addMember(org, ["Viewer"], "Vic Viewer");
  const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Launch" });
  spaceId = space.body.id;
  rooms = `/api/v1/organizations/${org.id}/spaces/${spaceId}/chat-rooms`;
  live = await listen(server.url, org.id, bob.token);
});
afterAll(async () => {
  live.close();
  await server.stop();
  gateway.stop();
});

let roomCounter = 0;

/** A fresh room: the path of its messages. */
async function newRoom(): Promise<string> {
  const res = await ada.api.post(rooms, { name: `thread room ${++roomCounter}` });
  if (res.status !== 201) throw new Error(`room create failed: ${res.status} ${res.text}`);
  return `${rooms}/${res.body.id}/messages`;
}

/** Posts as `who`; the answer's message. */
async function post(path: string, body: Record<string, unknown>, who: Person = ada): Promise<any> {
  const res = await who.api.post(path, body);
  if (res.status !== 201) throw new Error(`post failed: ${res.status} ${res.text}`);
  return res.body.message;
}

const listing = async (path: string, query = "") => (await ada.api.get(`${path}${query}`)).body;
const thread = async (path: string, id: string, query = "") => ada.api.get(`${path}/${id}/replies${query}`);
const contents = (list: { content: string }[]) => list.map((m) => m.content);

describe("POST .../messages with thread_root_id", () => {
  it("answers a top-level message with thread_root_id null, also_in_room false, reply_count 0, last_reply_at null", async () => {
    const path = await newRoom();
    const root = await post(path, { content: "Top" });
    expect(root).toMatchObject({ thread_root_id: null, also_in_room: false, reply_count: 0, last_reply_at: null });
  });

  it("replies in the thread: the reply names its root, the root counts it, the room's list leaves it out", async () => {
    const path = await newRoom();
    const root = await post(path, { content: "Launch on Tuesday?" });
    const reply = await post(path, { content: "Yes, 14:00", thread_root_id: root.id }, bob);
    expect(reply).toMatchObject({ thread_root_id: root.id, also_in_room: false, reply_count: 0 });
    const page = await listing(path);
    expect(contents(page.messages)).toEqual(["Launch on Tuesday?"]);
    expect(page.messages[0]).toMatchObject({ reply_count: 1, last_reply_at: reply.created_at });
    expect(page.messages[0].last_reply_at).toMatch(TIMESTAMP);
  });

  it("shows a reply sent also_in_room in the room too, still counted on its root", async () => {
    const path = await newRoom();
    const root = await post(path, { content: "root" });
    await post(path, { content: "only in thread", thread_root_id: root.id });
    const both = await post(path, { content: "in both", thread_root_id: root.id, also_in_room: true });
    expect(both.also_in_room).toBe(true);
    const page = await listing(path);
    expect(contents(page.messages)).toEqual(["root", "in both"]);
    expect(page.messages[0].reply_count).toBe(2);
    const replies = await thread(path, root.id);
    expect(contents(replies.body.messages)).toEqual(["only in thread", "in both"]);
  });

  it("puts a reply to a reply in the same thread, its root's", async () => {
    const path = await newRoom();
    const root = await post(path, { content: "root" });
    const first = await post(path, { content: "first", thread_root_id: root.id });
    const second = await post(path, { content: "second", thread_root_id: first.id }, bob);
    expect(second.thread_root_id).toBe(root.id);
    const replies = await thread(path, root.id);
    expect(contents(replies.body.messages)).toEqual(["first", "second"]);
    expect((await listing(path)).messages[0].reply_count).toBe(2);
  });

  it("accepts a root id in upper case", async () => {
    const path = await newRoom();
    const root = await post(path, { content: "root" });
    const reply = await post(path, { content: "r", thread_root_id: root.id.toUpperCase() });
    expect(reply.thread_root_id).toBe(root.id);
  });

  it("answers 400 for a root that is not a message of the room", async () => {
    const path = await newRoom();
    const other = await newRoom();
    const elsewhere = await post(other, { content: "in another room" });
    const otherSpace = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Other" });
    const otherRooms = `/api/v1/organizations/${org.id}/spaces/${otherSpace.body.id}/chat-rooms`;
    const general = (await org.owner.api.get(otherRooms)).body.chat_rooms[0].id;
    const far = await post(`${otherRooms}/${general}/messages`, { content: "in another space" }, org.owner);
    for (const [id, error] of [
      [UNKNOWN, "thread_root_id: no such message in this room"],
      ["not-a-uuid", "thread_root_id: no such message in this room"],
      [elsewhere.id, "thread_root_id: no such message in this room"],
      [far.id, "thread_root_id: no such message in this room"],
      [42, "thread_root_id: must be a string"],
    ] as const) {
      const res = await ada.api.post(path, { content: "r", thread_root_id: id });
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error } });
    }
  });

  it("answers 400 also_in_room: needs thread_root_id for also_in_room at the top level, and for a non-boolean", async () => {
    const path = await newRoom();
    const res = await ada.api.post(path, { content: "x", also_in_room: true });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: { error: "also_in_room: needs thread_root_id" },
    });
    const bad = await ada.api.post(path, { content: "x", also_in_room: "yes" });
    expect({ status: bad.status, body: bad.body }).toEqual({
      status: 400,
      body: { error: "also_in_room: must be a boolean" },
    });
    const plain = await ada.api.post(path, { content: "x", thread_root_id: null, also_in_room: false });
    expect(plain.status).toBe(201);
  });

  it("needs chat.write, as any post", async () => {
    const path = await newRoom();
    const root = await post(path, { content: "root" });
    const res = await viewer.api.post(path, { content: "r", thread_root_id: root.id });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 403,
      body: { error: "missing permission: chat.write" },
    });
  });
});

describe("GET .../messages/{messageId}/replies", () => {
  it("lists the thread oldest first with the page's reactions and attachments, and its root with its own", async () => {
    const path = await newRoom();
    const root = await post(path, { content: "root", attachments: [{ url: "https://example.com/spec.pdf" }] });
    await ada.api.post(`${path}/${root.id}/reactions`, { emoji: "👀" });
    const r1 = await post(path, { content: "r1", thread_root_id: root.id }, bob);
    const r2 = await post(path, {
      content: "r2",
      thread_root_id: root.id,
      attachments: [{ url: "https://example.com/shot.png", mime: "image/png" }],
    });
    await bob.api.post(`${path}/${r2.id}/reactions`, { emoji: "👍" });
    const res = await thread(path, root.id);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["attachments", "messages", "reactions", "root"]);
    expect(res.body.messages.map((m: any) => m.id)).toEqual([r1.id, r2.id]);
    expect(res.body.reactions).toEqual([expect.objectContaining({ message_id: r2.id, emoji: "👍" })]);
    expect(res.body.attachments).toEqual([expect.objectContaining({ message_id: r2.id, name: "shot.png" })]);
    expect(res.body.root.message).toMatchObject({ id: root.id, reply_count: 2, last_reply_at: r2.created_at });
    expect(res.body.root.reactions).toEqual([expect.objectContaining({ message_id: root.id, emoji: "👀" })]);
    expect(res.body.root.attachments).toEqual([expect.objectContaining({ message_id: root.id, name: "spec.pdf" })]);
    // The room's page holds neither the thread's reactions nor its attachments.
    const page = await listing(path);
    expect(page.reactions.map((r: any) => r.message_id)).toEqual([root.id]);
    expect(page.attachments.map((a: any) => a.message_id)).toEqual([root.id]);
  });

  it("pages with limit and before, the newest first kept", async () => {
    const path = await newRoom();
    const root = await post(path, { content: "root" });
    for (let i = 0; i < 5; i++) await post(path, { content: `r${i}`, thread_root_id: root.id });
    const newest = await thread(path, root.id, "?limit=2");
    expect(contents(newest.body.messages)).toEqual(["r3", "r4"]);
    const older = await thread(
      path,
      root.id,
      `?limit=2&before=${encodeURIComponent(newest.body.messages[0].created_at)}`,
    );
    expect(contents(older.body.messages)).toEqual(["r1", "r2"]);
    const bad = await thread(path, root.id, "?limit=zero");
    expect({ status: bad.status, body: bad.body }).toEqual({ status: 400, body: { error: "invalid limit" } });
  });

  it("answers the thread a reply is in when asked with the reply's id", async () => {
    const path = await newRoom();
    const root = await post(path, { content: "root" });
    const reply = await post(path, { content: "r", thread_root_id: root.id });
    const res = await thread(path, reply.id);
    expect(res.body.root.message.id).toBe(root.id);
    expect(contents(res.body.messages)).toEqual(["r"]);
  });

  it("answers an empty thread for a message without replies, and lets a Viewer read", async () => {
    const path = await newRoom();
    const root = await post(path, { content: "lonely" });
    const res = await viewer.api.get(`${path}/${root.id}/replies`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ messages: [], reactions: [], attachments: [] });
  });

  it("answers 404 message not found for an unknown, malformed or other room's message", async () => {
    const path = await newRoom();
    const other = await newRoom();
    const elsewhere = await post(other, { content: "x" });
    for (const id of [UNKNOWN, "nope", elsewhere.id]) {
      const res = await thread(path, id);
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: { error: "message not found" } });
    }
  });
});

describe("deleting in a thread", () => {
  it("keeps a deleted root's thread: its replies, its count, and new replies", async () => {
    const path = await newRoom();
    const root = await post(path, { content: "root" });
    await post(path, { content: "r1", thread_root_id: root.id }, bob);
    expect((await ada.api.delete(`${path}/${root.id}`)).status).toBe(204);
    const page = await listing(path);
    expect(page.messages[0]).toMatchObject({ id: root.id, content: "", reply_count: 1 });
    expect(page.messages[0].deleted_at).toMatch(TIMESTAMP);
    const later = await post(path, { content: "r2", thread_root_id: root.id }, bob);
    expect(later.thread_root_id).toBe(root.id);
    const res = await thread(path, root.id);
    expect(contents(res.body.messages)).toEqual(["r1", "r2"]);
    expect(res.body.root.message).toMatchObject({ content: "", reply_count: 2 });
  });

  it("refuses to start a thread on a deleted message: 400 thread_root_id: message has been deleted", async () => {
    const path = await newRoom();
    const gone = await post(path, { content: "gone" });
    await ada.api.delete(`${path}/${gone.id}`);
    const res = await ada.api.post(path, { content: "r", thread_root_id: gone.id });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: { error: "thread_root_id: message has been deleted" },
    });
  });

  it("takes a deleted reply off its root's count and back to the previous last reply", async () => {
    const path = await newRoom();
    const root = await post(path, { content: "root" });
    const r1 = await post(path, { content: "r1", thread_root_id: root.id });
    const r2 = await post(path, { content: "r2", thread_root_id: root.id });
    expect((await ada.api.delete(`${path}/${r2.id}`)).status).toBe(204);
    let res = await thread(path, root.id);
    expect(res.body.root.message).toMatchObject({ reply_count: 1, last_reply_at: r1.created_at });
    expect(res.body.messages[1]).toMatchObject({ id: r2.id, content: "" });
    await ada.api.delete(`${path}/${r1.id}`);
    res = await thread(path, root.id);
    expect(res.body.root.message).toMatchObject({ reply_count: 0, last_reply_at: null });
  });
});

describe("live events of a thread", () => {
  it("announces a reply as chat.message.created with thread_root_id, then its root's counts as chat.message.updated", async () => {
    const path = await newRoom();
    const root = await post(path, { content: "root" });
    const posted = await ada.api.post(path, { content: "reply", thread_root_id: root.id });
    const created = await live.next(
      (e) => e.type === "chat.message.created" && e.payload.message.id === posted.body.message.id,
    );
    expect(created.payload).toEqual(posted.body);
    expect(created.payload.message.thread_root_id).toBe(root.id);
    const updated = await live.next((e) => e.type === "chat.message.updated" && e.payload.id === root.id);
    const listed = (await listing(path)).messages[0];
    expect(updated.payload).toEqual(listed);
    expect(updated.payload.reply_count).toBe(1);
    // The reply came first, then its root's counts.
    expect(live.events.indexOf(created)).toBeLessThan(live.events.indexOf(updated));
  });

  it("announces a deleted reply and its root's new counts", async () => {
    const path = await newRoom();
    const root = await post(path, { content: "root" });
    const reply = await post(path, { content: "reply", thread_root_id: root.id });
    await ada.api.delete(`${path}/${reply.id}`);
    const deleted = await live.next((e) => e.type === "chat.message.deleted" && e.payload.id === reply.id);
    expect(deleted.payload.thread_root_id).toBe(root.id);
    await live.next(
      (e) => e.type === "chat.message.updated" && e.payload.id === root.id && e.payload.reply_count === 0,
    );
  });
});

describe("staff in a thread", () => {
  it("answers a mention in a thread reply in that thread, reading the thread", async () => {
    const key = await org.owner.api.put(`/api/v1/organizations/${org.id}/integrations/modelrouter`, {
      api_key: "sk-or-v1-test-threads",
    });
    expect(key.status).toBe(200);
    await addStaff(org, { name: "Rita" });
    const path = await newRoom();
    const root = await post(path, { content: "When do we launch? ROOT-7c1" });
    await post(path, { content: "Not sure, THREAD-2b9", thread_root_id: root.id }, bob);
    const asked = await post(path, { content: "@Rita can you tell us?", thread_root_id: root.id });
    let answer: any;
    await eventually(
      () => {
        const created = live.events.find(
          (e) => e.type === "chat.message.created" && e.payload.message.content === "Tuesday, 14:00 UTC.",
        );
        answer = created?.payload.message;
        return answer !== undefined;
      },
      "the staff answer",
      20_000,
    );
    expect(answer.thread_root_id).toBe(root.id);
    expect(answer.also_in_room).toBe(false);
    const replies = await thread(path, root.id);
    expect(contents(replies.body.messages)).toEqual([
      "Not sure, THREAD-2b9",
      "@Rita can you tell us?",
      "Tuesday, 14:00 UTC.",
    ]);
    expect(contents((await listing(path)).messages)).toEqual(["When do we launch? ROOT-7c1"]);
    // The 💭 acknowledged the reply that asked, in the thread.
    await live.next((e) => e.type === "chat.reaction.added" && e.payload.message_id === asked.id);
    // What the staff member was told is the thread's conversation.
    const system = gateway.requests.at(-1)?.body.messages[0].content as string;
    expect(system).toContain("ROOT-7c1");
    expect(system).toContain("THREAD-2b9");
  });
});
