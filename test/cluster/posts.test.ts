/**
 * What a post makes, with several nodes on one PostgreSQL database: its inbox items and its place in search are
 * there through any node as soon as the post is answered (both are written in the post's transaction).
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { nodeCluster } from "../helpers/cluster";
import { addMember, type Org } from "../helpers/factories";
import { client } from "../helpers/http";
import type { SpawnedServer } from "../helpers/server";

const install = nodeCluster("posts");

let a: SpawnedServer;
let b: SpawnedServer;
let org: Org;

beforeAll(async () => {
  a = await install.start();
  b = await install.start();
  org = await install.setup(a);
}, 60_000);

afterAll(() => install.stop());

describe("a post through one node, read through another", () => {
  it("has a mention's item on the other node at once, and loses it with the message", async () => {
    const ada = await addMember(org, ["Member"], "Ada Lovelace");
    const owner = client(a.url, org.owner.token);
    const space = await owner.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Inbox" });
    expect(space.status).toBe(201);
    const rooms = `/api/v1/organizations/${org.id}/spaces/${space.body.id}/chat-rooms`;
    const roomId = (await owner.get(rooms)).body.chat_rooms[0].id;
    const inbox = `/api/v1/me/inbox?org_id=${org.id}`;
    const adaOnB = client(b.url, ada.token);

    const posted = await owner.post(`${rooms}/${roomId}/messages`, { content: "@Ada Lovelace over to you" });
    expect(posted.status).toBe(201);
    const items = await adaOnB.get(inbox);
    expect(items.status).toBe(200);
    expect(items.body.unread).toBe(1);
    expect(items.body.items.map((i: { message_id: string }) => i.message_id)).toEqual([posted.body.message.id]);

    expect((await owner.delete(`${rooms}/${roomId}/messages/${posted.body.message.id}`)).status).toBe(204);
    const after = await adaOnB.get(inbox);
    expect(after.body).toMatchObject({ items: [], unread: 0 });
  });

  it("is found by a search through the other node at once, as is a task comment", async () => {
    const owner = client(a.url, org.owner.token);
    const base = `/api/v1/organizations/${org.id}`;
    const space = (await owner.post(`${base}/spaces`, { name: "Search" })).body;
    const roomId = (await owner.get(`${base}/spaces/${space.id}/chat-rooms`)).body.chat_rooms[0].id;
    const posted = await owner.post(`${base}/spaces/${space.id}/chat-rooms/${roomId}/messages`, {
      content: "quokka sighted",
    });
    expect(posted.status).toBe(201);
    const board = (await owner.get(`${base}/spaces/${space.id}/board`)).body;
    const task = await owner.post(`${base}/spaces/${space.id}/tasks`, {
      title: "Count",
      column_id: board.columns[0].id,
    });
    const comment = await owner.post(`${base}/spaces/${space.id}/tasks/${task.body.id}/messages`, {
      content: "quokka counted",
    });
    expect(comment.status).toBe(201);
    const found = await client(b.url, org.owner.token).get(`${base}/search?q=quokka`);
    expect(found.status).toBe(200);
    expect(found.body.results.map((r: { id: string }) => r.id).sort()).toEqual(
      [posted.body.message.id, comment.body.id].sort(),
    );
  });
});
