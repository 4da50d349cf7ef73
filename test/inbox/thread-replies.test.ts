/**
 * Threads in the inbox and the unread counts (contract §10 `thread_reply`, §11): a reply notifies everyone who
 * wrote in its thread before, once each, never the replier, not those it names (their mention is the item), and
 * no one who muted the room; a reply that stays in its thread is not unread in the room, and reading the thread
 * reads its items without moving the room's read position.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, type Person } from "../helpers/factories";
import { listen } from "../helpers/sockets";
import { inbox, readUpTo, roomPath, spacePath, startWorld, unread, type World } from "./world";

let w: World;
let cleo: Person;
beforeAll(async () => {
  w = await startWorld();
  cleo = await addMember(w.org, ["Member"], "Cleo Cole");
});
afterAll(() => w.server.stop());

let rooms = 0;

/** A fresh room of the public space; its id. */
async function newRoom(): Promise<string> {
  const res = await w.owner.api.post(`${spacePath(w)}/chat-rooms`, { name: `threads ${++rooms}` });
  if (res.status !== 201) throw new Error(`room failed: ${res.status} ${res.text}`);
  return res.body.id;
}

/** Posts in `roomId` as `who`, in the thread of `rootId` when given; the message. */
async function write(roomId: string, who: Person, content: string, rootId?: string, alsoInRoom = false) {
  const body = rootId ? { content, thread_root_id: rootId, also_in_room: alsoInRoom } : { content };
  const res = await who.api.post(`${roomPath(w, roomId)}/messages`, body);
  if (res.status !== 201) throw new Error(`post failed: ${res.status} ${res.text}`);
  return res.body.message;
}

const itemsAbout = async (who: Person, messageId: string) =>
  (await inbox(w, who)).items.filter((i) => i.message_id === messageId);

describe("thread_reply items", () => {
  it("gives the root's author a `thread_reply` item about the reply", async () => {
    const room = await newRoom();
    const root = await write(room, w.owner, "Who takes the release notes?");
    const reply = await write(room, w.ada, "I can  take\nthem", root.id);
    const items = await itemsAbout(w.owner, reply.id);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      kind: "thread_reply",
      space_id: w.spaceId,
      actor_user_id: w.ada.id,
      chat_room_id: room,
      message_id: reply.id,
      task_id: null,
      automation_id: null,
      proposal_id: null,
      summary: "I can take them",
      read_at: null,
    });
    expect(await itemsAbout(w.ada, reply.id)).toEqual([]);
  });

  it("notifies everyone who wrote in the thread before, once each, never the replier nor anyone else", async () => {
    const room = await newRoom();
    const root = await write(room, w.owner, "root");
    await write(room, w.bob, "bob one", root.id);
    await write(room, w.bob, "bob two", root.id);
    await write(room, w.ada, "ada one", root.id);
    const reply = await write(room, w.ada, "ada two", root.id);
    expect((await itemsAbout(w.owner, reply.id)).map((i) => i.kind)).toEqual(["thread_reply"]);
    expect((await itemsAbout(w.bob, reply.id)).map((i) => i.kind)).toEqual(["thread_reply"]);
    expect(await itemsAbout(w.ada, reply.id)).toEqual([]);
    expect(await itemsAbout(cleo, reply.id)).toEqual([]);
  });

  it("gives a person the reply names their mention only, and the others their thread_reply", async () => {
    const room = await newRoom();
    const root = await write(room, w.owner, "root");
    await write(room, w.bob, "bob was here", root.id);
    const reply = await write(room, w.ada, "@Bob Builder and @Cleo Cole, look", root.id);
    expect((await itemsAbout(w.bob, reply.id)).map((i) => i.kind)).toEqual(["mention"]);
    expect((await itemsAbout(cleo, reply.id)).map((i) => i.kind)).toEqual(["mention"]);
    expect((await itemsAbout(w.owner, reply.id)).map((i) => i.kind)).toEqual(["thread_reply"]);
  });

  it("counts the also_in_room reply as a reply of the thread, and writing in the thread as taking part", async () => {
    const room = await newRoom();
    const root = await write(room, w.owner, "root");
    await write(room, cleo, "cleo, in the room too", root.id, true);
    const reply = await write(room, w.ada, "ada", root.id, true);
    expect((await itemsAbout(cleo, reply.id)).map((i) => i.kind)).toEqual(["thread_reply"]);
    expect((await itemsAbout(w.owner, reply.id)).map((i) => i.kind)).toEqual(["thread_reply"]);
  });

  it("makes no thread_reply in a room the person muted, but a mention still", async () => {
    const room = await newRoom();
    const settings = `/api/v1/me/notifications?org_id=${w.org.id}`;
    expect((await w.bob.api.put(settings, { muted_room_ids: [room] })).status).toBe(200);
    try {
      const root = await write(room, w.bob, "root by bob");
      const quiet = await write(room, w.ada, "a reply", root.id);
      expect(await itemsAbout(w.bob, quiet.id)).toEqual([]);
      const named = await write(room, w.ada, "@Bob Builder this one is for you", root.id);
      expect((await itemsAbout(w.bob, named.id)).map((i) => i.kind)).toEqual(["mention"]);
    } finally {
      await w.bob.api.put(settings, { muted_room_ids: [] });
    }
  });

  it("pushes the item as `inbox.item` to that person, and a deleted reply takes its items along", async () => {
    const room = await newRoom();
    const root = await write(room, w.owner, "root");
    const live = await listen(w.server.url, w.org.id, w.owner.token);
    try {
      const reply = await write(room, w.ada, "a reply to delete", root.id);
      const event = await live.next((e) => e.type === "inbox.item" && e.payload.message_id === reply.id);
      expect(event.payload).toEqual((await itemsAbout(w.owner, reply.id))[0]);
      await w.ada.api.delete(`${roomPath(w, room)}/messages/${reply.id}`);
      expect(await itemsAbout(w.owner, reply.id)).toEqual([]);
    } finally {
      live.close();
    }
  });

  it("tells of a reply only those who wrote before it, though later replies came before its item was written", async () => {
    const room = await newRoom();
    const root = await write(room, w.owner, "root");
    // Posted one right after the other: their items are written together, after both.
    const first = await write(room, w.ada, "ada first", root.id);
    const second = await write(room, cleo, "cleo second", root.id);
    expect(await itemsAbout(cleo, first.id)).toEqual([]);
    expect((await itemsAbout(w.owner, first.id)).map((i) => i.kind)).toEqual(["thread_reply"]);
    expect((await itemsAbout(w.ada, second.id)).map((i) => i.kind)).toEqual(["thread_reply"]);
  });

  it("says a reply of files alone by their names", async () => {
    const room = await newRoom();
    const root = await write(room, w.owner, "root");
    const res = await w.ada.api.post(`${roomPath(w, room)}/messages`, {
      thread_root_id: root.id,
      attachments: [{ url: "https://example.com/a/plan.pdf" }, { url: "https://example.com/b/shot.png" }],
    });
    expect(res.status).toBe(201);
    expect((await itemsAbout(w.owner, res.body.message.id))[0]?.summary).toBe("plan.pdf, shot.png");
  });
});

