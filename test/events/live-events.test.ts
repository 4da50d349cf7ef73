/**
 * The live-events socket of an organization (contract §5 and §7 "Live-event payloads", docs/api.md "Real time" →
 * "Live events"): `GET /api/v1/organizations/{orgId}/ws?token=…` pushes `{type, organization_id, space_id,
 * payload}` for every change in a space the caller can see, the payload being exactly what the REST route answered
 * for the same thing.
 *
 * Every check runs against the real server over real WebSockets. Waits go through `next(match)`; where a test must
 * prove that something did NOT arrive, it first waits for a later event that the same socket must receive (an
 * ordering barrier: a socket's frames arrive in the order they were sent).
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHash } from "node:crypto";
import { addMember, addStaff, type Org, type Person, setupOrg } from "../helpers/factories";
import { TIMESTAMP, UUID } from "../helpers/http";
import { startTestServer, type TestServer } from "../helpers/server";
import {
  collabBase,
  eventually,
  type Listener,
  type LiveEvent,
  listen,
  openEditor,
  openRaw,
  type RawSocket,
  refusedUpgrade,
} from "../helpers/sockets";

const ENVELOPE_KEYS = ["organization_id", "payload", "space_id", "type"];
const NODE_KEYS = [
  "checksum_sha256",
  "created_at",
  "created_by",
  "deleted_at",
  "editable",
  "id",
  "kind",
  "mime_type",
  "name",
  "parent_id",
  "size_bytes",
  "space_id",
  "updated_at",
];
/** A well-formed id of no organization. */
const NO_ORG = "01a1fdb9-0000-7000-8000-0000000000aa";

let server: TestServer;
let org: Org;
let member: Person;
let viewer: Person;
let staff: Awaited<ReturnType<typeof addStaff>>;
/** The public space most events happen in, and its board's columns. */
let spaceId: string;
let columns: string[];
/** Listeners opened in beforeAll, kept open for the whole file. */
let ownerLive: Listener;
let memberLive: Listener;
const listeners: Listener[] = [];
/** Every token that went over a socket, for the log check at the end. */
const tokens: string[] = [];

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const orgPath = () => `/api/v1/organizations/${org.id}`;
const spacePath = (id = spaceId) => `${orgPath()}/spaces/${id}`;
const wsUrl = (query: string, orgId = org.id) =>
  `${server.url.replace(/^http/, "ws")}/api/v1/organizations/${orgId}/ws${query}`;

let counter = 0;
/** A name no other test uses. */
const unique = (name: string) => `${name} ${++counter}`;

/** A live-events listener closed after the file; its token is remembered for the log check. */
async function live(token: string): Promise<Listener> {
  const listener = await listen(server.url, org.id, token);
  listeners.push(listener);
  tokens.push(token);
  return listener;
}

/** Matches the event of `type` whose payload has id `id`. */
const is = (type: string, id: string) => (e: LiveEvent) => e.type === type && e.payload?.id === id;

/** The events of a listener about one thing (payload id or message id), in arrival order. */
const about = (listener: Listener, id: string) =>
  listener.events.filter((e) => e.payload?.id === id || e.payload?.message_id === id || e.payload?.message?.id === id);

/** Whether the socket is still open: `closed` has not settled. */
async function isOpen(listener: Listener): Promise<boolean> {
  return (await Promise.race([listener.closed.then(() => false), Bun.sleep(0).then(() => true)])) as boolean;
}

/**
 * An ordering barrier: creates a chat room in the public space and waits until every listener has its
 * `chat.room.created`. Anything sent to them before it has arrived by then.
 */
async function barrier(...targets: Listener[]): Promise<void> {
  const res = await org.owner.api.post(`${spacePath()}/chat-rooms`, { name: unique("barrier") });
  expect(res.status).toBe(201);
  for (const target of targets) await target.next(is("chat.room.created", res.body.id));
}

/** Asserts the full envelope of an event of the public space. */
function expectEvent(event: LiveEvent, type: string, payload: unknown, space = spaceId): void {
  expect(Object.keys(event).sort()).toEqual(ENVELOPE_KEYS);
  expect(event).toStrictEqual({ type, organization_id: org.id, space_id: space, payload });
}

/** Bun's WebSocket client, whose second argument may carry headers (the DOM typing knows only protocols). */
const BunWebSocket = WebSocket as unknown as new (url: string, options?: Bun.WebSocketOptions) => WebSocket;

/** A raw socket that keeps every frame as received (text frames as strings). */
async function openFrames(url: string, init?: Bun.WebSocketOptions) {
  const ws = new BunWebSocket(url, init);
  const frames: (string | ArrayBuffer)[] = [];
  ws.binaryType = "arraybuffer";
  ws.onmessage = (event) => frames.push(event.data as string | ArrayBuffer);
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.addEventListener("close", (event) => resolve({ code: event.code, reason: event.reason }));
  });
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error("socket failed to open"));
  });
  return { ws, frames, closed };
}

// Fixtures through REST.

async function newTask(title = unique("task"), api = member.api, space = spaceId) {
  const column = space === spaceId ? columns[0] : (await api.get(`${spacePath(space)}/board`)).body.columns[0].id;
  const res = await api.post(`${spacePath(space)}/tasks`, { title, column_id: column });
  expect(res.status).toBe(201);
  return res.body;
}

async function newRoom(api = member.api, space = spaceId) {
  const res = await api.post(`${spacePath(space)}/chat-rooms`, { name: unique("room") });
  expect(res.status).toBe(201);
  return res.body as { id: string; space_id: string; name: string; created_at: string };
}

