/**
 * `inbox.read` (an extension of contract §10): items read by `POST /me/inbox/read` or by reading a room are told
 * to every socket of their person, and to no one else's, so their other tabs and devices clear at once.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { type Listener, listen } from "../helpers/sockets";
import { inbox, readUpTo, say, spacePath, startWorld, type World } from "./world";

let w: World;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(() => w.server.stop());

/** Ada's two devices, and the sockets of two others. */
async function sockets(): Promise<{ tab: Listener; phone: Listener; others: Listener[]; close(): void }> {
  const tab = await listen(w.server.url, w.org.id, w.ada.token);
  const phone = await listen(w.server.url, w.org.id, w.ada.token);
  const others = [
    await listen(w.server.url, w.org.id, w.bob.token),
    await listen(w.server.url, w.org.id, w.owner.token),
  ];
  const close = () => {
    for (const s of [tab, phone, ...others]) s.close();
  };
  return { tab, phone, others, close };
}

/** Waits for a marker message on `listeners`, so that an event they did not hear before it is not a race. */
async function marker(listeners: Listener[], text: string, roomId = w.roomId): Promise<void> {
  await say(w, w.owner, text, roomId);
  for (const l of listeners) {
    await l.next((e) => e.type === "chat.message.created" && e.payload.message.content === text);
  }
}

const readsOf = (l: Listener) => l.events.filter((e) => e.type === "inbox.read");

async function markRead(body: Record<string, unknown>) {
  return w.ada.api.post("/api/v1/me/inbox/read", { org_id: w.org.id, ...body });
}

describe("inbox.read after POST /api/v1/me/inbox/read", () => {
  it("tells every socket of the reader which of the given items were unread, and no one else", async () => {
    await markRead({ all: true });
    await say(w, w.owner, "@Ada Lovelace first");
    await say(w, w.owner, "@Ada Lovelace second");
    await say(w, w.owner, "@Bob Builder yours");
    const [second, first] = (await inbox(w, w.ada, "&unread_only=true")).items;
    const bobs = (await inbox(w, w.bob, "&unread_only=true")).items[0];
    expect((await markRead({ ids: [first.id] })).status).toBe(204);

    const s = await sockets();
    try {
      // Given: an item read already, one unread, one of Bob's and an unknown id; only the unread one is told.
      expect((await markRead({ ids: [first.id, second.id, bobs.id, crypto.randomUUID()] })).status).toBe(204);
      const expected = { type: "inbox.read", organization_id: w.org.id, space_id: null, payload: { ids: [second.id] } };
      expect(await s.tab.next((e) => e.type === "inbox.read")).toEqual(expected);
      expect(await s.phone.next((e) => e.type === "inbox.read")).toEqual(expected);
      await marker([...s.others, s.tab], "marker one");
      for (const other of s.others) expect(readsOf(other)).toEqual([]);
      expect((await inbox(w, w.bob, "&unread_only=true")).items.map((i) => i.id)).toContain(bobs.id);

      // Nothing left to read among those: nothing is told.
      expect((await markRead({ ids: [first.id, second.id] })).status).toBe(204);
      await marker([s.tab], "marker two");
      expect(readsOf(s.tab).length).toBe(1);
    } finally {
      s.close();
    }
  });

  it("says `all` when everything is marked read, and nothing when nothing was unread", async () => {
    await say(w, w.owner, "@Ada Lovelace one more");
    const s = await sockets();
    try {
      expect((await markRead({ all: true })).status).toBe(204);
      const expected = { type: "inbox.read", organization_id: w.org.id, space_id: null, payload: { all: true } };
      expect(await s.tab.next((e) => e.type === "inbox.read")).toEqual(expected);
      expect(await s.phone.next((e) => e.type === "inbox.read")).toEqual(expected);
      expect((await markRead({ all: true })).status).toBe(204);
      await marker([...s.others, s.tab, s.phone], "marker three");
      expect(readsOf(s.tab).length).toBe(1);
      expect(readsOf(s.phone).length).toBe(1);
      for (const other of s.others) expect(readsOf(other)).toEqual([]);
    } finally {
      s.close();
    }
  });
});

describe("inbox.read after reading a room", () => {
  it("names the room's mention items it read, to the reader's sockets only; a room without them says nothing", async () => {
    const room = (await w.owner.api.post(`${spacePath(w)}/chat-rooms`, { name: "read-with-room" })).body.id;
    await w.ada.api.post("/api/v1/me/inbox/read", { org_id: w.org.id, all: true });
    await say(w, w.owner, "@Ada Lovelace in the room", room);
    const last = await say(w, w.owner, `<@${w.ada.id}> and again`, room);
    const mentions = (await inbox(w, w.ada, "&unread_only=true")).items.filter((i) => i.chat_room_id === room);
    expect(mentions.length).toBe(2);

    const s = await sockets();
    try {
      expect((await readUpTo(w, w.ada, last.id, room)).status).toBe(204);
      for (const mine of [s.tab, s.phone]) {
        const event = await mine.next((e) => e.type === "inbox.read");
        expect(event.space_id).toBe(w.spaceId);
        expect([...event.payload.ids].sort()).toEqual(mentions.map((i) => i.id).sort());
        // After the room's own `chat.read`, in the order they were written.
        const types = mine.events.map((e) => e.type).filter((t) => t === "chat.read" || t === "inbox.read");
        expect(types).toEqual(["chat.read", "inbox.read"]);
      }
      const quiet = await say(w, w.owner, "nothing for Ada here", room);
      await readUpTo(w, w.ada, quiet.id, room);
      await s.tab.next((e) => e.type === "chat.read" && e.payload.message_id === quiet.id);
      await marker([...s.others, s.tab], "marker four", room);
      expect(readsOf(s.tab).length).toBe(1);
      for (const other of s.others) expect(readsOf(other)).toEqual([]);
    } finally {
      s.close();
    }
  });
});
