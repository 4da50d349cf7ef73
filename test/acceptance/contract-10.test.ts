/**
 * Contract §10 ("Never miss what needs you; find anything") checked to the letter against the compiled
 * executable `dist/tandem`, from outside, over HTTP and real WebSockets: read state, unread counts, the inbox,
 * notification settings, email (invites), Web Push, search and the live directory, with the general rules of
 * api-spec.md that apply to them (`{"error"}` bodies, 400 naming the field, 401/404, paging, `org_id`, the
 * live-event envelope of contract §5). The email digest needs ten minutes to pass: that part runs on the source
 * server in this process, whose clock a test can move (the binary's cannot be).
 */
import { afterAll, beforeAll, describe, expect, it, setSystemTime } from "bun:test";
import { createPublicKey } from "node:crypto";
import { existsSync, rmSync } from "node:fs";
import { addMember, addStaff, type Org, type Person, setupOrg } from "../helpers/factories";
import { completion, type FakeProvider, startFakeProvider } from "../helpers/fake-providers";
import { type Client, client, TIMESTAMP, UUID } from "../helpers/http";
import { browserSubscription, type FakePushService, startFakePushService } from "../helpers/push-service";
import {
  BINARY,
  runCli,
  type SpawnedServer,
  spawnServer,
  startTestServer,
  type TestServer,
  tempDir,
} from "../helpers/server";
import { type FakeSmtp, startFakeSmtp } from "../helpers/smtp";
import { eventually, type Listener, type LiveEvent, listen } from "../helpers/sockets";
import { ITEM_KEYS } from "../inbox/world";