async function postMessage(roomId: string, body: Record<string, unknown>, api = member.api) {
  const res = await api.post(`${spacePath()}/chat-rooms/${roomId}/messages`, body);
  expect(res.status).toBe(201);
  return res.body;
}

async function newText(content = "", parentId: string | null = null, space = spaceId) {
  const res = await member.api.post(`${spacePath(space)}/files/text`, {
    name: unique("note.md"),
    content,
    parent_id: parentId,
  });
  expect(res.status).toBe(201);
  return res.body.node;
}

async function newFolder() {
  const res = await member.api.post(`${spacePath()}/files/folders`, { name: unique("folder") });
  expect(res.status).toBe(201);
  return res.body.node;
}

async function putText(fileId: string, text: string) {
  const res = await member.api.put(`${spacePath()}/files/${fileId}/content`, undefined, {
    raw: text,
    contentType: "text/plain",
  });
  expect(res.status).toBe(200);
  return res.body.node;
}

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server);
  member = await addMember(org, ["Member"], "Mia Member");
  viewer = await addMember(org, ["Viewer"], "Vic Viewer");
  staff = await addStaff(org);
  const space = await org.owner.api.post(`${orgPath()}/spaces`, { name: "Launch" });
  if (space.status !== 201) throw new Error(`space create failed: ${space.status} ${space.text}`);
  spaceId = space.body.id;
  const board = await org.owner.api.get(`${spacePath()}/board`);
  columns = board.body.columns.map((c: { id: string }) => c.id);
  ownerLive = await live(org.owner.token);
  memberLive = await live(member.token);
});
afterAll(async () => {
  for (const listener of listeners) listener.close();
  await server.stop();
});

describe("the envelope", () => {
  it("sends each change as one JSON text frame with exactly type, organization_id, space_id and payload", async () => {
    const raw = await openFrames(wsUrl(`?token=${member.token}`));
    tokens.push(member.token);
    const room = await newRoom();
    await eventually(() => raw.frames.some((f) => typeof f !== "string" || f.includes(room.id)), "the room's frame");
    raw.ws.close();
    const frame = raw.frames.find((f) => typeof f !== "string" || f.includes(room.id));
    expect(typeof frame).toBe("string");
    const event = JSON.parse(frame as string);
    expect(Object.keys(event).sort()).toEqual(ENVELOPE_KEYS);
    expect(event).toStrictEqual({
      type: "chat.room.created",
      organization_id: org.id,
      space_id: spaceId,
      payload: room,
    });
  });

  it("ignores what the client sends and keeps delivering", async () => {
    const raw = await openFrames(wsUrl(`?token=${member.token}`));
    raw.ws.send("hello?");
    raw.ws.send(JSON.stringify({ type: "subscribe", space_id: spaceId }));
    raw.ws.send(new Uint8Array([0, 1, 2, 255]));
    const room = await newRoom();
    await eventually(
      () => raw.frames.some((f) => typeof f === "string" && JSON.parse(f).payload?.id === room.id),
      "the room's event",
    );
    expect(raw.frames.every((f) => typeof f === "string")).toBe(true);
    const state = await Promise.race([raw.closed, Bun.sleep(0).then(() => "open")]);
    expect(state).toBe("open");
    raw.ws.close();
  });

  it("accepts the token in an Authorization header instead of ?token=", async () => {
    const raw = await openFrames(wsUrl(""), { headers: { authorization: `Bearer ${member.token}` } });
    const room = await newRoom();
    await eventually(() => raw.frames.some((f) => typeof f === "string" && f.includes(room.id)), "the room's frame");
    const frame = raw.frames.find((f) => typeof f === "string" && f.includes(room.id)) as string;
    expect(JSON.parse(frame)).toStrictEqual({
      type: "chat.room.created",
      organization_id: org.id,
      space_id: spaceId,
      payload: room,
    });
    raw.ws.close();
  });
});

