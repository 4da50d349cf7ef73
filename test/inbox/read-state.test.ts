/**
 * Read state and unread counts (contract §10): `POST .../chat-rooms/{roomId}/read {message_id}` moves a person's
 * read position forward only and tells their own sockets (`chat.read`); `GET /me/unread` counts what is unread
 * per room the caller can see, never their own messages nor what came before they joined.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { rmSync } from "node:fs";
import { addMember, setupOrg } from "../helpers/factories";
import { client, UUID } from "../helpers/http";
import { startTestServer, tempDir } from "../helpers/server";
import { listen } from "../helpers/sockets";
import { inbox, readUpTo, roomPath, say, spacePath, startWorld, unread, type World } from "./world";

let w: World;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(() => w.server.stop());

const roomOf = (rooms: any[], roomId: string) => rooms.find((r) => r.chat_room_id === roomId);

describe("GET /api/v1/me/unread", () => {
  it("counts others' messages per room, with the room's space and no read position yet", async () => {
    const room = (await w.owner.api.post(`${spacePath(w)}/chat-rooms`, { name: "counting" })).body.id;
    await say(w, w.owner, "one", room);
    await say(w, w.owner, "two", room);
    await say(w, w.ada, "mine", room);
    const entry = roomOf(await unread(w, w.ada), room);
    expect(Object.keys(entry).sort()).toEqual([
      "chat_room_id",
      "last_read_message_id",
      "mentions",
      "space_id",
      "unread",
    ]);
    expect(entry).toEqual({
      chat_room_id: room,
      space_id: w.spaceId,
      unread: 2,
      mentions: 0,
      last_read_message_id: null,
    });
  });

  it("never counts the caller's own messages, and lists no room where nothing is unread", async () => {
    const room = (await w.owner.api.post(`${spacePath(w)}/chat-rooms`, { name: "own" })).body.id;
    await say(w, w.bob, "talking to myself", room);
    await say(w, w.bob, "still me", room);
    expect(roomOf(await unread(w, w.bob), room)).toBeUndefined();
    expect(roomOf(await unread(w, w.ada), room).unread).toBe(2);
  });

  it("does not count messages from before the caller joined the organization", async () => {
    const room = (await w.owner.api.post(`${spacePath(w)}/chat-rooms`, { name: "history" })).body.id;
    await say(w, w.owner, "before anyone new");
    await say(w, w.owner, "old news", room);
    await Bun.sleep(5);
    const newcomer = await addMember(w.org, ["Member"], "Nora Newcomer");
    expect(roomOf(await unread(w, newcomer), room)).toBeUndefined();
    await say(w, w.owner, "welcome", room);
    expect(roomOf(await unread(w, newcomer), room).unread).toBe(1);
  });

  it("does not count deleted messages", async () => {
    const room = (await w.owner.api.post(`${spacePath(w)}/chat-rooms`, { name: "deleted" })).body.id;
    const gone = await say(w, w.owner, "oops", room);
    await say(w, w.owner, "kept", room);
    await w.owner.api.delete(`${roomPath(w, room)}/messages/${gone.id}`);
    expect(roomOf(await unread(w, w.ada), room).unread).toBe(1);
  });

  it("counts unread mentions of the caller in the room", async () => {
    const room = (await w.owner.api.post(`${spacePath(w)}/chat-rooms`, { name: "mentions" })).body.id;
    await say(w, w.owner, "@Ada Lovelace look", room);
    await say(w, w.owner, `and <@${w.ada.id}> again`, room);
    await say(w, w.owner, "no one", room);
    expect(roomOf(await unread(w, w.ada), room)).toMatchObject({ unread: 3, mentions: 2 });
    expect(roomOf(await unread(w, w.bob), room)).toMatchObject({ unread: 3, mentions: 0 });
  });

  it("never lists a room of a private space the caller cannot see", async () => {
    await say(w, w.owner, "secret plans", w.privateRoomId, w.privateId);
    expect(roomOf(await unread(w, w.bob), w.privateRoomId)).toBeUndefined();
    expect(roomOf(await unread(w, w.ada), w.privateRoomId)?.unread).toBeGreaterThan(0);
  });

  it("stops listing a private space's rooms once the caller leaves the space", async () => {
    const carl = await addMember(w.org, ["Member"], "Carl Private");
    await w.owner.api.post(`${spacePath(w, w.privateId)}/members`, { user_id: carl.id });
    await say(w, w.owner, "for carl too", w.privateRoomId, w.privateId);
    expect(roomOf(await unread(w, carl), w.privateRoomId)?.unread).toBeGreaterThan(0);
    await w.owner.api.delete(`${spacePath(w, w.privateId)}/members/${carl.id}`);
    expect(roomOf(await unread(w, carl), w.privateRoomId)).toBeUndefined();
  });

  it("answers 400 `org_id: required` without org_id and 404 for an organization of someone else", async () => {
    const missing = await w.ada.api.get("/api/v1/me/unread");
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: "org_id: required" });
    const other = await w.ada.api.get(`/api/v1/me/unread?org_id=${crypto.randomUUID()}`);
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ error: "organization not found" });
    expect((await client(w.server.url).get(`/api/v1/me/unread?org_id=${w.org.id}`)).status).toBe(401);
  });
});

describe("POST .../chat-rooms/{roomId}/read", () => {
  it("answers 204 and moves the read position: what came before no longer counts", async () => {
    const room = (await w.owner.api.post(`${spacePath(w)}/chat-rooms`, { name: "reading" })).body.id;
    const first = await say(w, w.owner, "first", room);
    const second = await say(w, w.owner, "second", room);
    await say(w, w.owner, "third", room);
    const res = await readUpTo(w, w.ada, second.id, room);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(roomOf(await unread(w, w.ada), room)).toEqual({
      chat_room_id: room,
      space_id: w.spaceId,
      unread: 1,
      mentions: 0,
      last_read_message_id: second.id,
    });
    // Only forward: an older message changes nothing.
    expect((await readUpTo(w, w.ada, first.id, room)).status).toBe(204);
    expect(roomOf(await unread(w, w.ada), room).last_read_message_id).toBe(second.id);
    // Another person's read state is their own.
    expect(roomOf(await unread(w, w.bob), room).unread).toBe(3);
  });

  it("reading up to the last message clears the room, and reads the mentions in it", async () => {
    const room = (await w.owner.api.post(`${spacePath(w)}/chat-rooms`, { name: "clearing" })).body.id;
    const mention = await say(w, w.owner, "@Ada Lovelace please", room);
    const last = await say(w, w.owner, "thanks", room);
    const before = (await inbox(w, w.ada)).items.find((i) => i.message_id === mention.id);
    expect(before.read_at).toBeNull();
    await readUpTo(w, w.ada, last.id, room);
    expect(roomOf(await unread(w, w.ada), room)).toBeUndefined();
    const after = (await inbox(w, w.ada)).items.find((i) => i.message_id === mention.id);
    expect(after.read_at).not.toBeNull();
  });

  it("pushes chat.read to every socket of the reader and to no one else", async () => {
    const room = (await w.owner.api.post(`${spacePath(w)}/chat-rooms`, { name: "devices" })).body.id;
    const message = await say(w, w.owner, "read me", room);
    const tab = await listen(w.server.url, w.org.id, w.ada.token);
    const phone = await listen(w.server.url, w.org.id, w.ada.token);
    const other = await listen(w.server.url, w.org.id, w.bob.token);
    const owner = await listen(w.server.url, w.org.id, w.owner.token);
    try {
      expect((await readUpTo(w, w.ada, message.id, room)).status).toBe(204);
      const expected = {
        type: "chat.read",
        organization_id: w.org.id,
        space_id: w.spaceId,
        payload: { chat_room_id: room, message_id: message.id },
      };
      expect(await tab.next((e) => e.type === "chat.read")).toEqual(expected);
      expect(await phone.next((e) => e.type === "chat.read")).toEqual(expected);
      // A marker both other sockets hear after the read, so their silence is not a race.
      await say(w, w.owner, "marker", room);
      await other.next((e) => e.type === "chat.message.created" && e.payload.message.content === "marker");
      await owner.next((e) => e.type === "chat.message.created" && e.payload.message.content === "marker");
      expect(other.events.some((e) => e.type === "chat.read")).toBe(false);
      expect(owner.events.some((e) => e.type === "chat.read")).toBe(false);
      // Reading the same message again changes nothing, and says nothing.
      await readUpTo(w, w.ada, message.id, room);
      await say(w, w.owner, "marker 2", room);
      await tab.next((e) => e.type === "chat.message.created" && e.payload.message.content === "marker 2");
      expect(tab.events.filter((e) => e.type === "chat.read").length).toBe(1);
    } finally {
      for (const s of [tab, phone, other, owner]) s.close();
    }
  });

  it("answers 404 for a room of another space, an unknown message or a message of another room", async () => {
    const room = (await w.owner.api.post(`${spacePath(w)}/chat-rooms`, { name: "elsewhere" })).body.id;
    const there = await say(w, w.owner, "there", room);
    const wrongRoom = await readUpTo(w, w.ada, there.id, w.roomId);
    expect(wrongRoom.status).toBe(404);
    expect(wrongRoom.body).toEqual({ error: "message not found" });
    const unknown = await readUpTo(w, w.ada, crypto.randomUUID(), room);
    expect(unknown.body).toEqual({ error: "message not found" });
    const noRoom = await readUpTo(w, w.ada, there.id, crypto.randomUUID());
    expect(noRoom.status).toBe(404);
    expect(noRoom.body).toEqual({ error: "chat room not found" });
    const roomOfOtherSpace = await readUpTo(w, w.ada, there.id, room, w.privateId);
    expect(roomOfOtherSpace.body).toEqual({ error: "chat room not found" });
  });

  it("answers 404 `space not found` for a private space the caller cannot see, 400 without message_id", async () => {
    const secret = await say(w, w.owner, "hush", w.privateRoomId, w.privateId);
    const hidden = await readUpTo(w, w.bob, secret.id, w.privateRoomId, w.privateId);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ error: "space not found" });
    const missing = await w.ada.api.post(`${roomPath(w)}/read`, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: "message_id: required" });
  });

  it("lets a Viewer (no chat.write) mark what they read", async () => {
    const viewer = await addMember(w.org, ["Viewer"], "Vic Viewer");
    const message = await say(w, w.owner, "for viewers too");
    expect((await readUpTo(w, viewer, message.id)).status).toBe(204);
    expect(roomOf(await unread(w, viewer), w.roomId)).toBeUndefined();
  });
});

describe("a restart", () => {
  it("loses no read state", async () => {
    const dataDir = tempDir();
    const server = await startTestServer({ dataDir });
    try {
      const org = await setupOrg(server);
      const ada = await addMember(org, ["Member"], "Ada Again");
      const spaceId = (await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Kept" })).body.id;
      const rooms = await org.owner.api.get(`/api/v1/organizations/${org.id}/spaces/${spaceId}/chat-rooms`);
      const room = rooms.body.chat_rooms[0].id;
      const path = `/api/v1/organizations/${org.id}/spaces/${spaceId}/chat-rooms/${room}`;
      const read = (await org.owner.api.post(`${path}/messages`, { content: "read" })).body.message;
      await org.owner.api.post(`${path}/messages`, { content: "unread" });
      expect((await ada.api.post(`${path}/read`, { message_id: read.id })).status).toBe(204);
      await server.stop();
      const again = await startTestServer({ dataDir });
      try {
        const login = await client(again.url).post("/api/v1/auth/login", { email: ada.email, password: ada.password });
        const res = await client(again.url, login.body.access_token).get(`/api/v1/me/unread?org_id=${org.id}`);
        expect(res.body.rooms).toEqual([
          { chat_room_id: room, space_id: spaceId, unread: 1, mentions: 0, last_read_message_id: read.id },
        ]);
        expect(res.body.rooms[0].last_read_message_id).toMatch(UUID);
      } finally {
        await again.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