if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run ./install.sh first`);

const ROOM_KEYS = ["chat_room_id", "last_read_message_id", "mentions", "space_id", "unread"];
const MEMBER_KEYS = [
  "display_name",
  "email",
  "is_service_account",
  "joined_at",
  "role_ids",
  "service_account_id",
  "user_id",
];
const ENVELOPE_KEYS = ["organization_id", "payload", "space_id", "type"];
const keys = (value: object) => Object.keys(value).sort();

let smtp: FakeSmtp;
let push: FakePushService;
let gateway: FakeProvider;
let server: SpawnedServer;
const dataDir = tempDir("tandem-contract10-");

let org: Org;
let owner: Person;
let ada: Person;
let bob: Person;
let vic: Person;
let anon: Client;
let spaceId: string;
let roomId: string;
let privateId: string;
let privateRoomId: string;
/** A room of the public space for markers only, so that they count in no other room. */
let markerRoomId: string;
let ownerLive: Listener;
let adaLive: Listener;
let adaLive2: Listener;
let bobLive: Listener;

const orgPath = () => `/api/v1/organizations/${org.id}`;
const spacePath = (id = spaceId) => `${orgPath()}/spaces/${id}`;
const roomPath = (room = roomId, space = spaceId) => `${spacePath(space)}/chat-rooms/${room}`;
const me = (path: string, query = "") => `/api/v1/me/${path}?org_id=${org.id}${query}`;

async function say(who: Person, content: string, room = roomId, space = spaceId) {
  const res = await who.api.post(`${roomPath(room, space)}/messages`, { content });
  if (res.status !== 201) throw new Error(`post failed: ${res.status} ${res.text}`);
  return res.body.message as { id: string; created_at: string };
}

async function inboxOf(who: Person, query = ""): Promise<{ items: any[]; unread: number }> {
  const res = await who.api.get(me("inbox", query));
  if (res.status !== 200) throw new Error(`inbox failed: ${res.status} ${res.text}`);
  return res.body;
}

async function unreadOf(who: Person): Promise<any[]> {
  const res = await who.api.get(me("unread"));
  if (res.status !== 200) throw new Error(`unread failed: ${res.status} ${res.text}`);
  return res.body.rooms;
}

const roomOf = async (who: Person, room = roomId) => (await unreadOf(who)).find((r) => r.chat_room_id === room) as any;

async function generalOf(space: string): Promise<string> {
  return (await owner.api.get(`${spacePath(space)}/chat-rooms`)).body.chat_rooms[0].id;
}

async function newTask(as: Person, title: string, extra: Record<string, unknown> = {}, space = spaceId) {
  const board = await as.api.get(`${spacePath(space)}/board`);
  const res = await as.api.post(`${spacePath(space)}/tasks`, { title, column_id: board.body.columns[0].id, ...extra });
  if (res.status !== 201) throw new Error(`task failed: ${res.status} ${res.text}`);
  return res.body as { id: string; created_at: string };
}

/** Reads every room and item of `who`, so that a test starts from nothing unread. */
async function readAll(who: Person) {
  for (const room of await unreadOf(who)) {
    const path = roomPath(room.chat_room_id, room.space_id);
    const newest = (await who.api.get(`${path}/messages?limit=1`)).body.messages.at(-1);
    await who.api.post(`${path}/read`, { message_id: newest.id });
  }
  await who.api.post("/api/v1/me/inbox/read", { org_id: org.id, all: true });
}

/** Fails unless the answer is exactly `{"error": message}` with that status. */
function refused(res: { status: number; body: unknown; text: string }, status: number, message: string) {
  expect({ status: res.status, body: res.body }, res.text).toEqual({ status, body: { error: message } });
}

/** A marker message all sockets hear, after which anything sent before it has arrived. */
async function settle(...listeners: Listener[]) {
  const marker = `marker-${crypto.randomUUID()}`;
  await say(owner, marker, markerRoomId);
  for (const l of listeners)
    await l.next((e) => e.type === "chat.message.created" && e.payload.message.content === marker);
}

beforeAll(async () => {
  smtp = await startFakeSmtp();
  push = startFakePushService();
  gateway = startFakeProvider(() => completion("Here is the plan."));
  server = await spawnServer({
    kind: "binary",
    dataDir,
    env: {
      TANDEM_SMTP_URL: smtp.url,
      TANDEM_SMTP_FROM: "Tandem <tandem@acme.test>",
      MODELROUTER_API_BASE_URL: `${gateway.origin}/api/v1`,
    },
  });
  const asTestServer: TestServer = {
    url: server.url,
    dataDir,
    setupToken: new URL(server.setupUrl ?? "").searchParams.get("token"),
    logs: [],
    stop: async () => {},
  };
  org = await setupOrg(asTestServer);
  owner = org.owner;
  anon = client(server.url);
  ada = await addMember(org, ["Member"], "Ada Lovelace");
  bob = await addMember(org, ["Member"], "Bob Builder");
  vic = await addMember(org, ["Viewer"], "Vic Viewer");
  spaceId = (await owner.api.post(`${orgPath()}/spaces`, { name: "Launch" })).body.id;
  privateId = (await owner.api.post(`${orgPath()}/spaces`, { name: "Secret", private: true })).body.id;
  await owner.api.post(`${spacePath(privateId)}/members`, { user_id: ada.id });
  roomId = await generalOf(spaceId);
  privateRoomId = await generalOf(privateId);
  markerRoomId = (await owner.api.post(`${spacePath()}/chat-rooms`, { name: "markers" })).body.id;
  ownerLive = await listen(server.url, org.id, owner.token);
  adaLive = await listen(server.url, org.id, ada.token);
  adaLive2 = await listen(server.url, org.id, ada.token);
  bobLive = await listen(server.url, org.id, bob.token);
}, 60_000);

afterAll(async () => {
  for (const l of [ownerLive, adaLive, adaLive2, bobLive]) l?.close();
  await server?.stop();
  await smtp?.stop();
  push?.stop();
  gateway?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("read state: POST .../chat-rooms/{roomId}/read", () => {
  it("answers 204 with no body, and tells the reader's own sockets only `chat.read {chat_room_id, message_id}`", async () => {
    const first = await say(owner, "read me 1");
    const second = await say(owner, "read me 2");
    const res = await ada.api.post(`${roomPath()}/read`, { message_id: second.id });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    const isRead = (e: LiveEvent) => e.type === "chat.read" && e.payload.message_id === second.id;
    for (const socket of [adaLive, adaLive2]) {
      const event = await socket.next(isRead);
      expect(keys(event)).toEqual(ENVELOPE_KEYS);
      expect(event as unknown).toEqual({
        type: "chat.read",
        organization_id: org.id,
        space_id: spaceId,
        payload: { chat_room_id: roomId, message_id: second.id },
      });
    }
    await settle(ownerLive, bobLive);
    for (const other of [ownerLive, bobLive]) expect(other.events.some((e) => e.type === "chat.read")).toBe(false);
    expect((await roomOf(ada))?.last_read_message_id ?? second.id).toBe(second.id);

    // Forward only: an older message (or the same one) changes nothing and tells no one.
    const before = adaLive.events.filter((e) => e.type === "chat.read").length;
    expect((await ada.api.post(`${roomPath()}/read`, { message_id: first.id })).status).toBe(204);
    expect((await ada.api.post(`${roomPath()}/read`, { message_id: second.id })).status).toBe(204);
    const third = await say(owner, "read me 3");
    const room = await roomOf(ada);
    expect(room).toEqual({
      chat_room_id: roomId,
      space_id: spaceId,
      unread: 1,
      mentions: 0,
      last_read_message_id: second.id,
    });
    await settle(adaLive);
    expect(adaLive.events.filter((e) => e.type === "chat.read").length).toBe(before);
    await ada.api.post(`${roomPath()}/read`, { message_id: third.id });
  });

  it("lets any member who sees the room read, a Viewer too", async () => {
    const message = await say(owner, "for the viewer");
    expect((await vic.api.post(`${roomPath()}/read`, { message_id: message.id })).status).toBe(204);
  });

  it("refuses in the API's shape: 401, 404 for an invisible space, unknown room or message, 400 naming the field", async () => {
    const message = await say(owner, "refusals");
    refused(await anon.post(`${roomPath()}/read`, { message_id: message.id }), 401, "unauthorized");
    const secret = await say(owner, "secret", privateRoomId, privateId);
    refused(
      await bob.api.post(`${roomPath(privateRoomId, privateId)}/read`, { message_id: secret.id }),
      404,
      "space not found",
    );
    refused(
      await ada.api.post(`${roomPath(crypto.randomUUID())}/read`, { message_id: message.id }),
      404,
      "chat room not found",
    );
    refused(await ada.api.post(`${roomPath("nope")}/read`, { message_id: message.id }), 404, "chat room not found");
    refused(await ada.api.post(`${roomPath()}/read`, { message_id: crypto.randomUUID() }), 404, "message not found");
    // A message of another room is not one of this room.
    refused(await ada.api.post(`${roomPath()}/read`, { message_id: secret.id }), 404, "message not found");
    refused(await ada.api.post(`${roomPath()}/read`, {}), 400, "message_id: required");
    refused(
      await ada.api.post(`${roomPath()}/read`, undefined, { raw: "{", contentType: "application/json" }),
      400,
      "invalid json",
    );
  });
});

describe("unread counts: GET /api/v1/me/unread", () => {
  it("answers {rooms} with exactly the five fields, counts others' messages and mentions, never the caller's own", async () => {
    await readAll(bob);
    await say(owner, "one for bob");
    await say(bob, "bob's own words never count");
    await say(owner, "two for @Bob Builder");
    const res = await bob.api.get(me("unread"));
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(["rooms"]);
    const room = res.body.rooms.find((r: any) => r.chat_room_id === roomId);
    expect(keys(room)).toEqual(ROOM_KEYS);
    expect(room.space_id).toBe(spaceId);
    expect(room.unread).toBe(2);
    expect(room.mentions).toBe(1);
    expect(room.last_read_message_id).toMatch(UUID);
    await readAll(bob);
    // Only the caller's own messages since: nothing unread, so the room is not listed.
    await say(bob, "talking to myself");
    expect(await roomOf(bob)).toBeUndefined();
  });

  it("lists a room never read with `last_read_message_id: null`, and no room of a private space the caller cannot see", async () => {
    const room = (await owner.api.post(`${spacePath()}/chat-rooms`, { name: "fresh" })).body.id;
    await say(owner, "first words", room);
    await say(owner, "inside", privateRoomId, privateId);
    expect(await roomOf(bob, room)).toEqual({
      chat_room_id: room,
      space_id: spaceId,
      unread: 1,
      mentions: 0,
      last_read_message_id: null,
    });
    expect((await unreadOf(bob)).some((r) => r.space_id === privateId)).toBe(false);
    expect((await roomOf(ada, privateRoomId))?.unread).toBeGreaterThan(0);
  });

  it("does not count messages from before the person joined the organization", async () => {
    const room = (await owner.api.post(`${spacePath()}/chat-rooms`, { name: "history" })).body.id;
    await say(owner, "said before carl came", room);
    const carl = await addMember(org, ["Member"], "Carl Late");
    expect(await roomOf(carl, room)).toBeUndefined();
    await say(owner, "said after carl came", room);
    expect((await roomOf(carl, room))?.unread).toBe(1);
  });

  it("still counts a muted room", async () => {
    await readAll(bob);
    const put = await bob.api.put(me("notifications"), { muted_room_ids: [roomId] });
    expect(put.status).toBe(200);
    await say(owner, "muted but counted");
    expect((await roomOf(bob))?.unread).toBe(1);
    await bob.api.put(me("notifications"), { muted_room_ids: [] });
  });

  it("answers 400 `org_id: required` without org_id, 404 for an organization of someone else, 401 without a token", async () => {
    refused(await bob.api.get("/api/v1/me/unread"), 400, "org_id: required");
    refused(await bob.api.get(`/api/v1/me/unread?org_id=${crypto.randomUUID()}`), 404, "organization not found");
    refused(await anon.get(me("unread")), 401, "unauthorized");
  });
});

describe("inbox: GET /api/v1/me/inbox", () => {
  it("a chat mention is a `mention` item with exactly the fields of §10, pushed as `inbox.item` to that person's sockets only", async () => {
    const message = await say(owner, "@Ada Lovelace can you check the launch?");
    const res = await ada.api.get(me("inbox"));
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(["items", "unread"]);
    expect(Number.isInteger(res.body.unread)).toBe(true);
    const item = res.body.items.find((i: any) => i.message_id === message.id);
    expect(keys(item)).toEqual(ITEM_KEYS);
    expect(item.id).toMatch(UUID);
    expect(item.created_at).toMatch(TIMESTAMP);
    expect({ ...item, id: "", created_at: "" }).toEqual({
      id: "",
      kind: "mention",
      space_id: spaceId,
      actor_user_id: owner.id,
      chat_room_id: roomId,
      message_id: message.id,
      task_id: null,
      automation_id: null,
      proposal_id: null,
      summary: "@Ada Lovelace can you check the launch?",
      read_at: null,
      created_at: "",
    });
    for (const socket of [adaLive, adaLive2]) {
      const event = await socket.next((e) => e.type === "inbox.item" && e.payload.id === item.id);
      expect(keys(event)).toEqual(ENVELOPE_KEYS);
      expect(event as unknown).toEqual({
        type: "inbox.item",
        organization_id: org.id,
        space_id: spaceId,
        payload: item,
      });
    }
    await settle(ownerLive, bobLive);
    for (const other of [ownerLive, bobLive])
      expect(other.events.some((e) => e.type === "inbox.item" && e.payload.id === item.id)).toBe(false);
  });

  it("a task comment naming a person is a `mention` item with the task; a self-mention is nothing", async () => {
    const task = await newTask(owner, "Write the notes");
    const comment = await owner.api.post(`${spacePath()}/tasks/${task.id}/messages`, {
      content: "@Bob Builder please review, @Olivia Owner too",
    });
    expect(comment.status).toBe(201);
    const item = (await inboxOf(bob)).items.find((i) => i.message_id === comment.body.id);
    expect(item.kind).toBe("mention");
    expect(item.task_id).toBe(task.id);
    expect(item.chat_room_id).toBeNull();
    expect(item.actor_user_id).toBe(owner.id);
    expect(item.space_id).toBe(spaceId);
    expect((await inboxOf(owner)).items.some((i) => i.message_id === comment.body.id)).toBe(false);
  });

  it("`assigned` when someone else assigns a task, on create and by PATCH; never for taking it oneself", async () => {
    const created = await newTask(owner, "Ship it", { assignee_user_id: ada.id });
    const item = (await inboxOf(ada)).items.find((i) => i.task_id === created.id);
    expect(item.kind).toBe("assigned");
    expect(item.actor_user_id).toBe(owner.id);
    expect(item.summary).toBe("Ship it");
    expect(item.message_id).toBeNull();
    expect(item.chat_room_id).toBeNull();
    const later = await newTask(owner, "Later");
    await owner.api.patch(`${spacePath()}/tasks/${later.id}`, { assignee_user_id: bob.id });
    expect((await inboxOf(bob)).items.find((i) => i.task_id === later.id)?.kind).toBe("assigned");
    const mine = await newTask(bob, "Mine", { assignee_user_id: bob.id });
    const grabbed = await newTask(owner, "Grab");
    await bob.api.patch(`${spacePath()}/tasks/${grabbed.id}`, { assignee_user_id: bob.id });
    const bobs = (await inboxOf(bob)).items;
    expect(bobs.some((i) => i.task_id === mine.id || i.task_id === grabbed.id)).toBe(false);
  });

  it("`approval` for a staff-proposed automation reaches only people who can resolve it, and goes when resolved", async () => {
    const staff = await addStaff(org, { name: "Pat Proposer" });
    await owner.api.post(`${spacePath(privateId)}/members`, { user_id: staff.account.user_id });
    const created = await staff.api.post(`${spacePath(privateId)}/automations`, {
      name: "Nightly digest",
      kind: "scheduled",
      config: {},
    });
    expect(created.status).toBe(201);
    const id = created.body.automation.id;
    const approvalOf = async (who: Person) => (await inboxOf(who)).items.find((i) => i.automation_id === id);
    for (const who of [owner, ada]) {
      const item = await approvalOf(who);
      expect(item.kind).toBe("approval");
      expect(item.actor_user_id).toBe(staff.account.user_id);
      expect(item.summary).toBe("Nightly digest");
      expect(item.space_id).toBe(privateId);
      expect(item.proposal_id).toBeNull();
    }
    // Bob cannot see the private space; a Viewer cannot approve (no files.write).
    expect(await approvalOf(bob)).toBeUndefined();
    expect(await approvalOf(vic)).toBeUndefined();
    expect((await owner.api.post(`${spacePath(privateId)}/automations/${id}/approve`)).status).toBe(200);
    expect(await approvalOf(ada)).toBeUndefined();
  });

  it("`approval` for a person's own pending automation waits for the others who can approve it, not for them", async () => {
    const created = await ada.api.post(`${spacePath()}/automations`, {
      name: "Ada's idea",
      kind: "scheduled",
      status: "pending_approval",
    });
    expect(created.status).toBe(201);
    const id = created.body.automation.id;
    const has = async (who: Person) => (await inboxOf(who)).items.some((i) => i.automation_id === id);
    expect(await has(ada)).toBe(false);
    expect(await has(owner)).toBe(true);
    expect(await has(bob)).toBe(true);
    expect(await has(vic)).toBe(false);
    const item = (await inboxOf(owner)).items.find((i) => i.automation_id === id);
    expect(item.actor_user_id).toBe(ada.id);
    await ada.api.delete(`${spacePath()}/automations/${id}`);
    expect(await has(owner)).toBe(false);
  });

  it("`approval` for a file edit proposal names the proposal", async () => {
    const staff = await addStaff(org, { name: "Fay Fixer" });
    const file = await owner.api.post(`${spacePath()}/files/text`, { name: "plan.md", content: "a" });
    const proposal = await staff.api.post(`${spacePath()}/files/${file.body.node.id}/proposals`, {
      proposed_content: "b",
      note: "Fix the plan",
    });
    expect(proposal.status).toBe(201);
    const item = (await inboxOf(bob)).items.find((i) => i.proposal_id === proposal.body.proposal.id);
    expect(item.kind).toBe("approval");
    expect(item.summary).toBe("Fix the plan");
    expect(item.automation_id).toBeNull();
    expect((await inboxOf(vic)).items.some((i) => i.proposal_id === proposal.body.proposal.id)).toBe(false);
  });

  it("`staff_reply` for the person who asked staff, with the staff member as actor; no one else gets it", async () => {
    const put = await owner.api.put(`${orgPath()}/integrations/modelrouter`, { api_key: "sk-test-key" });
    expect(put.status).toBe(200);
    const staff = await addStaff(org, { name: "Sam Helper" });
    await say(bob, "@Sam Helper what is the plan?");
    let reply: any;
    const deadline = Date.now() + 20_000;
    while (!reply && Date.now() < deadline) {
      reply = (await inboxOf(bob)).items.find((i) => i.kind === "staff_reply");
      if (!reply) await Bun.sleep(50);
    }
    expect(reply).toBeDefined();
    expect(reply.actor_user_id).toBe(staff.account.user_id);
    expect(reply.chat_room_id).toBe(roomId);
    expect(reply.summary).toBe("Here is the plan.");
    const listing = await owner.api.get(`${roomPath()}/messages`);
    expect(listing.body.messages.find((m: any) => m.id === reply.message_id)?.author_user_id).toBe(
      staff.account.user_id,
    );
    expect((await inboxOf(owner)).items.some((i) => i.kind === "staff_reply")).toBe(false);
    expect((await inboxOf(ada)).items.some((i) => i.kind === "staff_reply")).toBe(false);
  }, 60_000);

  it("a muted space makes no `assigned` item, but a direct mention still arrives", async () => {
    const space = (await owner.api.post(`${orgPath()}/spaces`, { name: "Quiet" })).body.id;
    const room = await generalOf(space);
    expect((await ada.api.put(me("notifications"), { muted_space_ids: [space] })).status).toBe(200);
    const task = await newTask(owner, "Quiet work", { assignee_user_id: ada.id }, space);
    expect((await inboxOf(ada)).items.some((i) => i.task_id === task.id)).toBe(false);
    const message = await say(owner, "@Ada Lovelace still you", room, space);
    expect((await inboxOf(ada)).items.find((i) => i.message_id === message.id)?.kind).toBe("mention");
    await ada.api.put(me("notifications"), { muted_space_ids: [] });
  });

  it("lists newest first and pages with `limit` and `before`; `unread` counts every unread item, not the page's", async () => {
    const dora = await addMember(org, ["Member"], "Dora Pager");
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await say(owner, `@Dora Pager number ${i}`)).id);
    const all = await inboxOf(dora);
    expect(all.items.map((i) => i.message_id)).toEqual([...ids].reverse());
    expect(all.unread).toBe(5);
    const first = await inboxOf(dora, "&limit=2");
    expect(first.items.map((i) => i.message_id)).toEqual([ids[4], ids[3]]);
    expect(first.unread).toBe(5);
    const next = await inboxOf(dora, `&limit=2&before=${encodeURIComponent(first.items[1].created_at)}`);
    expect(next.items.map((i) => i.message_id)).toEqual([ids[2], ids[1]]);
    expect((await dora.api.get(me("inbox", "&limit=100000"))).status).toBe(200);
  });

  it("POST /me/inbox/read marks given ids (others' ignored) or all: 204; `unread_only=true` lists only unread", async () => {
    const ed = await addMember(org, ["Member"], "Ed Reader");
    const edLive = await listen(server.url, org.id, ed.token);
    try {
      const a = await say(owner, "@Ed Reader a");
      const b = await say(owner, "@Ed Reader b");
      const c = await say(owner, "@Ed Reader c");
      const items = (await inboxOf(ed)).items;
      const idOf = (m: { id: string }) => items.find((i) => i.message_id === m.id).id;
      const res = await ed.api.post("/api/v1/me/inbox/read", { org_id: org.id, ids: [idOf(b)] });
      expect(res.status).toBe(204);
      expect(res.text).toBe("");
      const event = await edLive.next((e) => e.type === "inbox.read");
      expect(event.payload).toEqual({ ids: [idOf(b)] });
      const after = await inboxOf(ed);
      expect(after.unread).toBe(2);
      expect(after.items.find((i) => i.message_id === b.id).read_at).toMatch(TIMESTAMP);
      expect((await inboxOf(ed, "&unread_only=true")).items.map((i) => i.message_id)).toEqual([c.id, a.id]);
      expect((await bob.api.post("/api/v1/me/inbox/read", { org_id: org.id, ids: [idOf(a)] })).status).toBe(204);
      expect((await inboxOf(ed)).unread).toBe(2);
      expect((await ed.api.post("/api/v1/me/inbox/read", { org_id: org.id, all: true })).status).toBe(204);
      expect(await inboxOf(ed, "&unread_only=true")).toEqual({ items: [], unread: 0 });
      // Reading items does not move a room's read position, and the room's unread mentions are gone.
      const room = await roomOf(ed);
      expect(room.last_read_message_id).toBeNull();
      expect(room.mentions).toBe(0);
      // `org_id` may come as the query parameter of every /me route too.
      const d = await say(owner, "@Ed Reader d");
      const dItem = (await inboxOf(ed)).items.find((i) => i.message_id === d.id);
      expect((await ed.api.post(`/api/v1/me/inbox/read?org_id=${org.id}`, { ids: [dItem.id] })).status).toBe(204);
      expect((await inboxOf(ed)).unread).toBe(0);
    } finally {
      edLive.close();
    }
  });

  it("refuses bad paging and reads in the API's shape, naming the field", async () => {
    refused(await ada.api.get(me("inbox", "&limit=0")), 400, "invalid limit");
    refused(await ada.api.get(me("inbox", "&limit=x")), 400, "invalid limit");
    refused(await ada.api.get(me("inbox", "&before=yesterday")), 400, "invalid before");
    refused(await ada.api.get(me("inbox", "&unread_only=yes")), 400, 'unread_only: must be one of "true", "false"');
    refused(await ada.api.get("/api/v1/me/inbox"), 400, "org_id: required");
    refused(await ada.api.get(`/api/v1/me/inbox?org_id=${crypto.randomUUID()}`), 404, "organization not found");
    refused(await anon.get(me("inbox")), 401, "unauthorized");
    const read = "/api/v1/me/inbox/read";
    refused(await ada.api.post(read, { org_id: org.id }), 400, "ids: required unless all is true");
    refused(await ada.api.post(read, { all: true }), 400, "org_id: required");
    refused(await ada.api.post(read, { org_id: crypto.randomUUID(), all: true }), 404, "organization not found");
    refused(await ada.api.post(read, { org_id: org.id, ids: ["nope"] }), 400, "ids[0]: must be a UUID");
    refused(await anon.post(read, { org_id: org.id, all: true }), 401, "unauthorized");
  });
});

describe("notification settings: GET|PUT /api/v1/me/notifications", () => {
  it("answers the defaults with exactly four fields", async () => {
    const fresh = await addMember(org, ["Member"], "Fran Fresh");
    const res = await fresh.api.get(me("notifications"));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ email: "digest", desktop: "all", muted_space_ids: [], muted_room_ids: [] });
  });

  it("PUT changes the fields given, keeps the others, and answers the settings", async () => {
    const gus = await addMember(org, ["Member"], "Gus Settings");
    const res = await gus.api.put(me("notifications"), { email: "off", muted_room_ids: [roomId] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ email: "off", desktop: "all", muted_space_ids: [], muted_room_ids: [roomId] });
    const again = await gus.api.put(me("notifications"), { desktop: "mentions" });
    expect(again.body).toEqual({ email: "off", desktop: "mentions", muted_space_ids: [], muted_room_ids: [roomId] });
    expect((await gus.api.get(me("notifications"))).body).toEqual(again.body);
    // Another person's settings are their own.
    expect((await bob.api.get(me("notifications"))).body.email).toBe("digest");
  });

  it("refuses bad values naming the field; a private space the caller cannot see is like one that does not exist", async () => {
    const put = (body: unknown) => bob.api.put(me("notifications"), body);
    refused(await put({ email: "weekly" }), 400, 'email: must be one of "off", "digest", "all"');
    refused(await put({ desktop: "loud" }), 400, 'desktop: must be one of "all", "mentions", "none"');
    refused(await put({ muted_space_ids: [privateId] }), 400, "muted_space_ids: no such space");
    refused(await put({ muted_space_ids: [crypto.randomUUID()] }), 400, "muted_space_ids: no such space");
    refused(await put({ muted_room_ids: [privateRoomId] }), 400, "muted_room_ids: no such chat room");
    refused(await put({ muted_space_ids: ["x"] }), 400, "muted_space_ids[0]: must be a UUID");
    refused(await bob.api.put("/api/v1/me/notifications", {}), 400, "org_id: required");
    refused(await anon.get(me("notifications")), 401, "unauthorized");
  });
});

describe("email", () => {
  it("GET /public/instance says email is on, and an invite that names an address is emailed with its link", async () => {
    expect((await anon.get("/api/v1/public/instance")).body.email_enabled).toBe(true);
    const invite = await owner.api.post(`${orgPath()}/invites`, { email: "hal@acme.test" });
    expect(invite.status).toBe(201);
    await eventually(() => smtp.to("hal@acme.test").length > 0, "the invite email", 10_000);
    const [email] = smtp.to("hal@acme.test");
    expect(email?.from).toContain("tandem@acme.test");
    expect(email?.text).toContain(`/invite?token=${invite.body.token}`);
    expect(server.output.join("\n")).not.toContain(smtp.password);
  });
});

describe("Web Push", () => {
  it("GET /public/push-key answers {public_key}: base64url of an uncompressed P-256 point (65 bytes), stable, no auth", async () => {
    const res = await anon.get("/api/v1/public/push-key");
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(["public_key"]);
    const key = res.body.public_key as string;
    expect(key).toMatch(/^[A-Za-z0-9_-]+$/);
    const point = Buffer.from(key, "base64url");
    expect(point.length).toBe(65);
    expect(point[0]).toBe(4);
    // On the curve: node refuses a point that is not.
    const jwk = {
      kty: "EC",
      crv: "P-256",
      x: point.subarray(1, 33).toString("base64url"),
      y: point.subarray(33).toString("base64url"),
    };
    expect(createPublicKey({ key: jwk, format: "jwk" }).asymmetricKeyType).toBe("ec");
    expect((await anon.get("/api/v1/public/push-key")).body.public_key).toBe(key);
  });

  it("POST /me/push-subscriptions answers 201 {subscription: {endpoint, expiration_time, created_at}}, never the keys", async () => {
    const browser = browserSubscription(`${push.origin}/shape`);
    const res = await bob.api.post(me("push-subscriptions"), browser.json);
    expect(res.status).toBe(201);
    expect(keys(res.body)).toEqual(["subscription"]);
    expect(keys(res.body.subscription)).toEqual(["created_at", "endpoint", "expiration_time"]);
    expect(res.body.subscription.endpoint).toBe(browser.json.endpoint);
    expect(res.body.subscription.expiration_time).toBeNull();
    expect(res.body.subscription.created_at).toMatch(TIMESTAMP);
    // DELETE takes the same PushSubscription JSON.
    const del = await bob.api.delete(me("push-subscriptions"), { body: browser.json });
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
  });

  it("refuses a bad subscription naming the field", async () => {
    const good = browserSubscription(`${push.origin}/bad`).json;
    const post = (body: unknown) => bob.api.post(me("push-subscriptions"), body);
    refused(await post({ ...good, endpoint: "http://example.com/push" }), 400, "endpoint: must be an https URL");
    refused(
      await post({ ...good, keys: { ...good.keys, p256dh: "AAAA" } }),
      400,
      "keys.p256dh: must be a P-256 public key (base64url)",
    );
    refused(
      await post({ ...good, keys: { ...good.keys, auth: "AAAA" } }),
      400,
      "keys.auth: must be 16 bytes (base64url)",
    );
    refused(await post({ keys: good.keys }), 400, "endpoint: required");
    refused(
      await bob.api.post(`/api/v1/me/push-subscriptions?org_id=${crypto.randomUUID()}`, good),
      404,
      "organization not found",
    );
    refused(await anon.post(me("push-subscriptions"), good), 401, "unauthorized");
  });

  it("pushes items per `desktop`: all, then mentions only, then none; an unsubscribed browser gets nothing", async () => {
    const ivy = await addMember(org, ["Member"], "Ivy Pushed");
    const browser = browserSubscription(`${push.origin}/ivy`);
    // The browser's PushSubscription JSON as it is, without org_id: the install's organization.
    expect((await ivy.api.post("/api/v1/me/push-subscriptions", browser.json)).status).toBe(201);
    const got = () => push.to("/ivy").map((p) => JSON.parse(browser.decrypt(p.body)));

    const first = await say(owner, "@Ivy Pushed first");
    await eventually(() => push.to("/ivy").length === 1, "the first push", 10_000);
    const [payload] = got();
    expect(keys(payload)).toEqual(["body", "item", "organization_id", "title", "type", "url"]);
    expect(payload.type).toBe("inbox.item");
    expect(payload.organization_id).toBe(org.id);
    expect(payload.body).toBe("@Ivy Pushed first");
    expect(payload.item).toEqual((await inboxOf(ivy)).items.find((i) => i.message_id === first.id));

    await ivy.api.put(me("notifications"), { desktop: "mentions" });
    await newTask(owner, "Not pushed", { assignee_user_id: ivy.id });
    await say(owner, "@Ivy Pushed second");
    await eventually(() => push.to("/ivy").length === 2, "the second push", 10_000);
    await Bun.sleep(300);
    expect(got().map((p) => p.item.kind)).toEqual(["mention", "mention"]);

    await ivy.api.put(me("notifications"), { desktop: "none" });
    await say(owner, "@Ivy Pushed third");
    await ivy.api.put(me("notifications"), { desktop: "all" });
    expect((await ivy.api.delete("/api/v1/me/push-subscriptions", { body: browser.json })).status).toBe(204);
    await say(owner, "@Ivy Pushed fourth");
    await Bun.sleep(500);
    expect(push.to("/ivy").length).toBe(2);
  });
});

describe("search: GET /api/v1/organizations/{orgId}/search", () => {
  const search = (who: Person, query: string) => who.api.get(`${orgPath()}/search?${query}`);
  const found = async (who: Person, q: string, extra = "") => {
    const res = await search(who, `q=${encodeURIComponent(q)}${extra}`);
    if (res.status !== 200) throw new Error(`search failed: ${res.status} ${res.text}`);
    return res.body.results as any[];
  };

  it("answers 400 `q: ...` for an empty, blank or missing q and for 201 characters; 200 characters search", async () => {
    refused(await search(ada, "q="), 400, "q: must not be empty");
    refused(await search(ada, "q=%20%20"), 400, "q: must not be empty");
    refused(await search(ada, ""), 400, "q: required");
    refused(await search(ada, `q=${"a".repeat(201)}`), 400, "q: must be at most 200 characters");
    expect((await search(ada, `q=${"a".repeat(200)}`)).status).toBe(200);
    // White space around q is ignored, also in counting.
    expect((await search(ada, `q=${encodeURIComponent(` ${"a".repeat(200)} `)}`)).status).toBe(200);
    refused(await anon.get(`${orgPath()}/search?q=x`), 401, "unauthorized");
    refused(
      await ada.api.get(`/api/v1/organizations/${crypto.randomUUID()}/search?q=x`),
      404,
      "organization not found",
    );
  });

  it("answers {results} with exactly the fields of each type", async () => {
    const message = await say(owner, "The quetzal flew over the launch pad");
    const task = await newTask(owner, "Quetzal survey", { description: "count birds" });
    const comment = await owner.api.post(`${spacePath()}/tasks/${task.id}/messages`, { content: "a quetzal nest" });
    const file = await owner.api.post(`${spacePath()}/files/text`, { name: "quetzal.md", content: "notes" });
    const res = await search(ada, "q=quetzal");
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(["results"]);
    const byType = Object.fromEntries(res.body.results.map((r: any) => [r.type, r]));
    const base = ["created_at", "id", "snippet", "space_id", "title", "type"];
    expect(keys(byType.message)).toEqual([...base, "chat_room_id"].sort());
    expect(byType.message).toEqual({
      type: "message",
      id: message.id,
      space_id: spaceId,
      title: "general",
      snippet: "The <mark>quetzal</mark> flew over the launch pad",
      created_at: message.created_at,
      chat_room_id: roomId,
    });
    expect(keys(byType.task)).toEqual([...base, "task_id"].sort());
    expect(byType.task.id).toBe(task.id);
    expect(byType.task.task_id).toBe(task.id);
    expect(byType.task.title).toBe("Quetzal survey");
    expect(byType.task.created_at).toBe(task.created_at);
    expect(keys(byType.task_message)).toEqual([...base, "task_id"].sort());
    expect(byType.task_message.id).toBe(comment.body.id);
    expect(byType.task_message.task_id).toBe(task.id);
    expect(byType.task_message.title).toBe("Quetzal survey");
    expect(keys(byType.file)).toEqual([...base, "file_id"].sort());
    expect(byType.file.id).toBe(file.body.node.id);
    expect(byType.file.file_id).toBe(file.body.node.id);
    expect(byType.file.title).toBe("quetzal.md");
    for (const r of res.body.results) expect(r.created_at).toMatch(TIMESTAMP);
  });

  it("matches whole words, ignoring case and accents both ways, and needs every word", async () => {
    const budget = await say(owner, "The budgetary review of the Café Zürich");
    expect((await found(ada, "budget")).some((r) => r.id === budget.id)).toBe(false);
    expect((await found(ada, "BUDGETARY")).some((r) => r.id === budget.id)).toBe(true);
    expect((await found(ada, "cafe")).some((r) => r.id === budget.id)).toBe(true);
    const plain = await say(owner, "meet at the cafe zurich");
    expect((await found(ada, "CAFÉ")).some((r) => r.id === plain.id)).toBe(true);
    expect((await found(ada, "café zürich")).map((r) => r.id)).toEqual(expect.arrayContaining([budget.id, plain.id]));
    expect((await found(ada, "cafe review")).map((r) => r.id)).toEqual([budget.id]);
    expect(await found(ada, "cafe nothingelse")).toEqual([]);
  });

  it("finds a file name by any part of 3 characters or more, and a part of 1 or 2 only whole", async () => {
    const file = await owner.api.post(`${spacePath()}/files/text`, { name: "Launch-Notes.md", content: "x" });
    const id = file.body.node.id;
    const files = async (q: string) => (await found(ada, q, "&types=file")).map((r) => r.id);
    expect(await files("aunch-no")).toContain(id);
    expect(await files("NOTES")).toContain(id);
    expect(await files("unc")).toContain(id);
    expect(await files("un")).not.toContain(id);
    const hit = (await found(ada, "aunch-no", "&types=file")).find((r) => r.id === id);
    expect(hit.snippet).toBe("L<mark>aunch-No</mark>tes.md");
  });

  it("wraps matches in <mark> and escapes every other character", async () => {
    const message = await say(owner, `<script>alert("x")</script> & the 'wombat' said <b>hi</b>`);
    const [hit] = await found(ada, "wombat");
    expect(hit.id).toBe(message.id);
    expect(hit.snippet).toBe(
      "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; the &#39;<mark>wombat</mark>&#39; said &lt;b&gt;hi&lt;/b&gt;",
    );
  });

  it("puts the best match first: a word in a title before the same word in a body", async () => {
    await say(owner, "we talked about the narwhal yesterday, along with many other things of the day");
    const task = await newTask(owner, "Narwhal");
    const results = await found(ada, "narwhal");
    expect(results.length).toBe(2);
    expect(results[0].id).toBe(task.id);
  });

  it("keeps to `types` and `space_id`; a bad type is 400 `types: ...`, an invisible space 404 `space not found`", async () => {
    await say(owner, "ocelot in public");
    await newTask(owner, "Ocelot task");
    const secret = await say(owner, "ocelot in private", privateRoomId, privateId);
    expect((await found(ada, "ocelot", "&types=message")).every((r) => r.type === "message")).toBe(true);
    expect((await found(ada, "ocelot", "&types=message,task")).length).toBe(3);
    expect((await found(ada, "ocelot", "&types=task")).map((r) => r.type)).toEqual(["task"]);
    const onlyPrivate = await found(ada, "ocelot", `&space_id=${privateId}`);
    expect(onlyPrivate.map((r) => r.id)).toEqual([secret.id]);
    refused(
      await search(ada, "q=ocelot&types=message,chat"),
      400,
      "types: must be a comma-separated list of message, task, task_message, file",
    );
    refused(await search(bob, `q=ocelot&space_id=${privateId}`), 404, "space not found");
    refused(await search(bob, `q=ocelot&space_id=${crypto.randomUUID()}`), 404, "space not found");
    refused(await search(bob, "q=ocelot&space_id=nope"), 404, "space not found");
    refused(await search(bob, "q=ocelot&limit=0"), 400, "invalid limit");
    refused(await search(bob, "q=ocelot&before=soon"), 400, "invalid before");
  });

  it("never shows a private space to a non-member", async () => {
    await say(owner, "axolotl secret words", privateRoomId, privateId);
    await newTask(owner, "Axolotl plan", {}, privateId);
    await owner.api.post(`${spacePath(privateId)}/files/text`, { name: "axolotl.md", content: "x" });
    expect(await found(bob, "axolotl")).toEqual([]);
    expect((await found(ada, "axolotl")).length).toBe(3);
  });

  it("`limit` caps the results, `before` keeps to what was created earlier", async () => {
    const older = await say(owner, "pangolin one");
    await Bun.sleep(5);
    const newer = await say(owner, "pangolin two");
    expect((await found(ada, "pangolin", "&limit=1")).length).toBe(1);
    expect((await found(ada, "pangolin", `&before=${encodeURIComponent(newer.created_at)}`)).map((r) => r.id)).toEqual([
      older.id,
    ]);
  });

  it("shows an edit or a deletion in the next search; deleted tasks and files are never found", async () => {
    const message = await say(owner, "the flamingo stands");
    expect((await found(ada, "flamingo")).map((r) => r.id)).toEqual([message.id]);
    await owner.api.patch(`${roomPath()}/messages/${message.id}`, { content: "the heron stands" });
    expect(await found(ada, "flamingo")).toEqual([]);
    expect((await found(ada, "heron")).map((r) => r.id)).toEqual([message.id]);
    await owner.api.delete(`${roomPath()}/messages/${message.id}`);
    expect(await found(ada, "heron")).toEqual([]);

    const task = await newTask(owner, "Capybara care");
    await owner.api.patch(`${spacePath()}/tasks/${task.id}`, { title: "Tapir care" });
    expect(await found(ada, "capybara")).toEqual([]);
    expect((await found(ada, "tapir")).map((r) => r.id)).toEqual([task.id]);
    await owner.api.delete(`${spacePath()}/tasks/${task.id}`);
    expect(await found(ada, "tapir")).toEqual([]);

    const file = await owner.api.post(`${spacePath()}/files/text`, { name: "manatee.md", content: "x" });
    expect((await found(ada, "manatee")).length).toBe(1);
    await owner.api.delete(`${spacePath()}/files/${file.body.node.id}`);
    expect(await found(ada, "manatee")).toEqual([]);
  });
});

describe("live directory", () => {
  const member = async (userId: string) =>
    (await owner.api.get(`${orgPath()}/members`)).body.members.find((m: any) => m.user_id === userId);

  it("`member.joined` reaches every socket of the organization, space_id null, the member as GET /members lists them", async () => {
    const jo = await addMember(org, ["Member"], "Jo Joiner");
    const listed = await member(jo.id);
    for (const socket of [ownerLive, bobLive, adaLive]) {
      const event = await socket.next((e) => e.type === "member.joined" && e.payload.user_id === jo.id);
      expect(keys(event)).toEqual(ENVELOPE_KEYS);
      expect(event as unknown).toEqual({
        type: "member.joined",
        organization_id: org.id,
        space_id: null,
        payload: listed,
      });
    }
    expect(keys(listed)).toEqual(MEMBER_KEYS);
    const staff = await addStaff(org, { name: "Kit Staff" });
    const event = await bobLive.next((e) => e.type === "member.joined" && e.payload.user_id === staff.account.user_id);
    expect(event.payload.is_service_account).toBe(true);
    expect(event.payload.display_name).toBe("Kit Staff");
  });

  it("`member.joined` also for a person added by `tandem users add` while the server runs (another process)", async () => {
    const added = await runCli(
      [
        "users",
        "add",
        "--email",
        "cli@acme.test",
        "--password",
        "cli-password",
        "--name",
        "Cleo Cli",
        "--data",
        dataDir,
      ],
      { kind: "binary" },
    );
    expect(added.code).toBe(0);
    const event = await bobLive.next((e) => e.type === "member.joined" && e.payload.email === "cli@acme.test", 15_000);
    expect(event.space_id).toBeNull();
    expect(event.payload).toEqual(await member(event.payload.user_id));
    expect(event.payload.display_name).toBe("Cleo Cli");
    await Bun.sleep(5500);
    // A tick of the watch later, every join (those made through this server too) was announced once.
    const joined = bobLive.events.filter((e) => e.type === "member.joined").map((e) => e.payload.user_id);
    expect(joined.length).toBeGreaterThan(2);
    expect(new Set(joined).size).toBe(joined.length);
  }, 30_000);

  it("`member.updated` for a new display name and new roles; `member.left` when removed", async () => {
    const lu = await addMember(org, ["Member"], "Lu Changing");
    expect((await lu.api.patch("/api/v1/me", { display_name: "Lu Changed" })).status).toBe(200);
    const renamed = await bobLive.next(
      (e) => e.type === "member.updated" && e.payload.user_id === lu.id && e.payload.display_name === "Lu Changed",
    );
    expect(renamed.space_id).toBeNull();
    expect(renamed.payload).toEqual(await member(lu.id));
    await owner.api.put(`${orgPath()}/members/${lu.id}/roles`, { role_ids: [org.roles.Viewer] });
    const roles = await adaLive.next(
      (e) =>
        e.type === "member.updated" &&
        e.payload.user_id === lu.id &&
        e.payload.role_ids.length === 1 &&
        e.payload.role_ids[0] === org.roles.Viewer,
    );
    expect(roles.payload).toEqual(await member(lu.id));
    const before = await member(lu.id);
    expect((await owner.api.delete(`${orgPath()}/members/${lu.id}`)).status).toBe(204);
    const left = await bobLive.next((e) => e.type === "member.left" && e.payload.user_id === lu.id);
    expect(left as unknown).toEqual({ type: "member.left", organization_id: org.id, space_id: null, payload: before });
  });

  it("`space.created` of a public space reaches every member; of a private one only its members", async () => {
    const open = await ada.api.post(`${orgPath()}/spaces`, { name: "Open plan" });
    expect(open.status).toBe(201);
    for (const socket of [ownerLive, bobLive, adaLive]) {
      const event = await socket.next((e) => e.type === "space.created" && e.payload.id === open.body.id);
      expect(event as unknown).toEqual({
        type: "space.created",
        organization_id: org.id,
        space_id: open.body.id,
        payload: (await owner.api.get(`${orgPath()}/spaces/${open.body.id}`)).body,
      });
    }
    const hidden = await ada.api.post(`${orgPath()}/spaces`, { name: "Hidden plan", private: true });
    expect(hidden.status).toBe(201);
    // Ada (its creator and member) and the owner (org.manage) hear of it; Bob does not.
    await adaLive.next((e) => e.type === "space.created" && e.payload.id === hidden.body.id);
    await ownerLive.next((e) => e.type === "space.created" && e.payload.id === hidden.body.id);
    await settle(bobLive);
    expect(bobLive.events.some((e) => e.type === "space.created" && e.payload.id === hidden.body.id)).toBe(false);
  });
});

describe("a person whose signup awaits approval", () => {
  it("gets 403 `signup pending approval` from the /me routes of §10 and from search", async () => {
    expect((await owner.api.patch(orgPath(), { open_signups_enabled: true })).status).toBe(200);
    const reg = await anon.post("/api/v1/auth/register", {
      email: "pending@acme.test",
      password: "pending-password",
      display_name: "Pat Pending",
    });
    expect(reg.status).toBe(201);
    const pending = client(server.url, reg.body.access_token);
    for (const path of ["unread", "inbox", "notifications"])
      refused(await pending.get(me(path)), 403, "signup pending approval");
    refused(await pending.post("/api/v1/me/inbox/read", { org_id: org.id, all: true }), 403, "signup pending approval");
    refused(
      await pending.post("/api/v1/me/push-subscriptions", browserSubscription(`${push.origin}/p`).json),
      403,
      "signup pending approval",
    );
    refused(await pending.get(`${orgPath()}/search?q=x`), 403, "signup pending approval");
    await owner.api.patch(orgPath(), { open_signups_enabled: false });
  });
});

describe("email digest (source server: its clock can move ten minutes)", () => {
  let source: TestServer;
  let digestSmtp: FakeSmtp;
  beforeAll(async () => {
    digestSmtp = await startFakeSmtp();
    source = await startTestServer({
      env: { TANDEM_SMTP_URL: digestSmtp.url, TANDEM_SMTP_FROM: "Tandem <tandem@acme.test>" },
      email: { sweepMs: 50 },
    });
  });
  afterAll(async () => {
    setSystemTime();
    await source?.stop();
    await digestSmtp?.stop();
  });

  it("sends the items left unread for 10 minutes as one digest per person; nothing before, nothing read", async () => {
    const o = await setupOrg(source);
    const mo = await addMember(o, ["Member"], "Mo Digest");
    const spaceOf = (await o.owner.api.post(`/api/v1/organizations/${o.id}/spaces`, { name: "Mail" })).body.id;
    const rooms = await o.owner.api.get(`/api/v1/organizations/${o.id}/spaces/${spaceOf}/chat-rooms`);
    const path = `/api/v1/organizations/${o.id}/spaces/${spaceOf}/chat-rooms/${rooms.body.chat_rooms[0].id}/messages`;
    const notices = () => digestSmtp.to(mo.email).filter((e) => !e.subject.includes(" invited you to "));
    await o.owner.api.post(path, { content: "@Mo Digest first" });
    await o.owner.api.post(path, { content: "@Mo Digest second" });
    const third = await o.owner.api.post(path, { content: "@Mo Digest third, read in the app" });
    const items = (await mo.api.get(`/api/v1/me/inbox?org_id=${o.id}`)).body.items;
    const thirdItem = items.find((i: any) => i.message_id === third.body.message.id);
    await mo.api.post("/api/v1/me/inbox/read", { org_id: o.id, ids: [thirdItem.id] });
    await Bun.sleep(300);
    expect(notices()).toEqual([]);
    setSystemTime(new Date(Date.now() + 11 * 60 * 1000));
    try {
      const until = performance.now() + 5000;
      while (notices().length === 0 && performance.now() < until) await Bun.sleep(20);
      await Bun.sleep(300);
    } finally {
      setSystemTime();
    }
    const sent = notices();
    expect(sent.length).toBe(1);
    expect(sent[0]?.text).toContain("@Mo Digest first");
    expect(sent[0]?.text).toContain("@Mo Digest second");
    expect(sent[0]?.text).not.toContain("read in the app");
    // Emailing reads nothing.
    expect((await mo.api.get(`/api/v1/me/inbox?org_id=${o.id}`)).body.unread).toBe(2);
  });
});

describe("a restart", () => {
  it("keeps the VAPID key (generated into the data dir once), read state and the inbox", async () => {
    const key = (await anon.get("/api/v1/public/push-key")).body.public_key;
    const inboxBefore = await inboxOf(ada);
    const unreadBefore = await unreadOf(ada);
    for (const l of [ownerLive, adaLive, adaLive2, bobLive]) l.close();
    expect(await server.stop()).toBe(0);
    server = await spawnServer({ kind: "binary", dataDir });
    const again = client(server.url);
    expect((await again.get("/api/v1/public/push-key")).body.public_key).toBe(key);
    const login = await again.post("/api/v1/auth/login", { email: ada.email, password: ada.password });
    const adaAgain = client(server.url, login.body.access_token);
    expect((await adaAgain.get(me("inbox"))).body).toEqual(inboxBefore);
    expect((await adaAgain.get(me("unread"))).body.rooms).toEqual(unreadBefore);
  });
});