describe("task events", () => {
  it("sends task.created with the task as POST answers it", async () => {
    const task = await newTask("Write the launch post");
    expectEvent(await ownerLive.next(is("task.created", task.id)), "task.created", task);
  });

  it("sends task.updated with the task as PATCH answers it", async () => {
    const task = await newTask();
    const res = await member.api.patch(`${spacePath()}/tasks/${task.id}`, {
      title: "Renamed",
      description: "with details",
      due_at: "2030-01-02T03:04:05.678Z",
    });
    expect(res.status).toBe(200);
    expect(res.body.version).toBe(2);
    expectEvent(await ownerLive.next(is("task.updated", task.id)), "task.updated", res.body);
  });

  it("lets a board kept from the events, applying each task.updated as a move, match GET after moves and deletes", async () => {
    const spaces = `${orgPath()}/spaces`;
    const space = (await org.owner.api.post(spaces, { name: unique("Board replay") })).body;
    const tasks = `${spaces}/${space.id}/tasks`;
    const columns: string[] = (await org.owner.api.get(`${spaces}/${space.id}/board`)).body.columns.map(
      (c: { id: string }) => c.id,
    );
    const watcher = await live(org.owner.token);
    const board = new Map<string, string[]>(columns.map((id) => [id, []]));
    const remove = (id: string) => {
      for (const ids of board.values()) if (ids.includes(id)) ids.splice(ids.indexOf(id), 1);
    };
    const place = (payload: { id: string; column_id: string; position: number }) => {
      remove(payload.id);
      (board.get(payload.column_id) as string[]).splice(payload.position, 0, payload.id);
    };
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 48271) % 2147483647;
      return seed % n;
    };
    const made: string[] = [];
    for (let i = 0; i < 12; i++) {
      const column = columns[i % 2] as string;
      made.push((await org.owner.api.post(tasks, { title: `T${i}`, column_id: column })).body.id);
    }
    for (let step = 0; step < 30; step++) {
      const id = made[random(made.length)] as string;
      if (step % 7 === 6) {
        expect((await org.owner.api.delete(`${tasks}/${id}`)).status).toBe(204);
        made.splice(made.indexOf(id), 1);
      } else {
        const body = { column_id: columns[random(3)], position: random(8) };
        expect((await org.owner.api.patch(`${tasks}/${id}`, body)).status).toBe(200);
      }
    }
    const last = (await org.owner.api.patch(`${tasks}/${made[0]}`, { title: "last" })).body;
    await watcher.next(is("task.updated", last.id));
    for (const event of watcher.events.filter((e) => e.space_id === space.id)) {
      if (event.type === "task.deleted") remove(event.payload.id);
      else if (event.type === "task.created" || event.type === "task.updated") place(event.payload);
    }
    const truth = (await org.owner.api.get(tasks)).body.tasks as { id: string; column_id: string; position: number }[];
    for (const column of columns) {
      const fromGet = truth.filter((t) => t.column_id === column).sort((x, y) => x.position - y.position);
      expect(board.get(column)).toEqual(fromGet.map((t) => t.id));
      expect(fromGet.map((t) => t.position)).toEqual(fromGet.map((_, i) => i));
    }
  });

  it("sends task.deleted with exactly {id}", async () => {
    const task = await newTask();
    expect((await member.api.delete(`${spacePath()}/tasks/${task.id}`)).status).toBe(204);
    expectEvent(await ownerLive.next(is("task.deleted", task.id)), "task.deleted", { id: task.id });
  });

  it("sends task.message.created with the message as POST answers it", async () => {
    const task = await newTask();
    const res = await member.api.post(`${spacePath()}/tasks/${task.id}/messages`, { content: "On it 👍" });
    expect(res.status).toBe(201);
    expect(res.body.task_id).toBe(task.id);
    expectEvent(await ownerLive.next(is("task.message.created", res.body.id)), "task.message.created", res.body);
  });

  it("sends created, updated, deleted in the order of the changes", async () => {
    const task = await newTask();
    const moved = await member.api.patch(`${spacePath()}/tasks/${task.id}`, { column_id: columns[2] });
    expect(moved.status).toBe(200);
    expect((await member.api.delete(`${spacePath()}/tasks/${task.id}`)).status).toBe(204);
    await ownerLive.next(is("task.deleted", task.id));
    const seen = about(ownerLive, task.id);
    expect(seen.map((e) => e.type)).toEqual(["task.created", "task.updated", "task.deleted"]);
    expect(seen.map((e) => e.payload)).toStrictEqual([task, moved.body, { id: task.id }]);
    expect(seen[1]?.payload.column_id).toBe(columns[2]);
  });
});

