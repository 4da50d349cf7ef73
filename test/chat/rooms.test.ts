import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { rmSync } from "node:fs";
import { addMember, type Org, type Person, setupOrg } from "../helpers/factories";
import { TIMESTAMP, UUID } from "../helpers/http";
import { openDataDirDatabase } from "../helpers/postgres";
import { spawnServer, startTestServer, type TestServer, tempDir } from "../helpers/server";
import { eventually } from "../helpers/sockets";

let server: TestServer;
let org: Org;
let member: Person;
let viewer: Person;
let spaceId: string;
let rooms: string;

const ROOM_KEYS = ["created_at", "created_by", "id", "name", "space_id"];
const UNKNOWN = "01a1fdb9-0000-7000-8000-000000000000";

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server);
  member = await addMember(org, ["Member"], "Mia Member");
  viewer = await addMember(org, ["Viewer"], "Vic Viewer");
  const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Launch" });
  if (space.status !== 201) throw new Error(`space create failed: ${space.status} ${space.text}`);
  spaceId = space.body.id;
  rooms = `/api/v1/organizations/${org.id}/spaces/${spaceId}/chat-rooms`;
});
afterAll(() => server.stop());

/** Counts rows straight from the server's database (read-only), to see what a delete really removed. */
function countRows(table: string, where: string, ...params: string[]): number {
  const db = openDataDirDatabase(server.dataDir, { readonly: true });
  try {
    const row = db.query(`SELECT count(*) AS n FROM ${table} WHERE ${where}`).get(...params) as { n: number };
    return row.n;
  } finally {
    db.close();
  }
}

describe("GET .../spaces/{spaceId}/chat-rooms", () => {
  it("a new space has exactly one room, general", async () => {
    const other = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Fresh" });
    const res = await viewer.api.get(`/api/v1/organizations/${org.id}/spaces/${other.body.id}/chat-rooms`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["chat_rooms"]);
    expect(res.body.chat_rooms).toHaveLength(1);
    const general = res.body.chat_rooms[0];
    expect(Object.keys(general).sort()).toEqual(ROOM_KEYS);
    expect(general).toMatchObject({ name: "general", space_id: other.body.id });
    expect(general.id).toMatch(UUID);
    expect(general.created_at).toMatch(TIMESTAMP);
  });

  it("lists rooms by creation, general first, to any member (a Viewer included)", async () => {
    const created: string[] = [];
    for (const name of ["zulu", "Alpha", "mike"]) {
      const res = await member.api.post(rooms, { name });
      expect(res.status).toBe(201);
      created.push(res.body.id);
    }
    const res = await viewer.api.get(rooms);
    expect(res.status).toBe(200);
    const names = res.body.chat_rooms.map((r: { name: string }) => r.name);
    expect(names[0]).toBe("general");
    const ids = res.body.chat_rooms.map((r: { id: string }) => r.id);
    const positions = created.map((id) => ids.indexOf(id));
    expect(positions.every((p) => p > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    const stamps = res.body.chat_rooms.map((r: { created_at: string }) => r.created_at);
    expect([...stamps].sort()).toEqual(stamps);
  });

  it("answers 404 space not found for an unknown space", async () => {
    const res = await member.api.get(`/api/v1/organizations/${org.id}/spaces/${UNKNOWN}/chat-rooms`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "space not found" });
  });

  it("answers 404 space not found for a private space the caller is not a member of", async () => {
    const hidden = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, {
      name: "Board room",
      private: true,
    });
    expect(hidden.status).toBe(201);
    const path = `/api/v1/organizations/${org.id}/spaces/${hidden.body.id}/chat-rooms`;
    const general = (await org.owner.api.get(path)).body.chat_rooms[0];
    const answers = [
      await member.api.get(path),
      await member.api.post(path, { name: "sneaky" }),
      await member.api.get(`${path}/${general.id}/messages`),
      await member.api.post(`${path}/${general.id}/messages`, { content: "hi" }),
      await member.api.delete(`${path}/${general.id}`),
    ];
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "space not found" });
    }
  });

  it("needs a token", async () => {
    const res = await org.anon.get(rooms);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
  });
});

