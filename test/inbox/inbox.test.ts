/**
 * The inbox (contract §10): `GET /me/inbox` and `POST /me/inbox/read`, and the items the domain events make:
 * mentions in chat and task comments, assignments, staff answers, approvals waiting. Nothing a person did
 * themselves becomes their item; a private space never shows through; an item's subject deleted takes it along;
 * a restart loses nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { rmSync } from "node:fs";
import { addMember, addStaff, setupOrg } from "../helpers/factories";
import { completion, type FakeProvider, startFakeProvider } from "../helpers/fake-providers";
import { client, TIMESTAMP, UUID } from "../helpers/http";
import { ON_POSTGRES } from "../helpers/postgres";
import { startTestServer, tempDir } from "../helpers/server";
import { listen } from "../helpers/sockets";
import { ITEM_KEYS, inbox, roomPath, say, spacePath, startWorld, type World } from "./world";

let w: World;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(() => w.server.stop());

const itemAbout = async (who: World["ada"], messageId: string) =>
  (await inbox(w, who)).items.find((i) => i.message_id === messageId);

async function newTask(title: string, assignee?: string, as = w.owner, spaceId = w.spaceId) {
  const board = await as.api.get(`${spacePath(w, spaceId)}/board`);
  const res = await as.api.post(`${spacePath(w, spaceId)}/tasks`, {
    title,
    column_id: board.body.columns[0].id,
    ...(assignee ? { assignee_user_id: assignee } : {}),
  });
  if (res.status !== 201) throw new Error(`task failed: ${res.status} ${res.text}`);
  return res.body;
}

describe("mention items", () => {
  it("a chat message naming a person gives them a `mention` item, with exactly the fields of §10", async () => {
    const message = await say(w, w.owner, "@Ada Lovelace can you  check\nthe launch?");
    const { items, unread } = await inbox(w, w.ada);
    const item = items.find((i) => i.message_id === message.id);
    expect(Object.keys(item).sort()).toEqual(ITEM_KEYS);
    expect(item.id).toMatch(UUID);
    expect(item.created_at).toMatch(TIMESTAMP);
    expect({ ...item, id: "", created_at: "" }).toEqual({
      id: "",
      kind: "mention",
      space_id: w.spaceId,
      actor_user_id: w.owner.id,
      chat_room_id: w.roomId,
      message_id: message.id,
      task_id: null,
      automation_id: null,
      proposal_id: null,
      summary: "@Ada Lovelace can you check the launch?",
      read_at: null,
      created_at: "",
    });
    expect(unread).toBeGreaterThanOrEqual(1);
    // Bob was not named.
    expect(await itemAbout(w.bob, message.id)).toBeUndefined();
  });

  it("naming by id (`<@userId>`) is a mention too; the writer's own name makes them nothing", async () => {
    const byId = await say(w, w.bob, `<@${w.ada.id}> and @Bob Builder`);
    expect((await itemAbout(w.ada, byId.id))?.kind).toBe("mention");
    expect(await itemAbout(w.bob, byId.id)).toBeUndefined();
  });

  it("a task comment naming a person gives them a `mention` item with the task", async () => {
    const task = await newTask("Write the notes");
    const res = await w.owner.api.post(`${spacePath(w)}/tasks/${task.id}/messages`, {
      content: "@Bob Builder please review",
    });
    const item = await itemAbout(w.bob, res.body.id);
    expect(item).toMatchObject({ kind: "mention", task_id: task.id, chat_room_id: null, actor_user_id: w.owner.id });
  });

  it("a mention in a private space reaches only those who see it", async () => {
    const message = await say(w, w.owner, "@Bob Builder @Ada Lovelace secret", w.privateRoomId, w.privateId);
    expect(await itemAbout(w.bob, message.id)).toBeUndefined();
    expect((await itemAbout(w.ada, message.id))?.space_id).toBe(w.privateId);
  });

  it("an edit made before the item was written changes nothing: the mention is the post's", async () => {
    // The items of a post are written after it, in a batch: an edit at once comes before that batch.
    const added = await say(w, w.owner, "no one named yet");
    expect((await w.owner.api.patch(`${roomPath(w)}/messages/${added.id}`, { content: "@Ada Lovelace" })).status).toBe(
      200,
    );
    const removed = await say(w, w.owner, "@Ada Lovelace named, then not");
    expect((await w.owner.api.patch(`${roomPath(w)}/messages/${removed.id}`, { content: "no one" })).status).toBe(200);
    expect(await itemAbout(w.ada, added.id)).toBeUndefined();
    expect((await itemAbout(w.ada, removed.id))?.summary).toBe("@Ada Lovelace named, then not");
  });

  it("pushes `inbox.item` to that person's sockets only", async () => {
    const adaLive = await listen(w.server.url, w.org.id, w.ada.token);
    const bobLive = await listen(w.server.url, w.org.id, w.bob.token);
    const ownerLive = await listen(w.server.url, w.org.id, w.owner.token);
    try {
      const message = await say(w, w.owner, "ping @Ada Lovelace");
      const event = await adaLive.next((e) => e.type === "inbox.item" && e.payload.message_id === message.id);
      expect(event).toEqual({
        type: "inbox.item",
        organization_id: w.org.id,
        space_id: w.spaceId,
        payload: await itemAbout(w.ada, message.id),
      });
      await say(w, w.owner, "marker");
      for (const other of [bobLive, ownerLive]) {
        await other.next((e) => e.type === "chat.message.created" && e.payload.message.content === "marker");
        expect(other.events.some((e) => e.type === "inbox.item")).toBe(false);
      }
    } finally {
      for (const s of [adaLive, bobLive, ownerLive]) s.close();
    }
  });
});

describe("assigned items", () => {
  it("a task assigned by someone else gives the assignee an `assigned` item, on create and on reassignment", async () => {
    const created = await newTask("Ship it", w.ada.id);
    const item = (await inbox(w, w.ada)).items.find((i) => i.task_id === created.id);
    expect(item).toMatchObject({ kind: "assigned", actor_user_id: w.owner.id, summary: "Ship it", message_id: null });
    const later = await newTask("Later");
    await w.owner.api.patch(`${spacePath(w)}/tasks/${later.id}`, { assignee_user_id: w.bob.id });
    expect((await inbox(w, w.bob)).items.find((i) => i.task_id === later.id)?.kind).toBe("assigned");
  });

  it("taking a task oneself makes no item", async () => {
    const mine = await newTask("Mine", w.bob.id, w.bob);
    const other = await newTask("Grab", undefined, w.owner);
    await w.bob.api.patch(`${spacePath(w)}/tasks/${other.id}`, { assignee_user_id: w.bob.id });
    const items = (await inbox(w, w.bob)).items;
    expect(items.some((i) => i.task_id === mine.id || i.task_id === other.id)).toBe(false);
  });
});

describe("approval items", () => {
  it("an automation staff propose waits in the inbox of each person who may approve it, until it is resolved", async () => {
    const staff = await addStaff(w.org);
    const viewer = await addMember(w.org, ["Viewer"], "Vera Viewer");
    const created = await staff.api.post(`${spacePath(w)}/automations`, {
      name: "Nightly digest",
      kind: "scheduled",
      config: {},
    });
    expect(created.status).toBe(201);
    const id = created.body.automation.id;
    const approvalOf = async (who: World["ada"]) => (await inbox(w, who)).items.find((i) => i.automation_id === id);
    for (const who of [w.owner, w.ada, w.bob]) {
      expect(await approvalOf(who)).toMatchObject({
        kind: "approval",
        actor_user_id: staff.account.user_id,
        summary: "Nightly digest",
        space_id: w.spaceId,
      });
    }
    // A Viewer cannot approve (no files.write): nothing waits for them.
    expect(await approvalOf(viewer)).toBeUndefined();
    // Edited while it waits: still one item each.
    await staff.api.patch(`${spacePath(w)}/automations/${id}`, { name: "Nightly digest v2" });
    expect((await inbox(w, w.ada)).items.filter((i) => i.automation_id === id).length).toBe(1);
    const approve = await w.owner.api.post(`${spacePath(w)}/automations/${id}/approve`);
    expect(approve.status).toBe(200);
    for (const who of [w.owner, w.ada, w.bob]) expect(await approvalOf(who)).toBeUndefined();
  });

  it("a person's own pending automation waits for the others, not for them", async () => {
    const created = await w.ada.api.post(`${spacePath(w)}/automations`, {
      name: "Ada's idea",
      kind: "scheduled",
      status: "pending_approval",
    });
    const id = created.body.automation.id;
    expect((await inbox(w, w.ada)).items.some((i) => i.automation_id === id)).toBe(false);
    expect((await inbox(w, w.owner)).items.find((i) => i.automation_id === id)?.actor_user_id).toBe(w.ada.id);
    await w.ada.api.delete(`${spacePath(w)}/automations/${id}`);
    expect((await inbox(w, w.owner)).items.some((i) => i.automation_id === id)).toBe(false);
  });

  it("a file edit proposal waits for those who may accept it, in a private space only for its members", async () => {
    const staff = await addStaff(w.org);
    await w.owner.api.post(`${spacePath(w, w.privateId)}/members`, { user_id: staff.account.user_id });
    const file = await w.owner.api.post(`${spacePath(w, w.privateId)}/files/text`, { name: "plan.md", content: "a" });
    const proposal = await staff.api.post(`${spacePath(w, w.privateId)}/files/${file.body.node.id}/proposals`, {
      proposed_content: "b",
      note: "Fix the plan",
    });
    expect(proposal.status).toBe(201);
    const id = proposal.body.proposal.id;
    const waiting = async (who: World["ada"]) => (await inbox(w, who)).items.find((i) => i.proposal_id === id);
    expect(await waiting(w.ada)).toMatchObject({ kind: "approval", summary: "Fix the plan", space_id: w.privateId });
    expect(await waiting(w.owner)).toBeDefined();
    expect(await waiting(w.bob)).toBeUndefined();
    await w.ada.api.post(`${spacePath(w, w.privateId)}/files/proposals/${id}/reject`);
    expect(await waiting(w.ada)).toBeUndefined();
    expect(await waiting(w.owner)).toBeUndefined();
  });
});

describe("GET /api/v1/me/inbox", () => {
  it("lists newest first and pages with `limit` and `before`; `unread` counts every unread item", async () => {
    const carl = await addMember(w.org, ["Member"], "Carl Pager");
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await say(w, w.owner, `@Carl Pager number ${i}`)).id);
    const all = await inbox(w, carl);
    expect(all.items.map((i) => i.message_id)).toEqual([...ids].reverse());
    expect(all.unread).toBe(5);
    const first = await inbox(w, carl, "&limit=2");
    expect(first.items.map((i) => i.message_id)).toEqual([ids[4], ids[3]]);
    expect(first.unread).toBe(5);
    const next = await inbox(w, carl, `&limit=2&before=${encodeURIComponent(first.items[1].created_at)}`);
    expect(next.items.map((i) => i.message_id)).toEqual([ids[2], ids[1]]);
  });

  it("`unread_only=true` lists only unread items; POST /me/inbox/read marks given ids, or all", async () => {
    const dora = await addMember(w.org, ["Member"], "Dora Reader");
    const a = await say(w, w.owner, "@Dora Reader a");
    const b = await say(w, w.owner, "@Dora Reader b");
    const c = await say(w, w.owner, "@Dora Reader c");
    const items = (await inbox(w, dora)).items;
    const idOf = (m: { id: string }) => items.find((i) => i.message_id === m.id).id;
    const res = await dora.api.post("/api/v1/me/inbox/read", { org_id: w.org.id, ids: [idOf(b)] });
    expect(res.status).toBe(204);
    const after = await inbox(w, dora);
    expect(after.unread).toBe(2);
    expect(after.items.find((i) => i.message_id === b.id).read_at).toMatch(TIMESTAMP);
    const unreadOnly = await inbox(w, dora, "&unread_only=true");
    expect(unreadOnly.items.map((i) => i.message_id)).toEqual([c.id, a.id]);
    // Someone else's item id changes nothing.
    await w.bob.api.post("/api/v1/me/inbox/read", { org_id: w.org.id, ids: [idOf(a)] });
    expect((await inbox(w, dora)).unread).toBe(2);
    expect((await dora.api.post("/api/v1/me/inbox/read", { org_id: w.org.id, all: true })).status).toBe(204);
    const none = await inbox(w, dora, "&unread_only=true");
    expect(none).toEqual({ items: [], unread: 0 });
  });

  it("answers 400 for a bad limit, before or unread_only, or a read with neither ids nor all", async () => {
    const bad = async (query: string) => (await w.ada.api.get(`/api/v1/me/inbox?org_id=${w.org.id}${query}`)).body;
    expect(await bad("&limit=0")).toEqual({ error: "invalid limit" });
    expect(await bad("&limit=x")).toEqual({ error: "invalid limit" });
    expect(await bad("&before=yesterday")).toEqual({ error: "invalid before" });
    expect(await bad("&unread_only=yes")).toEqual({ error: 'unread_only: must be one of "true", "false"' });
    const neither = await w.ada.api.post("/api/v1/me/inbox/read", { org_id: w.org.id });
    expect(neither.status).toBe(400);
    expect(neither.body).toEqual({ error: "ids: required unless all is true" });
    const noOrg = await w.ada.api.post("/api/v1/me/inbox/read", { all: true });
    expect(noOrg.status).toBe(400);
    expect(noOrg.body).toEqual({ error: "org_id: required" });
    const otherOrg = await w.ada.api.post("/api/v1/me/inbox/read", { org_id: crypto.randomUUID(), all: true });
    expect(otherOrg.status).toBe(404);
    expect(otherOrg.body).toEqual({ error: "organization not found" });
    const badId = await w.ada.api.post("/api/v1/me/inbox/read", { org_id: w.org.id, ids: ["nope"] });
    expect(badId.status).toBe(400);
    expect(badId.body).toEqual({ error: "ids[0]: must be a UUID" });
  });

  it("above 200, limit means 200", async () => {
    const res = await w.ada.api.get(`/api/v1/me/inbox?org_id=${w.org.id}&limit=100000000000000000000`);
    expect(res.status).toBe(200);
  });
});

describe("private spaces never leak", () => {
  it("items of a space the person can no longer see are neither listed nor counted, and come back with access", async () => {
    const eve = await addMember(w.org, ["Member"], "Eve Private");
    await w.owner.api.post(`${spacePath(w, w.privateId)}/members`, { user_id: eve.id });
    const message = await say(w, w.owner, "@Eve Private inside", w.privateRoomId, w.privateId);
    expect((await inbox(w, eve)).items.some((i) => i.message_id === message.id)).toBe(true);
    expect((await inbox(w, eve)).unread).toBe(1);
    await w.owner.api.delete(`${spacePath(w, w.privateId)}/members/${eve.id}`);
    expect(await inbox(w, eve)).toEqual({ items: [], unread: 0 });
    await w.owner.api.post(`${spacePath(w, w.privateId)}/members`, { user_id: eve.id });
    expect((await inbox(w, eve)).unread).toBe(1);
  });
});

describe("when the subject goes", () => {
  it("a deleted message takes its items along", async () => {
    const message = await say(w, w.owner, "@Ada Lovelace soon gone");
    expect(await itemAbout(w.ada, message.id)).toBeDefined();
    await w.owner.api.delete(`${roomPath(w)}/messages/${message.id}`);
    expect(await itemAbout(w.ada, message.id)).toBeUndefined();
  });

  it("a message deleted at once leaves no item (on SQLite, whose items come after the post, none is pushed)", async () => {
    const live = await listen(w.server.url, w.org.id, w.ada.token);
    try {
      // Deleted at once: its item, written after the post in a batch, is not written at all. (On PostgreSQL a post's
      // items are written in its own transaction: the item came, and went with the message.)
      const message = await say(w, w.owner, "@Ada Lovelace oops, wrong person");
      expect((await w.owner.api.delete(`${roomPath(w)}/messages/${message.id}`)).status).toBe(204);
      await say(w, w.owner, "@Ada Lovelace the right one");
      await live.next((e) => e.type === "inbox.item" && e.payload.summary === "@Ada Lovelace the right one");
      const pushed = live.events.some((e) => e.type === "inbox.item" && e.payload.message_id === message.id);
      expect(pushed).toBe(ON_POSTGRES);
      expect(await itemAbout(w.ada, message.id)).toBeUndefined();
    } finally {
      live.close();
    }
  });

  it("a deleted task takes its assignment and comment mentions along", async () => {
    const task = await newTask("Doomed", w.ada.id);
    const comment = await w.owner.api.post(`${spacePath(w)}/tasks/${task.id}/messages`, {
      content: "@Ada Lovelace hi",
    });
    expect((await inbox(w, w.ada)).items.filter((i) => i.task_id === task.id).length).toBe(2);
    await w.owner.api.delete(`${spacePath(w)}/tasks/${task.id}`);
    expect((await inbox(w, w.ada)).items.some((i) => i.task_id === task.id || i.message_id === comment.body.id)).toBe(
      false,
    );
  });

  it("a deleted room takes its items and unread counts along", async () => {
    const room = (await w.owner.api.post(`${spacePath(w)}/chat-rooms`, { name: "short-lived" })).body.id;
    await say(w, w.owner, "@Ada Lovelace here", room);
    expect((await inbox(w, w.ada)).items.some((i) => i.chat_room_id === room)).toBe(true);
    await w.owner.api.delete(`${spacePath(w)}/chat-rooms/${room}`);
    expect((await inbox(w, w.ada)).items.some((i) => i.chat_room_id === room)).toBe(false);
    const rooms = (await w.ada.api.get(`/api/v1/me/unread?org_id=${w.org.id}`)).body.rooms;
    expect(rooms.some((r: { chat_room_id: string }) => r.chat_room_id === room)).toBe(false);
  });

  it("a member removed loses their items; their organization answers 404", async () => {
    const finn = await addMember(w.org, ["Member"], "Finn Leaving");
    await say(w, w.owner, "@Finn Leaving bye");
    expect((await inbox(w, finn)).unread).toBe(1);
    await w.owner.api.delete(`/api/v1/organizations/${w.org.id}/members/${finn.id}`);
    const res = await finn.api.get(`/api/v1/me/inbox?org_id=${w.org.id}`);
    expect(res.status).toBe(404);
  });
});

describe("staff_reply items", () => {
  let fake: FakeProvider;
  let s: { server: Awaited<ReturnType<typeof startTestServer>>; org: Awaited<ReturnType<typeof setupOrg>> };
  beforeAll(async () => {
    fake = startFakeProvider(() => completion("Here is the answer."));
    const server = await startTestServer({
      env: { MODELROUTER_API_BASE_URL: `${fake.origin}/api/v1` },
      jobs: { reply: { timeScale: 0.001 } },
    });
    const org = await setupOrg(server);
    await org.owner.api.put(`/api/v1/organizations/${org.id}/integrations/modelrouter`, { api_key: "sk-test-key" });
    s = { server, org };
  });
  afterAll(async () => {
    await s.server.stop();
    fake.stop();
  });

  it("the person who asked staff gets a `staff_reply` item for the answer; no one else does", async () => {
    const { org } = s;
    const asker = await addMember(org, ["Member"], "Gina Asker");
    const staff = await addStaff(org, { name: "Ada Bot" });
    const spaceId = (await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Q" })).body.id;
    const rooms = await org.owner.api.get(`/api/v1/organizations/${org.id}/spaces/${spaceId}/chat-rooms`);
    const path = `/api/v1/organizations/${org.id}/spaces/${spaceId}/chat-rooms/${rooms.body.chat_rooms[0].id}`;
    await asker.api.post(`${path}/messages`, { content: "@Ada Bot what is the plan?" });
    const items = async (who: { api: typeof asker.api }) =>
      (await who.api.get(`/api/v1/me/inbox?org_id=${org.id}`)).body.items as any[];
    let reply: any;
    const deadline = Date.now() + 10_000;
    while (!reply && Date.now() < deadline) {
      reply = (await items(asker)).find((i) => i.kind === "staff_reply");
      if (!reply) await Bun.sleep(20);
    }
    expect(reply).toMatchObject({
      kind: "staff_reply",
      actor_user_id: staff.account.user_id,
      chat_room_id: rooms.body.chat_rooms[0].id,
      summary: "Here is the answer.",
      space_id: spaceId,
    });
    const listing = await org.owner.api.get(`${path}/messages`);
    expect(listing.body.messages.at(-1).id).toBe(reply.message_id);
    expect((await items(org.owner)).some((i) => i.kind === "staff_reply")).toBe(false);
  });
});

describe("a restart", () => {
  it("loses no item nor its read state", async () => {
    const dataDir = tempDir();
    const server = await startTestServer({ dataDir });
    try {
      const org = await setupOrg(server);
      const ada = await addMember(org, ["Member"], "Ada Kept");
      const spaceId = (await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "K" })).body.id;
      const rooms = await org.owner.api.get(`/api/v1/organizations/${org.id}/spaces/${spaceId}/chat-rooms`);
      const path = `/api/v1/organizations/${org.id}/spaces/${spaceId}/chat-rooms/${rooms.body.chat_rooms[0].id}`;
      await org.owner.api.post(`${path}/messages`, { content: "@Ada Kept one" });
      await org.owner.api.post(`${path}/messages`, { content: "@Ada Kept two" });
      const before = (await ada.api.get(`/api/v1/me/inbox?org_id=${org.id}`)).body;
      await ada.api.post("/api/v1/me/inbox/read", { org_id: org.id, ids: [before.items[0].id] });
      const read = (await ada.api.get(`/api/v1/me/inbox?org_id=${org.id}`)).body;
      await server.stop();
      const again = await startTestServer({ dataDir });
      try {
        const login = await client(again.url).post("/api/v1/auth/login", { email: ada.email, password: ada.password });
        const res = await client(again.url, login.body.access_token).get(`/api/v1/me/inbox?org_id=${org.id}`);
        expect(res.body).toEqual(read);
        expect(res.body.unread).toBe(1);
      } finally {
        await again.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