describe("chat events", () => {
  it("sends chat.room.created with the room as POST answers it", async () => {
    const room = await newRoom();
    expect(Object.keys(room).sort()).toEqual(["created_at", "created_by", "id", "name", "space_id"]);
    expectEvent(await ownerLive.next(is("chat.room.created", room.id)), "chat.room.created", room);
  });

  it("sends chat.room.deleted with exactly {id}", async () => {
    const room = await newRoom();
    expect((await member.api.delete(`${spacePath()}/chat-rooms/${room.id}`)).status).toBe(204);
    expectEvent(await ownerLive.next(is("chat.room.deleted", room.id)), "chat.room.deleted", { id: room.id });
  });

  it("sends chat.message.created with exactly the POST 201 body {message, attachments}", async () => {
    const room = await newRoom();
    const body = await postMessage(room.id, {
      content: "Here is the deck",
      attachments: [{ url: "https://cdn.example.com/deck.pdf", mime: "application/pdf", size_bytes: 1234 }],
    });
    expect(body.attachments).toHaveLength(1);
    const event = await ownerLive.next(
      (e) => e.type === "chat.message.created" && e.payload.message.id === body.message.id,
    );
    expectEvent(event, "chat.message.created", body);
    expect(Object.keys(event.payload).sort()).toEqual(["attachments", "message"]);
  });

  it("sends chat.message.updated with the message as PATCH answers it", async () => {
    const room = await newRoom();
    const { message } = await postMessage(room.id, { content: "first draft" });
    const res = await member.api.patch(`${spacePath()}/chat-rooms/${room.id}/messages/${message.id}`, {
      content: "second draft",
    });
    expect(res.status).toBe(200);
    expect(res.body.edited_at).toMatch(TIMESTAMP);
    expectEvent(await ownerLive.next(is("chat.message.updated", message.id)), "chat.message.updated", res.body);
  });

  it("sends chat.message.deleted without the content", async () => {
    const secret = `launch-code-${crypto.randomUUID()}`;
    const raw = await openFrames(wsUrl(`?token=${org.owner.token}`));
    const room = await newRoom();
    const { message } = await postMessage(room.id, { content: secret });
    const edited = await member.api.patch(`${spacePath()}/chat-rooms/${room.id}/messages/${message.id}`, {
      content: `${secret} (edited)`,
    });
    expect(edited.status).toBe(200);
    expect((await member.api.delete(`${spacePath()}/chat-rooms/${room.id}/messages/${message.id}`)).status).toBe(204);
    const event = await ownerLive.next(is("chat.message.deleted", message.id));
    // The message as the listing shows it now.
    const listing = await member.api.get(`${spacePath()}/chat-rooms/${room.id}/messages`);
    const listed = listing.body.messages.find((m: { id: string }) => m.id === message.id);
    expect(listed.content).toBe("");
    expect(listed.deleted_at).toMatch(TIMESTAMP);
    expectEvent(event, "chat.message.deleted", listed);
    expect(event.payload).toStrictEqual({
      ...edited.body,
      content: "",
      deleted_at: event.payload.deleted_at,
      updated_at: event.payload.updated_at,
    });
    expect(event.payload.deleted_at).toMatch(TIMESTAMP);
    // The raw frame of the deletion carries the secret nowhere.
    await eventually(
      () =>
        raw.frames.some((f) => typeof f === "string" && f.includes('"chat.message.deleted"') && f.includes(message.id)),
      "the raw deletion frame",
    );
    raw.ws.close();
    const frame = raw.frames.find((f) => typeof f === "string" && f.includes('"chat.message.deleted"')) as string;
    expect(frame).not.toContain(secret);
    expect(frame).not.toContain("launch-code");
  });

  it("sends chat.reaction.added and chat.reaction.removed with the reaction as POST answers it", async () => {
    const room = await newRoom();
    const { message } = await postMessage(room.id, { content: "ship it?" });
    const reactions = `${spacePath()}/chat-rooms/${room.id}/messages/${message.id}/reactions`;
    const added = await member.api.post(reactions, { emoji: "🚀" });
    expect(added.status).toBe(201);
    expect(Object.keys(added.body).sort()).toEqual(["created_at", "emoji", "message_id", "user_id"]);
    const forMessage = (type: string) => (e: LiveEvent) => e.type === type && e.payload.message_id === message.id;
    expectEvent(await ownerLive.next(forMessage("chat.reaction.added")), "chat.reaction.added", added.body);
    expect((await member.api.delete(`${reactions}?emoji=${encodeURIComponent("🚀")}`)).status).toBe(204);
    expectEvent(await ownerLive.next(forMessage("chat.reaction.removed")), "chat.reaction.removed", added.body);
  });

  it("sends a message's events in the order of the changes", async () => {
    const room = await newRoom();
    const { message } = await postMessage(room.id, { content: "v1" });
    const path = `${spacePath()}/chat-rooms/${room.id}/messages/${message.id}`;
    expect((await member.api.patch(path, { content: "v2" })).status).toBe(200);
    expect((await member.api.post(`${path}/reactions`, { emoji: "👀" })).status).toBe(201);
    expect((await member.api.delete(`${path}/reactions?emoji=${encodeURIComponent("👀")}`)).status).toBe(204);
    expect((await member.api.delete(path)).status).toBe(204);
    expect((await member.api.delete(`${spacePath()}/chat-rooms/${room.id}`)).status).toBe(204);
    await ownerLive.next(is("chat.room.deleted", room.id));
    const types = ownerLive.events
      .filter((e) => e.payload?.id === room.id || about(ownerLive, message.id).includes(e))
      .map((e) => e.type);
    expect(types).toEqual([
      "chat.room.created",
      "chat.message.created",
      "chat.message.updated",
      "chat.reaction.added",
      "chat.reaction.removed",
      "chat.message.deleted",
      "chat.room.deleted",
    ]);
  });
});

describe("file events", () => {
  it("sends file.created with the node as POST /files/folders and /files/text answer it", async () => {
    const folder = await newFolder();
    expect(Object.keys(folder).sort()).toEqual(NODE_KEYS);
    expectEvent(await ownerLive.next(is("file.created", folder.id)), "file.created", folder);
    const text = await newText("# Plan\n", folder.id);
    expect(text.parent_id).toBe(folder.id);
    expectEvent(await ownerLive.next(is("file.created", text.id)), "file.created", text);
  });

  it("sends file.created with the node as POST /files/upload answers it", async () => {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array([0, 1, 2, 255])], { type: "application/octet-stream" }), "b.bin");
    const res = await fetch(`${server.url}${spacePath()}/files/upload`, {
      method: "POST",
      body: form,
      headers: { authorization: `Bearer ${member.token}` },
    });
    expect(res.status).toBe(201);
    const { node } = (await res.json()) as { node: { id: string } };
    expectEvent(await ownerLive.next(is("file.created", node.id)), "file.created", node);
  });

  it("sends file.updated with the node as PATCH answers a rename", async () => {
    const text = await newText("x");
    const res = await member.api.patch(`${spacePath()}/files/${text.id}`, { name: unique("renamed.md") });
    expect(res.status).toBe(200);
    expectEvent(await ownerLive.next(is("file.updated", text.id)), "file.updated", res.body.node);
  });

  it("sends file.updated with the node as PUT .../content answers it", async () => {
    const text = await newText("before");
    const node = await putText(text.id, "after, longer");
    expect(node.checksum_sha256).toBe(sha256("after, longer"));
    expectEvent(await ownerLive.next(is("file.updated", text.id)), "file.updated", node);
  });

  it("sends file.deleted with the node, deleted_at set", async () => {
    const text = await newText("bye");
    const before = (await member.api.get(`${spacePath()}/files/${text.id}`)).body.node;
    expect((await member.api.delete(`${spacePath()}/files/${text.id}`)).status).toBe(204);
    const event = await ownerLive.next(is("file.deleted", text.id));
    expect(Object.keys(event.payload).sort()).toEqual(NODE_KEYS);
    expect(event.payload.deleted_at).toMatch(TIMESTAMP);
    expect(event.payload.updated_at).toMatch(TIMESTAMP);
    expect(Date.parse(event.payload.deleted_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at));
    expectEvent(event, "file.deleted", {
      ...before,
      deleted_at: event.payload.deleted_at,
      updated_at: event.payload.updated_at,
    });
  });

  it("sends one file.deleted for a deleted folder, none for what was inside", async () => {
    const folder = await newFolder();
    const inner = await newText("inside", folder.id);
    const sub = await member.api.post(`${spacePath()}/files/folders`, { name: "sub", parent_id: folder.id });
    expect(sub.status).toBe(201);
    const deep = await newText("deeper", sub.body.node.id);
    expect((await member.api.delete(`${spacePath()}/files/${folder.id}`)).status).toBe(204);
    const event = await ownerLive.next(is("file.deleted", folder.id));
    expectEvent(event, "file.deleted", {
      ...folder,
      deleted_at: event.payload.deleted_at,
      updated_at: event.payload.updated_at,
    });
    expect(event.payload.deleted_at).toMatch(TIMESTAMP);
    await barrier(ownerLive);
    const deletions = ownerLive.events.filter((e) => e.type === "file.deleted");
    for (const id of [inner.id, sub.body.node.id, deep.id])
      expect(deletions.some((e) => e.payload.id === id)).toBe(false);
    expect(deletions.filter((e) => e.payload.id === folder.id)).toHaveLength(1);
  });

  it("sends a file's created, updated, deleted in the order of the changes", async () => {
    const text = await newText("one");
    const renamed = await member.api.patch(`${spacePath()}/files/${text.id}`, { name: unique("moved.md") });
    expect(renamed.status).toBe(200);
    expect((await member.api.delete(`${spacePath()}/files/${text.id}`)).status).toBe(204);
    await ownerLive.next(is("file.deleted", text.id));
    const seen = about(ownerLive, text.id);
    expect(seen.map((e) => e.type)).toEqual(["file.created", "file.updated", "file.deleted"]);
    expect(seen[0]?.payload).toStrictEqual(text);
    expect(seen[1]?.payload).toStrictEqual(renamed.body.node);
  });
});

