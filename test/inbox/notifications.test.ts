/**
 * Notification settings (contract §10): `GET|PUT /me/notifications?org_id=`; a muted room or space still counts
 * unread but makes no item except a direct mention.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, addStaff } from "../helpers/factories";
import { inbox, say, spacePath, startWorld, unread, type World } from "./world";

let w: World;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(() => w.server.stop());

const path = () => `/api/v1/me/notifications?org_id=${w.org.id}`;

describe("GET /api/v1/me/notifications", () => {
  it("answers the defaults until the person changes them: email digest, desktop all, nothing muted", async () => {
    const res = await w.bob.api.get(path());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ email: "digest", desktop: "all", muted_space_ids: [], muted_room_ids: [] });
  });

  it("answers 400 without org_id and 404 for an organization the caller is not in", async () => {
    expect((await w.bob.api.get("/api/v1/me/notifications")).body).toEqual({ error: "org_id: required" });
    const other = await w.bob.api.get(`/api/v1/me/notifications?org_id=${crypto.randomUUID()}`);
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ error: "organization not found" });
  });
});

describe("PUT /api/v1/me/notifications", () => {
  it("changes the fields given and keeps the others, for the caller alone", async () => {
    const carl = await addMember(w.org, ["Member"], "Carl Settings");
    const first = await carl.api.put(path(), { email: "off" });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ email: "off", desktop: "all", muted_space_ids: [], muted_room_ids: [] });
    const second = await carl.api.put(path(), { desktop: "mentions", muted_room_ids: [w.roomId] });
    expect(second.body).toEqual({ email: "off", desktop: "mentions", muted_space_ids: [], muted_room_ids: [w.roomId] });
    expect((await carl.api.get(path())).body).toEqual(second.body);
    expect((await w.bob.api.get(path())).body.email).toBe("digest");
    const cleared = await carl.api.put(path(), { muted_room_ids: [] });
    expect(cleared.body.muted_room_ids).toEqual([]);
  });

  it("answers 400 naming the field for a bad value", async () => {
    const bad = async (body: unknown) => {
      const res = await w.ada.api.put(path(), body);
      expect(res.status).toBe(400);
      return res.body.error;
    };
    expect(await bad({ email: "sometimes" })).toBe('email: must be one of "off", "digest", "all"');
    expect(await bad({ desktop: "loud" })).toBe('desktop: must be one of "all", "mentions", "none"');
    expect(await bad({ muted_space_ids: "x" })).toBe("muted_space_ids: must be an array");
    expect(await bad({ muted_room_ids: ["nope"] })).toBe("muted_room_ids[0]: must be a UUID");
    expect(await bad({ muted_space_ids: [crypto.randomUUID()] })).toBe("muted_space_ids: no such space");
    expect(await bad({ muted_room_ids: [crypto.randomUUID()] })).toBe("muted_room_ids: no such chat room");
  });

  it("never lets a private space show through: muting one the caller cannot see is like muting none that exists", async () => {
    const res = await w.bob.api.put(path(), { muted_space_ids: [w.privateId] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "muted_space_ids: no such space" });
    const room = await w.bob.api.put(path(), { muted_room_ids: [w.privateRoomId] });
    expect(room.body).toEqual({ error: "muted_room_ids: no such chat room" });
  });

  it("stops listing a muted private space once the person cannot see it", async () => {
    const dana = await addMember(w.org, ["Member"], "Dana Muted");
    await w.owner.api.post(`${spacePath(w, w.privateId)}/members`, { user_id: dana.id });
    expect((await dana.api.put(path(), { muted_space_ids: [w.privateId] })).body.muted_space_ids).toEqual([
      w.privateId,
    ]);
    await w.owner.api.delete(`${spacePath(w, w.privateId)}/members/${dana.id}`);
    expect((await dana.api.get(path())).body.muted_space_ids).toEqual([]);
  });
});

describe("muting", () => {
  it("a muted room still counts unread, makes no item, but a direct mention still is one", async () => {
    const erin = await addMember(w.org, ["Member"], "Erin Muter");
    const room = (await w.owner.api.post(`${spacePath(w)}/chat-rooms`, { name: "noisy" })).body.id;
    await erin.api.put(path(), { muted_room_ids: [room] });
    await say(w, w.owner, "chatter", room);
    const mention = await say(w, w.owner, "@Erin Muter this one is for you", room);
    expect((await unread(w, erin)).find((r) => r.chat_room_id === room)).toMatchObject({ unread: 2, mentions: 1 });
    const items = (await inbox(w, erin)).items;
    expect(items.map((i) => i.message_id)).toEqual([mention.id]);
  });

  it("a muted space makes no assignment or approval item, but mentions still arrive", async () => {
    const finn = await addMember(w.org, ["Member"], "Finn Quiet");
    await finn.api.put(path(), { muted_space_ids: [w.spaceId] });
    const board = await w.owner.api.get(`${spacePath(w)}/board`);
    const task = await w.owner.api.post(`${spacePath(w)}/tasks`, {
      title: "Quiet task",
      column_id: board.body.columns[0].id,
      assignee_user_id: finn.id,
    });
    const staff = await addStaff(w.org);
    await staff.api.post(`${spacePath(w)}/automations`, { name: "Quiet", kind: "scheduled" });
    const comment = await w.owner.api.post(`${spacePath(w)}/tasks/${task.body.id}/messages`, {
      content: "@Finn Quiet see this",
    });
    const items = (await inbox(w, finn)).items;
    expect(items.map((i) => [i.kind, i.message_id])).toEqual([["mention", comment.body.id]]);
    // Unmuted, the next one arrives.
    await finn.api.put(path(), { muted_space_ids: [] });
    const next = await w.owner.api.post(`${spacePath(w)}/tasks`, {
      title: "Loud task",
      column_id: board.body.columns[0].id,
      assignee_user_id: finn.id,
    });
    expect((await inbox(w, finn)).items[0]).toMatchObject({ kind: "assigned", task_id: next.body.id });
  });
});
