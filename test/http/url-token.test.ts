/**
 * A token in the URL (`?token=`) stands in for the `Authorization` header on the upgrade of the browser's two
 * WebSockets only, the live-events socket and the editing socket: anywhere else, an `Upgrade` header beside it
 * changes nothing, and the request is as unauthenticated as one without a token.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, type Org, type Person, setupOrg } from "../helpers/factories";
import { startTestServer, type TestServer } from "../helpers/server";
import { openRaw } from "../helpers/sockets";

let server: TestServer;
let org: Org;
let member: Person;
let spaceId: string;
let fileId: string;

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server);
  member = await addMember(org);
  spaceId = (await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Docs" })).body.id;
  const file = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces/${spaceId}/files/text`, {
    name: "notes.md",
  });
  fileId = file.body.node.id;
});
afterAll(() => server.stop());

/** A WebSocket upgrade's headers, as a browser sends them. */
const UPGRADE = {
  connection: "Upgrade",
  upgrade: "websocket",
  "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
  "sec-websocket-version": "13",
};

async function upgrade(path: string, token: string) {
  const res = await fetch(`${server.url}${path}${path.includes("?") ? "&" : "?"}token=${token}`, { headers: UPGRADE });
  return { status: res.status, body: await res.json() };
}

describe("?token= on a route that is not one of the browser's sockets", () => {
  const routes = () => [
    "/api/v1/me",
    `/api/v1/organizations/${org.id}/spaces`,
    `/api/v1/organizations/${org.id}/spaces/${spaceId}/files/${fileId}`,
    `/api/v1/organizations/${org.id}/me/permissions`,
    `/api/v1/me/unread?org_id=${org.id}`,
    // The connector of a tunnel is no browser: it sends its token in the Authorization header.
    "/api/v1/tunnels/0190f2a4-0000-7000-8000-000000000000/connect",
  ];

  it("answers 401 unauthorized with an Upgrade header, as without one", async () => {
    for (const path of routes()) {
      expect({ path, ...(await upgrade(path, member.token)) }).toEqual({
        path,
        status: 401,
        body: { error: "unauthorized" },
      });
    }
  });

  it("still answers the same request with the token in the Authorization header", async () => {
    const res = await fetch(`${server.url}/api/v1/me`, {
      headers: { ...UPGRADE, authorization: `Bearer ${member.token}` },
    });
    expect(res.status).toBe(200);
  });
});

describe("?token= on the live-events and editing sockets", () => {
  it("opens both", async () => {
    const base = server.url.replace(/^http/, "ws");
    const live = openRaw(`${base}/api/v1/organizations/${org.id}/ws?token=${member.token}`);
    const editing = openRaw(
      `${base}/api/v1/organizations/${org.id}/spaces/${spaceId}/files/collab/ws/${fileId}?token=${member.token}`,
    );
    await Promise.all([live.opened, editing.opened]);
    live.ws.close();
    editing.ws.close();
  });
});