describe("who receives a space's events", () => {
  /** A private space made by a Member, so the Owner is not in it and sees it through org.manage alone. */
  let privateId: string;
  let creator: Person;
  let insider: Person;
  let outsider: Person;
  let creatorLive: Listener;
  let insiderLive: Listener;
  let outsiderLive: Listener;
  let viewerLive: Listener;
  let staffLive: Listener;

  beforeAll(async () => {
    creator = await addMember(org, ["Member"], "Paula Private");
    insider = await addMember(org, ["Member"], "Ivan Insider");
    outsider = await addMember(org, ["Member"], "Oscar Outsider");
    const space = await creator.api.post(`${orgPath()}/spaces`, { name: "Secret plans", private: true });
    expect(space.status).toBe(201);
    expect(space.body.private).toBe(true);
    privateId = space.body.id;
    const added = await creator.api.post(`${spacePath(privateId)}/members`, { user_id: insider.id });
    expect(added.status).toBe(201);
    creatorLive = await live(creator.token);
    insiderLive = await live(insider.token);
    outsiderLive = await live(outsider.token);
    viewerLive = await live(viewer.token);
    staffLive = await live(staff.token);
  });

  it("sends a private space's events to its members and to org.manage holders", async () => {
    const room = await newRoom(creator.api, privateId);
    const task = await newTask(unique("secret task"), insider.api, privateId);
    for (const target of [creatorLive, insiderLive, ownerLive]) {
      expectEvent(await target.next(is("chat.room.created", room.id)), "chat.room.created", room, privateId);
      expectEvent(await target.next(is("task.created", task.id)), "task.created", task, privateId);
    }
  });

  it("sends file and automation events only to those with files.read, as REST does", async () => {
    // A member whose only permission is chat.write: REST refuses them files and automations.
    const chatter = await addMember(org, ["Member"], "Cora Chat");
    const role = await org.owner.api.post(`${orgPath()}/roles`, { name: "Chat only", permissions: ["chat.write"] });
    expect(role.status).toBe(201);
    const put = await org.owner.api.put(`${orgPath()}/members/${chatter.id}/roles`, { role_ids: [role.body.role.id] });
    expect(put.status).toBe(200);
    expect((await chatter.api.get(`${spacePath()}/files/tree`)).status).toBe(403);
    const chatterLive = await live(chatter.token);
    const text = await newText("secret plan");
    const automation = await member.api.post(`${spacePath()}/automations`, { name: unique("auto"), kind: "webhook" });
    const room = await newRoom();
    // The events after them reach the Owner; the chatter hears the room, never the file or the automation.
    expectEvent(await chatterLive.next(is("chat.room.created", room.id)), "chat.room.created", room);
    await ownerLive.next(is("automation.updated", automation.body.automation.id));
    await ownerLive.next(is("file.created", text.id));
    await barrier(chatterLive);
    expect(chatterLive.events.filter((e) => e.type.startsWith("file.") || e.type.startsWith("automation."))).toEqual(
      [],
    );
  });

  it("sends nothing of a private space to a Member outside it, a Viewer or staff", async () => {
    const room = await newRoom(creator.api, privateId);
    const res = await creator.api.post(`${spacePath(privateId)}/chat-rooms/${room.id}/messages`, { content: "shh" });
    expect(res.status).toBe(201);
    const file = await creator.api.post(`${spacePath(privateId)}/files/text`, {
      name: unique("plan.md"),
      content: "x",
    });
    expect(file.status).toBe(201);
    await ownerLive.next(is("file.created", file.body.node.id));
    // A public event after them reaches everyone: by then anything of the private space would have arrived too.
    await barrier(outsiderLive, viewerLive, staffLive, memberLive);
    for (const target of [outsiderLive, viewerLive, staffLive, memberLive]) {
      expect(target.events.filter((e) => e.space_id === privateId)).toEqual([]);
    }
  });

  it("sends public space events to a Viewer", async () => {
    const task = await newTask();
    const room = await newRoom();
    expectEvent(await viewerLive.next(is("task.created", task.id)), "task.created", task);
    expectEvent(await viewerLive.next(is("chat.room.created", room.id)), "chat.room.created", room);
  });

  it("lets a staff sa_ token connect and sends it public space events", async () => {
    expect(staff.token.startsWith("sa_")).toBe(true);
    const task = await newTask();
    const text = await newText("for staff");
    expectEvent(await staffLive.next(is("task.created", task.id)), "task.created", task);
    expectEvent(await staffLive.next(is("file.created", text.id)), "file.created", text);
  });
});

