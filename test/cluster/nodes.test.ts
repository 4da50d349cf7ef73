/**
 * Several `tandem serve` processes on one PostgreSQL database (contract §9): each answers every route, and a
 * client of one sees what was written through another, live: events, editing, access changes; and who is in a
 * file on another node, with their cursor, until they leave, whether they close their editor, their node stops,
 * or their node dies. A socket still speaks only for its own editors, whichever node holds the editor it names.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { nodeCluster } from "../helpers/cluster";
import { OWNER } from "../helpers/factories";
import { client } from "../helpers/http";
import type { SpawnedServer } from "../helpers/server";
import { awarenessFrame, collabBase, type Editor, eventually, listen, openEditor, openRaw } from "../helpers/sockets";

const install = nodeCluster("nodes");

let a: SpawnedServer;
let b: SpawnedServer;
let orgId = "";
let spaceId = "";
let tokenA = "";

beforeAll(async () => {
  a = await install.start();
  b = await install.start();
  const org = await install.setup(a);
  orgId = org.id;
  tokenA = org.owner.token;
  const space = await client(a.url, tokenA).post(`/api/v1/organizations/${orgId}/spaces`, { name: "Launch" });
  expect(space.status).toBe(201);
  spaceId = space.body.id;
}, 60_000);

afterAll(() => install.stop());

describe("two nodes on one PostgreSQL database", () => {
  it("signs in through either node, and a token of one is good on the other", async () => {
    const login = await client(b.url).post("/api/v1/auth/login", { email: OWNER.email, password: OWNER.password });
    expect(login.status).toBe(200);
    const me = await client(a.url, login.body.access_token).get("/api/v1/me");
    expect(me.status).toBe(200);
    expect((await client(b.url, tokenA).get("/api/v1/me")).status).toBe(200);
  });

  it("shows a chat message posted through one node live on the other's sockets", async () => {
    const api = client(b.url, tokenA);
    const rooms = await api.get(`/api/v1/organizations/${orgId}/spaces/${spaceId}/chat-rooms`);
    const roomId = rooms.body.chat_rooms[0].id;
    const listener = await listen(a.url, orgId, tokenA);
    try {
      const posted = await api.post(`/api/v1/organizations/${orgId}/spaces/${spaceId}/chat-rooms/${roomId}/messages`, {
        content: "posted through b",
      });
      expect(posted.status).toBe(201);

      const event = await listener.next(
        (e) => e.type === "chat.message.created" && e.payload.message.id === posted.body.message.id,
      );
      expect(event.space_id).toBe(spaceId);
      // And node a reads it at once.
      const page = await client(a.url, tokenA).get(
        `/api/v1/organizations/${orgId}/spaces/${spaceId}/chat-rooms/${roomId}/messages`,
      );
      expect(page.body.messages.map((m: { id: string }) => m.id)).toContain(posted.body.message.id);
    } finally {
      listener.close();
    }
  });

  it("keeps a board's order right when tasks move through both nodes", async () => {
    const tasks = `/api/v1/organizations/${orgId}/spaces/${spaceId}/tasks`;
    const board = await client(a.url, tokenA).get(`/api/v1/organizations/${orgId}/spaces/${spaceId}/board`);
    const columnId = board.body.columns[0].id;
    const made: string[] = [];
    for (const [i, server] of [a, b, a, b].entries()) {
      const res = await client(server.url, tokenA).post(tasks, { title: `task ${i}`, column_id: columnId });
      expect(res.status).toBe(201);
      made.push(res.body.id);
    }
    // Move the last to the top through a, then the first to the top through b.
    const first = await client(a.url, tokenA).patch(`${tasks}/${made[3]}`, { position: 0 });
    expect(first.status).toBe(200);
    const second = await client(b.url, tokenA).patch(`${tasks}/${made[0]}`, { position: 0 });
    expect(second.status).toBe(200);
    const expected = [made[0], made[3], made[1], made[2]];
    for (const server of [a, b]) {
      const list = await client(server.url, tokenA).get(tasks);
      const order = list.body.tasks
        .filter((t: { column_id: string }) => t.column_id === columnId)
        .sort((x: { position: number }, y: { position: number }) => x.position - y.position)
        .map((t: { id: string }) => t.id);
      expect(order).toEqual(expected);
    }
  });

  it("lets two people edit one file through two nodes, and both converge", async () => {
    const file = await client(a.url, tokenA).post(`/api/v1/organizations/${orgId}/spaces/${spaceId}/files/text`, {
      name: "plan.md",
      content: "start",
    });
    expect(file.status).toBe(201);
    const fileId = file.body.node.id;
    const onA = openEditor(collabBase(a.url, orgId, spaceId), fileId, tokenA);
    const onB = openEditor(collabBase(b.url, orgId, spaceId), fileId, tokenA);
    try {
      await Promise.all([onA.synced(), onB.synced()]);
      onA.insert(0, "A ");
      onB.insert(onB.text().length, " B");
      await eventually(
        () => onA.text() === onB.text() && onA.text().includes("A ") && onA.text().includes(" B"),
        "convergence",
      );
      expect(onA.text()).toBe("A start B");
      // The text every REST reader sees, through either node.
      for (const server of [a, b]) {
        const content = await client(server.url, tokenA).get(
          `/api/v1/organizations/${orgId}/spaces/${spaceId}/files/${fileId}/content`,
        );
        expect(content.text).toBe("A start B");
      }
    } finally {
      onA.destroy();
      onB.destroy();
    }
  });

  it("ends a removed member's access on every node within moments", async () => {
    const invite = await client(a.url, tokenA).post(`/api/v1/organizations/${orgId}/invites`, {
      email: "ben@acme.test",
    });
    expect(invite.status).toBe(201);
    const accepted = await client(b.url).post("/api/v1/auth/accept-invite", {
      token: invite.body.token,
      email: "ben@acme.test",
      password: "ben-password-1",
      display_name: "Ben",
    });
    expect(accepted.status).toBe(201);
    const ben = client(a.url, accepted.body.access_token);
    const benId = (await ben.get("/api/v1/me")).body.user.id;
    expect((await ben.get(`/api/v1/organizations/${orgId}/spaces`)).status).toBe(200);
    const removed = await client(b.url, tokenA).delete(`/api/v1/organizations/${orgId}/members/${benId}`);
    expect(removed.status).toBe(204);
    // Node a hears of it by the notification of b's commit, which can reach it a few milliseconds after b
    // answered (on a loaded machine, after a request sent at once): within moments, never a second later.
    const started = Date.now();
    let after = await ben.get(`/api/v1/organizations/${orgId}/spaces`);
    while (after.status === 200 && Date.now() - started < 1000) {
      await Bun.sleep(5);
      after = await ben.get(`/api/v1/organizations/${orgId}/spaces`);
    }
    expect([401, 403, 404]).toContain(after.status);
  });
});

async function textFile(name: string): Promise<string> {
  const res = await client(a.url, tokenA).post(`/api/v1/organizations/${orgId}/spaces/${spaceId}/files/text`, {
    name,
    content: "the plan",
  });
  expect(res.status).toBe(201);
  return res.body.node.id;
}

/** An editor of `fileId` through `node`, synced. */
async function editorOn(node: SpawnedServer, fileId: string): Promise<Editor> {
  const editor = openEditor(collabBase(node.url, orgId, spaceId), fileId, tokenA);
  await editor.synced();
  return editor;
}