describe("POST .../spaces/{spaceId}/chat-rooms", () => {
  it("answers 201 with the room unwrapped, its name trimmed", async () => {
    const res = await member.api.post(rooms, { name: "  Design Review \t" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(ROOM_KEYS);
    expect(res.body).toMatchObject({ name: "Design Review", space_id: spaceId });
    expect(res.body.id).toMatch(UUID);
    expect(res.body.created_at).toMatch(TIMESTAMP);
    const list = await member.api.get(rooms);
    expect(list.body.chat_rooms.at(-1)).toEqual(res.body);
  });

  it("refuses a name already used in the space, ignoring case: 409 room name already exists", async () => {
    const first = await member.api.post(rooms, { name: "Standup" });
    expect(first.status).toBe(201);
    for (const name of ["Standup", "STANDUP", "  standup  ", "General"]) {
      const res = await member.api.post(rooms, { name });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: "room name already exists" });
    }
  });

  it("compares names ignoring case beyond ASCII: Café and CAFÉ are the same name", async () => {
    const first = await member.api.post(rooms, { name: "Café" });
    expect(first.status).toBe(201);
    const res = await member.api.post(rooms, { name: "CAFÉ" });
    // Ignoring case means in any script, not only ASCII (Café/CAFÉ, Über/über).
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "room name already exists" });
  });

  it("allows the same name in another space", async () => {
    const other = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Other" });
    const res = await member.api.post(`/api/v1/organizations/${org.id}/spaces/${other.body.id}/chat-rooms`, {
      name: "Standup",
    });
    expect(res.status).toBe(201);
  });

  it("refuses a blank or missing name with a 400 that names the field", async () => {
    for (const name of ["", "   ", "\t\n"]) {
      const res = await member.api.post(rooms, { name });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "name: must not be empty" });
    }
    const missing = await member.api.post(rooms, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: "name: required" });
  });

  it("refuses a name over 80 characters and accepts one of exactly 80, emoji counting one each", async () => {
    const long = await member.api.post(rooms, { name: "x".repeat(81) });
    expect(long.status).toBe(400);
    expect(long.body.error).toStartWith("name: ");
    const fits = await member.api.post(rooms, { name: "y".repeat(80) });
    expect(fits.status).toBe(201);
    expect(fits.body.name).toBe("y".repeat(80));
    expect((await member.api.post(rooms, { name: "🎉".repeat(80) })).status).toBe(201);
    expect((await member.api.post(rooms, { name: "🎈".repeat(81) })).status).toBe(400);
  });

  it("refuses a name with a control character: names are one line", async () => {
    for (const name of ["a\nb", "tab\there", "bell\u0007", "news\u202egnp.js", "two\u2028lines"]) {
      const res = await member.api.post(rooms, { name });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "name: must not contain control characters" });
    }
  });

  it("refuses a name that would show as nothing, and keeps invisible characters inside a visible name", async () => {
    for (const name of ["\u200b", "\u200d\u200c", "\u2800 \u3164", "\ufe0f"]) {
      const res = await member.api.post(rooms, { name });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "name: must contain a visible character" });
    }
    const joined = await member.api.post(rooms, { name: "👩\u200d💻 devs" });
    expect(joined.status).toBe(201);
    expect(joined.body.name).toBe("👩\u200d💻 devs");
  });

  it("needs chat.write: a Viewer gets 403 missing permission: chat.write", async () => {
    const res = await viewer.api.post(rooms, { name: "Viewers" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: chat.write" });
    const list = await viewer.api.get(rooms);
    expect(list.body.chat_rooms.some((r: { name: string }) => r.name === "Viewers")).toBe(false);
  });
});