describe("refused upgrades", () => {
  it("answers 401 unauthorized for a missing or bad token", async () => {
    for (const query of ["", "?token=", "?token=nope", `?token=${member.token}x`, `?token=${staff.token}x`]) {
      expect(await refusedUpgrade(wsUrl(query))).toEqual({ status: 401, body: { error: "unauthorized" } });
    }
  });

  it("answers 404 organization not found for another or a malformed organization id", async () => {
    for (const orgId of [NO_ORG, "not-a-uuid"]) {
      expect(await refusedUpgrade(wsUrl(`?token=${member.token}`, orgId))).toEqual({
        status: 404,
        body: { error: "organization not found" },
      });
    }
  });

  it("answers 400 websocket upgrade required to a plain GET", async () => {
    const res = await member.api.get(`${orgPath()}/ws`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "websocket upgrade required" });
  });

  it("answers an upgrade without a handshake key, or with a malformed one, 400 in the API's shape", async () => {
    for (const key of [undefined, "short", "dGhlIHNhbXBsZSBub25jZQ"]) {
      const res = await fetch(`${server.url}${orgPath()}/ws?token=${member.token}`, {
        headers: {
          upgrade: "websocket",
          connection: "Upgrade",
          "sec-websocket-version": "13",
          ...(key ? { "sec-websocket-key": key } : {}),
        },
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error:
          "invalid websocket upgrade: a Sec-WebSocket-Key (16 bytes in base64) and Sec-WebSocket-Version: 13 are required",
      });
    }
    const res = await fetch(`${server.url}${orgPath()}/ws?token=${member.token}`, {
      headers: { upgrade: "websocket", connection: "Upgrade" },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error:
        "invalid websocket upgrade: a Sec-WebSocket-Key (16 bytes in base64) and Sec-WebSocket-Version: 13 are required",
    });
  });

  it("refuses a 51st socket of one person with 429, and takes one again once another closes", async () => {
    const heavy = await addMember(org, ["Member"], "Tabby Tabs");
    const sockets = Array.from({ length: 50 }, () => openRaw(wsUrl(`?token=${heavy.token}`)));
    await Promise.all(sockets.map((s) => s.opened));
    expect(await refusedUpgrade(wsUrl(`?token=${heavy.token}`))).toEqual({
      status: 429,
      body: { error: "too many open live-event sockets: at most 50 per person" },
    });
    // Someone else is not held back by it.
    const other = openRaw(wsUrl(`?token=${member.token}`));
    await other.opened;
    other.ws.close();
    (sockets[0] as RawSocket).ws.close();
    await (sockets[0] as RawSocket).closed;
    await Bun.sleep(50);
    const again = openRaw(wsUrl(`?token=${heavy.token}`));
    await again.opened;
    for (const s of [...sockets, again]) s.ws.close();
  });

  it("answers 403 signup pending approval to an account awaiting approval", async () => {
    const enabled = await org.owner.api.patch(orgPath(), { open_signups_enabled: true });
    expect(enabled.status).toBe(200);
    try {
      const res = await org.anon.post("/api/v1/auth/register", {
        email: "pending@acme.test",
        password: "pending-password",
        display_name: "Pat Pending",
      });
      expect(res.status).toBe(201);
      expect(res.body.signup_pending).toBe(true);
      tokens.push(res.body.access_token);
      expect(await refusedUpgrade(wsUrl(`?token=${res.body.access_token}`))).toEqual({
        status: 403,
        body: { error: "signup pending approval" },
      });
    } finally {
      await org.owner.api.patch(orgPath(), { open_signups_enabled: false });
    }
  });
});

describe("access changes", () => {
  it("closes a removed member's sockets with 4404 organization not found, and no one else's", async () => {
    const leaving = await addMember(org, ["Member"], "Lea Leaving");
    const staying = await addMember(org, ["Member"], "Sam Staying");
    const first = await live(leaving.token);
    const second = await live(leaving.token);
    const stayingLive = await live(staying.token);
    expect((await org.owner.api.delete(`${orgPath()}/members/${leaving.id}`)).status).toBe(204);
    expect(await first.closed).toEqual({ code: 4404, reason: "organization not found" });
    expect(await second.closed).toEqual({ code: 4404, reason: "organization not found" });
    await barrier(stayingLive, memberLive, ownerLive);
    expect(await isOpen(stayingLive)).toBe(true);
    expect(await isOpen(memberLive)).toBe(true);
    expect(await isOpen(ownerLive)).toBe(true);
    // And a new socket of the removed member is refused like any other org route.
    expect(await refusedUpgrade(wsUrl(`?token=${leaving.token}`))).toEqual({
      status: 404,
      body: { error: "organization not found" },
    });
  });

  it("stops a private space's events at once for someone removed from it, keeping the socket open", async () => {
    const creator = await addMember(org, ["Member"], "Cora Creator");
    const guest = await addMember(org, ["Member"], "Gus Guest");
    const space = await creator.api.post(`${orgPath()}/spaces`, { name: unique("Private"), private: true });
    expect(space.status).toBe(201);
    const privateId = space.body.id;
    expect((await creator.api.post(`${spacePath(privateId)}/members`, { user_id: guest.id })).status).toBe(201);
    const guestLive = await live(guest.token);
    const creatorLive = await live(creator.token);
    const before = await newRoom(creator.api, privateId);
    await guestLive.next(is("chat.room.created", before.id));

    expect((await creator.api.delete(`${spacePath(privateId)}/members/${guest.id}`)).status).toBe(204);
    const after = await newRoom(creator.api, privateId);
    await creatorLive.next(is("chat.room.created", after.id));
    await barrier(guestLive);
    expect(guestLive.events.some((e) => e.payload?.id === after.id)).toBe(false);
    expect(guestLive.events.filter((e) => e.space_id === privateId)).toHaveLength(1);
    expect(await isOpen(guestLive)).toBe(true);
  });
});

