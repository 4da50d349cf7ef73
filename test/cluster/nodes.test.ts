/**
 * Several `tandem serve` processes on one PostgreSQL database (contract §9): each answers every route, and a
 * client of one sees what was written through another, live: events, editing, access changes.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { nodeCluster } from "../helpers/cluster";
import { OWNER } from "../helpers/factories";
import { client } from "../helpers/http";
import type { SpawnedServer } from "../helpers/server";
import { collabBase, eventually, listen, openEditor } from "../helpers/sockets";

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