interface Presence {
  user?: { name: string };
  cursor?: { anchor: number; head: number };
}

/** What `seer` knows of the editor with client id `id`. */
const presenceOf = (seer: Editor, id: number) => seer.provider.awareness.getStates().get(id) as Presence | undefined;

describe("cursors across two nodes", () => {
  it("shows an editor's name and cursor on the other node, follows it as it moves, and drops it when they leave", async () => {
    const fileId = await textFile("cursors.md");
    const onA = await editorOn(a, fileId);
    onA.provider.awareness.setLocalState({ user: { name: "Ada" }, cursor: { anchor: 1, head: 4 } });
    // B opens the file after Ada's cursor was set: its node asks the others for who is there.
    const onB = await editorOn(b, fileId);
    try {
      await eventually(() => presenceOf(onB, onA.doc.clientID)?.user?.name === "Ada", "b to see Ada");
      expect(presenceOf(onB, onA.doc.clientID)?.cursor).toEqual({ anchor: 1, head: 4 });
      // And the other way round, from a state set once both are in.
      onB.provider.awareness.setLocalState({ user: { name: "Ben" }, cursor: { anchor: 0, head: 0 } });
      await eventually(() => presenceOf(onA, onB.doc.clientID)?.user?.name === "Ben", "a to see Ben");
      // A burst of moves reaches the other node as its newest state.
      for (let i = 0; i < 30; i++) onA.provider.awareness.setLocalStateField("cursor", { anchor: i, head: i });
      await eventually(() => presenceOf(onB, onA.doc.clientID)?.cursor?.head === 29, "b to follow Ada's cursor");
      onA.destroy();
      await eventually(() => !onB.provider.awareness.getStates().has(onA.doc.clientID), "Ada's cursor to go on b");
      expect(presenceOf(onB, onB.doc.clientID)?.user?.name).toBe("Ben");
    } finally {
      onA.destroy();
      onB.destroy();
    }
  });

  it("lets no socket on one node speak for an editor on the other", async () => {
    const fileId = await textFile("spoof.md");
    const onA = await editorOn(a, fileId);
    const onB = await editorOn(b, fileId);
    const raw = openRaw(`${collabBase(b.url, orgId, spaceId)}/${fileId}?token=${tokenA}`);
    try {
      onA.provider.awareness.setLocalStateField("user", { name: "Ada" });
      await eventually(() => presenceOf(onB, onA.doc.clientID)?.user?.name === "Ada", "b to see Ada");
      await raw.opened;
      // A socket on b names Ada's client id (a newer clock, another name) and one of its own.
      raw.send(
        awarenessFrame([
          [onA.doc.clientID, 1000, { user: { name: "SPOOF" } }],
          [424242, 1000, { user: { name: "Vic" } }],
        ]),
      );
      await eventually(() => presenceOf(onA, 424242)?.user?.name === "Vic", "a to see the socket's own presence");
      expect(presenceOf(onA, onA.doc.clientID)?.user?.name).toBe("Ada");
      expect(presenceOf(onB, onA.doc.clientID)?.user?.name).toBe("Ada");
      // Its own presence goes with it, on both nodes.
      raw.ws.close();
      await eventually(() => !onA.provider.awareness.getStates().has(424242), "the socket's presence to go on a");
    } finally {
      raw.ws.close();
      onA.destroy();
      onB.destroy();
    }
  });
});