describe("access.changed (an extension)", () => {
  it("tells a member whose roles change, on every socket of theirs and no one else's, with no payload", async () => {
    const changing = await addMember(org, ["Member"], "Rita Roles");
    const bystander = await addMember(org, ["Member"], "Ben Bystander");
    const [first, second, other] = await Promise.all([
      live(changing.token),
      live(changing.token),
      live(bystander.token),
    ]);
    const put = await org.owner.api.put(`${orgPath()}/members/${changing.id}/roles`, { role_ids: [org.roles.Viewer] });
    expect(put.status).toBe(200);
    const isAccess = (e: LiveEvent) => e.type === "access.changed";
    for (const socket of [first, second]) {
      expect((await socket.next(isAccess)) as unknown).toStrictEqual({
        type: "access.changed",
        organization_id: org.id,
        space_id: null,
        payload: null,
      });
    }
    await barrier(other, first);
    expect(other.events.some(isAccess)).toBe(false);
  });

  it("tells a member made owner of a public space, whose members they now manage", async () => {
    const promoted = await addMember(org, ["Member"], "Pat Promoted");
    const space = (await org.owner.api.post(`${orgPath()}/spaces`, { name: unique("Public owned") })).body;
    const socket = await live(promoted.token);
    const members = `${orgPath()}/spaces/${space.id}/members`;
    expect((await org.owner.api.post(members, { user_id: promoted.id, role: "owner" })).status).toBe(201);
    await socket.next((e: LiveEvent) => e.type === "access.changed");
  });

  it("tells no one when a role nobody holds changes, and its holders when one they hold does", async () => {
    const holder = await addMember(org, ["Member"], "Hal Holder");
    const bystander = await addMember(org, ["Member"], "Bea Bystander");
    const roles = `${orgPath()}/roles`;
    const unheld = (await org.owner.api.post(roles, { name: "Nobody's", permissions: ["chat.write"] })).body.role;
    const held = (await org.owner.api.post(roles, { name: "Held", permissions: ["chat.write"] })).body.role;
    await org.owner.api.put(`${orgPath()}/members/${holder.id}/roles`, { role_ids: [org.roles.Member, held.id] });
    const [holding, other] = await Promise.all([live(holder.token), live(bystander.token)]);
    const isAccess = (e: LiveEvent) => e.type === "access.changed";
    expect((await org.owner.api.patch(`${roles}/${unheld.id}`, { permissions: ["org.manage"] })).status).toBe(200);
    expect((await org.owner.api.delete(`${roles}/${unheld.id}`)).status).toBe(204);
    expect((await org.owner.api.patch(`${roles}/${held.id}`, { name: "Renamed" })).status).toBe(200);
    await barrier(other, holding);
    expect([...holding.events, ...other.events].some(isAccess)).toBe(false);
    expect((await org.owner.api.patch(`${roles}/${held.id}`, { permissions: ["org.members.manage"] })).status).toBe(
      200,
    );
    await holding.next(isAccess);
    await barrier(other, holding);
    expect(other.events.some(isAccess)).toBe(false);
  });
});