describe("unread counts and reading with threads", () => {
  const unreadIn = async (who: Person, roomId: string) =>
    (await unread(w, who)).find((r) => r.chat_room_id === roomId) ?? { unread: 0, last_read_message_id: null };

  it("does not count a reply that stays in its thread as unread in the room; one sent to the room too counts", async () => {
    const room = await newRoom();
    const root = await write(room, w.ada, "root");
    await readUpTo(w, w.bob, root.id, room);
    await write(room, w.ada, "only in the thread", root.id);
    expect((await unreadIn(w.bob, room)).unread).toBe(0);
    await write(room, w.ada, "in the room too", root.id, true);
    expect((await unreadIn(w.bob, room)).unread).toBe(1);
  });

  it("reads thread items up to a reply without moving the room's read position; reading the room leaves them", async () => {
    const room = await newRoom();
    const root = await write(room, w.bob, "root by bob");
    await readUpTo(w, w.bob, root.id, room);
    const first = await write(room, w.ada, "first reply", root.id);
    const second = await write(room, w.ada, "second reply", root.id);
    const later = await write(room, w.ada, "later, in the room");
    // Reading the room does not read what waits in the thread.
    expect((await readUpTo(w, w.bob, later.id, room)).status).toBe(204);
    expect((await itemsAbout(w.bob, first.id))[0]?.read_at).toBeNull();
    const live = await listen(w.server.url, w.org.id, w.bob.token);
    try {
      // Reading the thread up to its first reply reads that item alone.
      expect((await readUpTo(w, w.bob, first.id, room)).status).toBe(204);
      const read = await live.next((e) => e.type === "inbox.read");
      expect(read.payload).toEqual({ ids: [(await itemsAbout(w.bob, first.id))[0]?.id] });
      expect((await itemsAbout(w.bob, first.id))[0]?.read_at).not.toBeNull();
      expect((await itemsAbout(w.bob, second.id))[0]?.read_at).toBeNull();
      expect(live.events.some((e) => e.type === "chat.read" && e.payload.message_id === first.id)).toBe(false);
    } finally {
      live.close();
    }
    // The room's read position is still the later message.
    const post = await write(room, w.ada, "newest");
    const state = await unreadIn(w.bob, room);
    expect(state).toMatchObject({ unread: 1, last_read_message_id: later.id });
    expect(post.thread_root_id).toBeNull();
  });
});