describe("DELETE .../chat-rooms/{roomId}", () => {
  it("is for the room's creator, a space owner or org.manage: another member with chat.write gets 403, the room stays", async () => {
    const other = await addMember(org, ["Member"], "Otto Other");
    const mine = (await member.api.post(rooms, { name: "Mine to delete" })).body;
    const refused = await other.api.delete(`${rooms}/${mine.id}`);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: "only the room's creator or a space owner can delete this room" });
    expect((await other.api.get(rooms)).body.chat_rooms.some((r: { id: string }) => r.id === mine.id)).toBe(true);
    // The general room was made with the space by its creator (its owner): a member cannot delete it.
    const general = (await other.api.get(rooms)).body.chat_rooms.find((r: { name: string }) => r.name === "general");
    expect((await other.api.delete(`${rooms}/${general.id}`)).status).toBe(403);
    // The organization's owner (org.manage) may, and the creator may.
    const theirs = (await other.api.post(rooms, { name: "Other's room" })).body;
    expect((await org.owner.api.delete(`${rooms}/${theirs.id}`)).status).toBe(204);
    expect((await member.api.delete(`${rooms}/${mine.id}`)).status).toBe(204);
  });

  it("answers 204 and removes the room with its messages, reactions and attachments", async () => {
    const room = (await member.api.post(rooms, { name: "Doomed" })).body;
    const messages = `${rooms}/${room.id}/messages`;
    const posted = await member.api.post(messages, {
      content: "with a file",
      attachments: [{ url: "https://cdn.example.com/spec.pdf" }],
    });
    expect(posted.status).toBe(201);
    const second = await member.api.post(messages, { content: "second" });
    const messageId = posted.body.message.id;
    expect((await member.api.post(`${messages}/${messageId}/reactions`, { emoji: "👍" })).status).toBe(201);
    expect((await org.owner.api.post(`${messages}/${second.body.message.id}/reactions`, { emoji: "🎉" })).status).toBe(
      201,
    );
    expect(countRows("chat_messages", "room_id = ?", room.id)).toBe(2);
    expect(countRows("chat_reactions", "message_id IN (?, ?)", messageId, second.body.message.id)).toBe(2);
    expect(countRows("chat_attachments", "message_id = ?", messageId)).toBe(1);

    const res = await member.api.delete(`${rooms}/${room.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");

    // The rows go in the background, a batch at a time.
    await eventually(() => countRows("chat_rooms", "id = ?", room.id) === 0, "the room's row to be removed");
    expect(countRows("chat_messages", "room_id = ?", room.id)).toBe(0);
    expect(countRows("chat_reactions", "message_id IN (?, ?)", messageId, second.body.message.id)).toBe(0);
    expect(countRows("chat_attachments", "message_id = ?", messageId)).toBe(0);

    const list = await member.api.get(rooms);
    expect(list.body.chat_rooms.some((r: { id: string }) => r.id === room.id)).toBe(false);
  });

  it("after deletion every route of the room answers 404 chat room not found", async () => {
    const room = (await member.api.post(rooms, { name: "Gone soon" })).body;
    const base = `${rooms}/${room.id}`;
    const msg = (await member.api.post(`${base}/messages`, { content: "hello" })).body.message;
    expect((await member.api.delete(base)).status).toBe(204);

    const answers = [
      await member.api.get(`${base}/messages`),
      await member.api.post(`${base}/messages`, { content: "anyone?" }),
      await member.api.patch(`${base}/messages/${msg.id}`, { content: "edit" }),
      await member.api.delete(`${base}/messages/${msg.id}`),
      await member.api.post(`${base}/messages/${msg.id}/reactions`, { emoji: "👍" }),
      await member.api.delete(`${base}/messages/${msg.id}/reactions?emoji=${encodeURIComponent("👍")}`),
      await member.api.delete(base),
    ];
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "chat room not found" });
    }
  });

  it("answers 404 chat room not found for an unknown or malformed id", async () => {
    for (const id of [UNKNOWN, "not-a-uuid"]) {
      const res = await member.api.delete(`${rooms}/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "chat room not found" });
    }
  });

  it("answers 404 chat room not found for a room of another space", async () => {
    const other = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Elsewhere" });
    const otherRooms = await member.api.get(`/api/v1/organizations/${org.id}/spaces/${other.body.id}/chat-rooms`);
    const foreign = otherRooms.body.chat_rooms[0].id;
    const res = await member.api.delete(`${rooms}/${foreign}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "chat room not found" });
    const still = await member.api.get(`/api/v1/organizations/${org.id}/spaces/${other.body.id}/chat-rooms`);
    expect(still.body.chat_rooms.map((r: { id: string }) => r.id)).toContain(foreign);
  });

  it("needs chat.write: a Viewer gets 403 missing permission: chat.write and the room stays", async () => {
    const room = (await member.api.post(rooms, { name: "Protected" })).body;
    const res = await viewer.api.delete(`${rooms}/${room.id}`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: chat.write" });
    const list = await viewer.api.get(rooms);
    expect(list.body.chat_rooms.map((r: { id: string }) => r.id)).toContain(room.id);
  });

  it("frees the name: a room of the same name can be created again", async () => {
    const room = (await member.api.post(rooms, { name: "Phoenix" })).body;
    expect((await member.api.delete(`${rooms}/${room.id}`)).status).toBe(204);
    const again = await member.api.post(rooms, { name: "phoenix" });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(room.id);
  });

  it("takes a big room away at once and removes its rows in batches, serving requests meanwhile", async () => {
    const room = (await member.api.post(rooms, { name: "Archive" })).body;
    const messages = `${rooms}/${room.id}/messages`;
    for (let i = 0; i < 2500; i += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, j) => member.api.post(messages, { content: `m${i + j}` })));
    }
    expect(countRows("chat_messages", "room_id = ?", room.id)).toBe(2500);
    expect((await member.api.delete(`${rooms}/${room.id}`)).status).toBe(204);
    // Gone for every route, and its name free, before its rows are.
    const [list, page, renamed] = await Promise.all([
      member.api.get(rooms),
      member.api.get(messages),
      member.api.post(rooms, { name: "archive" }),
    ]);
    expect(list.body.chat_rooms.map((r: { id: string }) => r.id)).not.toContain(room.id);
    expect(page.status).toBe(404);
    expect(renamed.status).toBe(201);
    await eventually(() => countRows("chat_rooms", "id = ?", room.id) === 0, "the purge to finish", 15_000);
    expect(countRows("chat_messages", "room_id = ?", room.id)).toBe(0);
  });
});

describe("a room deleted just before a stop", () => {
  it("has its rows removed once the server is back", async () => {
    const dataDir = tempDir("tandem-purge-");
    const first = await spawnServer({ dataDir });
    const setupToken = new URL(first.setupUrl as string).searchParams.get("token");
    const owner = await setupOrg({ url: first.url, setupToken } as TestServer);
    const space = await owner.owner.api.post(`/api/v1/organizations/${owner.id}/spaces`, { name: "S" });
    const base = `/api/v1/organizations/${owner.id}/spaces/${space.body.id}/chat-rooms`;
    const room = (await owner.owner.api.post(base, { name: "Left" })).body;
    for (let i = 0; i < 5; i++) await owner.owner.api.post(`${base}/${room.id}/messages`, { content: `m${i}` });
    await first.stop();
    // As the delete left it when the stop came before its purge.
    const db = openDataDirDatabase(dataDir);
    db.query("UPDATE chat_rooms SET deleted_at = ? WHERE id = ?").run(Date.now(), room.id);
    db.close();
    const second = await spawnServer({ dataDir });
    try {
      const count = () => {
        const check = openDataDirDatabase(dataDir, { readonly: true });
        try {
          return (
            check.query("SELECT count(*) AS n FROM chat_messages WHERE room_id = ?").get(room.id) as { n: number }
          ).n;
        } finally {
          check.close();
        }
      };
      await eventually(() => count() === 0, "the purge to go on");
    } finally {
      await second.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