describe("coalescing of file.updated", () => {
  it("announces typing once the text settles, fewer than one per edit; REST reads are current at once", async () => {
    const text = await newText("v0");
    await ownerLive.next(is("file.created", text.id));
    // Someone types into the file: ten edits in quick succession over the collaborative socket.
    const editor = openEditor(collabBase(server.url, org.id, spaceId), text.id, member.token);
    await editor.synced();
    const typedAt = Date.now();
    for (let i = 1; i <= 10; i++) {
      editor.insert(editor.text().length, ` ${i}`);
      await Bun.sleep(10);
    }
    const final = "v0 1 2 3 4 5 6 7 8 9 10";
    // Nobody reads the file: its text is written (and announced) once the typing has been quiet a second.
    const settled = await ownerLive.next(
      (e) => is("file.updated", text.id)(e) && e.payload.checksum_sha256 === sha256(final),
      5000,
    );
    expect(Date.now() - typedAt).toBeGreaterThanOrEqual(1000);
    const updates = ownerLive.events.filter(is("file.updated", text.id));
    expect(updates.length).toBeLessThan(10);
    expect(settled.payload.size_bytes).toBe(Buffer.byteLength(final));
    expectEvent(settled, "file.updated", (await member.api.get(`${spacePath()}/files/${text.id}`)).body.node);

    // A reader does not wait for the typing to settle: what REST serves is the stored text, and agrees with
    // its size and checksum, and the read announces the change.
    editor.insert(editor.text().length, " 11");
    await eventually(() => editor.provider.synced, "the edit to be sent");
    let content = await member.api.get(`${spacePath()}/files/${text.id}/content`);
    for (let i = 0; i < 100 && content.text !== `${final} 11`; i++) {
      await Bun.sleep(10);
      content = await member.api.get(`${spacePath()}/files/${text.id}/content`);
    }
    expect(content.text).toBe(`${final} 11`);
    const node = (await member.api.get(`${spacePath()}/files/${text.id}`)).body.node;
    expect(node.size_bytes).toBe(Buffer.byteLength(`${final} 11`));
    expect(node.checksum_sha256).toBe(sha256(`${final} 11`));
    const announced = await ownerLive.next(
      (e) => is("file.updated", text.id)(e) && e.payload.checksum_sha256 === sha256(`${final} 11`),
      800,
    );
    expectEvent(announced, "file.updated", node);
    editor.destroy();
  });

  it("sends a held update before a rename of the same file", async () => {
    const text = await newText("a");
    await putText(text.id, "ab");
    await ownerLive.next(is("file.updated", text.id));
    const held = await putText(text.id, "abc");
    const renamed = await member.api.patch(`${spacePath()}/files/${text.id}`, { name: unique("renamed.md") });
    expect(renamed.status).toBe(200);
    await ownerLive.next((e) => is("file.updated", text.id)(e) && e.payload.name === renamed.body.node.name);
    const updates = ownerLive.events.filter(is("file.updated", text.id)).map((e) => e.payload);
    expect(updates).toHaveLength(3);
    expect(updates[1]).toStrictEqual(held);
    expect(updates[2]).toStrictEqual(renamed.body.node);
  });

  /**
   * Barrier for held updates: file `marker` gets its first edit after the file under test got its own, so its held
   * update is due later; once it has arrived, any held update of the file under test would have too.
   */
  async function heldBarrier(marker: { id: string }) {
    const finalText = "marker 2";
    await ownerLive.next(
      (e) => is("file.updated", marker.id)(e) && e.payload.checksum_sha256 === sha256(finalText),
      1500,
    );
  }

  it("sends a held update before the deletion of its file", async () => {
    const text = await newText("a");
    const marker = await newText("m");
    await putText(text.id, "ab");
    await putText(marker.id, "marker 1");
    await putText(text.id, "abc");
    await putText(marker.id, "marker 2");
    expect((await member.api.delete(`${spacePath()}/files/${text.id}`)).status).toBe(204);
    await ownerLive.next(is("file.deleted", text.id));
    await heldBarrier(marker);
    expect(about(ownerLive, text.id).map((e) => e.type)).toEqual([
      "file.created",
      "file.updated",
      "file.updated",
      "file.deleted",
    ]);
  });

  /** A held update going out after its folder's deletion would put a node of a deleted subtree back in a tree. */
  it("sends a held update of a file before the deletion of its folder, never after", async () => {
    const folder = await newFolder();
    const text = await newText("a", folder.id);
    const marker = await newText("m");
    await putText(text.id, "ab");
    await putText(marker.id, "marker 1");
    await putText(text.id, "abc");
    await putText(marker.id, "marker 2");
    expect((await member.api.delete(`${spacePath()}/files/${folder.id}`)).status).toBe(204);
    await ownerLive.next(is("file.deleted", folder.id));
    await heldBarrier(marker);
    const deletedAt = ownerLive.events.findIndex(is("file.deleted", folder.id));
    const late = ownerLive.events.slice(deletedAt).filter(is("file.updated", text.id));
    expect(late).toEqual([]);
  });
});

describe("across the whole file", () => {
  it("gives every frame received by the long-lived sockets exactly the four envelope keys of this organization", async () => {
    await barrier(ownerLive, memberLive);
    expect(ownerLive.events.length).toBeGreaterThan(0);
    for (const event of [...ownerLive.events, ...memberLive.events]) {
      expect(Object.keys(event).sort()).toEqual(ENVELOPE_KEYS);
      expect(event.organization_id).toBe(org.id);
      // access.changed is about the member, not a space (the owner hears it for each space they create); the
      // directory's member.* events are about the organization.
      if (event.type === "access.changed") expect([event.space_id, event.payload]).toEqual([null, null]);
      else if (event.type.startsWith("member.")) expect(event.space_id).toBeNull();
      else expect(event.space_id).toMatch(UUID);
      expect(typeof event.type).toBe("string");
    }
  });

  it("never writes a token to the log", async () => {
    expect(tokens.length).toBeGreaterThan(5);
    expect(server.logs.length).toBeGreaterThan(0);
    const log = server.logs.join("\n");
    // The upgrades are logged, so the check below is not vacuous.
    expect(log).toContain(`/api/v1/organizations/${org.id}/ws`);
    for (const token of new Set([...tokens, org.owner.token, member.token, viewer.token, staff.token])) {
      expect(log).not.toContain(token);
    }
    // Nor a part of one: the signature of a JWT, the secret part of an sa_ token.
    expect(log).not.toContain(member.token.split(".")[2] as string);
    expect(log).not.toContain(staff.token.slice(3));
  });
});

describe("a server stopping", () => {
  it("closes its events sockets with 1001 server stopping and stops promptly, however many are open", async () => {
    const own = await startTestServer();
    const ownOrg = await setupOrg(own);
    const sockets = await Promise.all([1, 2, 3].map(() => listen(own.url, ownOrg.id, ownOrg.owner.token)));
    const started = performance.now();
    await own.stop();
    expect(performance.now() - started).toBeLessThan(2500);
    for (const socket of sockets) {
      expect(await socket.closed).toEqual({ code: 1001, reason: "server stopping" });
    }
  });
});