describe("cursors of a node that goes away", () => {
  it("drops the cursors of a node that stops, and of one killed, on the others", async () => {
    const fileId = await textFile("nodes.md");
    const stopping = await install.start();
    const dying = await install.start();
    const onB = await editorOn(b, fileId);
    const onStopping = await editorOn(stopping, fileId);
    const onDying = await editorOn(dying, fileId);
    try {
      onStopping.provider.awareness.setLocalStateField("user", { name: "Stella" });
      onDying.provider.awareness.setLocalStateField("user", { name: "Dan" });
      await eventually(
        () =>
          presenceOf(onB, onStopping.doc.clientID)?.user?.name === "Stella" &&
          presenceOf(onB, onDying.doc.clientID)?.user?.name === "Dan",
        "b to see Stella and Dan",
      );
      // Their editors would reconnect elsewhere; here they stay away.
      onStopping.provider.shouldConnect = false;
      onDying.provider.shouldConnect = false;
      await stopping.stop("SIGTERM");
      await eventually(() => !onB.provider.awareness.getStates().has(onStopping.doc.clientID), "Stella to go");
      await dying.stop("SIGKILL");
      // Gone once its node has been silent for 5 s, well before an editor's own 30 s of silence.
      const killedAt = Date.now();
      await eventually(() => !onB.provider.awareness.getStates().has(onDying.doc.clientID), "Dan to go", 15_000);
      expect(Date.now() - killedAt).toBeLessThan(12_000);
    } finally {
      onB.destroy();
      onStopping.destroy();
      onDying.destroy();
    }
  }, 60_000);
});
