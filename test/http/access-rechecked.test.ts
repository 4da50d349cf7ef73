/**
 * A write stored after the request waited (a streamed upload, a chat post's group commit) checks the caller's
 * access again where it is stored: an account deleted, a member removed from the organization or the space
 * meanwhile gets the answer a new request would get, and nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, addStaff, type Org, setupOrg } from "../helpers/factories";
import { openDataDirDatabase } from "../helpers/postgres";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let org: Org;
let spacePath: string;

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server);
  const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Rechecks" });
  spacePath = `/api/v1/organizations/${org.id}/spaces/${space.body.id}`;
});
afterAll(() => server.stop());

const BOUNDARY = "----tandem-recheck";

/** Ids of the blobs still being written (an upload stores its blob row first, its checksum last). */
function blobsBeingWritten(): Set<string> {
  const db = openDataDirDatabase(server.dataDir, { readonly: true });
  try {
    const rows = db.query("SELECT id FROM blobs WHERE checksum_sha256 = ''").all() as { id: string }[];
    return new Set(rows.map((r) => r.id));
  } finally {
    db.close();
  }
}

/**
 * Waits until the server stores a blob that was not there `before`: the upload got past the route's checks and
 * its body is being written.
 */
async function storingStarted(before: Set<string>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while ([...blobsBeingWritten()].every((id) => before.has(id))) {
    if (Date.now() > end) throw new Error(`the upload did not start storing its body within ${timeoutMs} ms`);
    await Bun.sleep(10);
  }
}

/**
 * Uploads `name` with `token`, sending the body's first half, then running `meanwhile` (once the server passed
 * the upload's checks and is storing the body), then the rest. Answers the upload's status and body.
 */
async function slowUpload(path: string, token: string, name: string, meanwhile: () => Promise<void>) {
  const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const tail = `\r\n--${BOUNDARY}--\r\n`;
  const encoder = new TextEncoder();
  const rest = Promise.withResolvers<void>();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(encoder.encode(head));
      controller.enqueue(new Uint8Array(64 * 1024).fill(7));
      await rest.promise;
      controller.enqueue(new Uint8Array(64 * 1024).fill(8));
      controller.enqueue(encoder.encode(tail));
      controller.close();
    },
  });
  const before = blobsBeingWritten();
  const answer = fetch(`${server.url}${path}/files/upload`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    body,
  });
  await storingStarted(before);
  await meanwhile();
  rest.resolve();
  const res = await answer;
  return { status: res.status, body: await res.json() };
}

/** True when a file of that name is in the space (seen by the owner). */
async function stored(path: string, name: string): Promise<boolean> {
  const res = await org.owner.api.get(`${path}/files/tree`);
  expect(res.status).toBe(200);
  return res.body.nodes.some((n: { name: string }) => n.name === name);
}

describe("a streamed upload", () => {
  it("by a member removed from the organization while it streamed: 404 organization not found, no file", async () => {
    const member = await addMember(org);
    const res = await slowUpload(spacePath, member.token, "removed-member.bin", async () => {
      expect((await org.owner.api.delete(`/api/v1/organizations/${org.id}/members/${member.id}`)).status).toBe(204);
    });
    expect(res).toEqual({ status: 404, body: { error: "organization not found" } });
    expect(await stored(spacePath, "removed-member.bin")).toBe(false);
  });

  it("by a staff member deleted while it streamed: 401 unauthorized, no file", async () => {
    const staff = await addStaff(org);
    const res = await slowUpload(spacePath, staff.token, "deleted-staff.bin", async () => {
      const path = `/api/v1/organizations/${org.id}/service-accounts/${staff.account.id}`;
      expect((await org.owner.api.delete(path)).status).toBe(204);
    });
    expect(res).toEqual({ status: 401, body: { error: "unauthorized" } });
    expect(await stored(spacePath, "deleted-staff.bin")).toBe(false);
  });

  it("by someone taken out of a private space while it streamed: 404 space not found, no file", async () => {
    const member = await addMember(org);
    const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, {
      name: "Private rechecks",
      private: true,
    });
    const privatePath = `/api/v1/organizations/${org.id}/spaces/${space.body.id}`;
    expect((await org.owner.api.post(`${privatePath}/members`, { user_id: member.id })).status).toBe(201);
    const res = await slowUpload(privatePath, member.token, "left-space.bin", async () => {
      expect((await org.owner.api.delete(`${privatePath}/members/${member.id}`)).status).toBe(204);
    });
    expect(res).toEqual({ status: 404, body: { error: "space not found" } });
    expect(await stored(privatePath, "left-space.bin")).toBe(false);
  });

  it("by someone who keeps access is stored as usual", async () => {
    const member = await addMember(org);
    const res = await slowUpload(spacePath, member.token, "kept.bin", async () => undefined);
    expect(res.status).toBe(201);
    expect(res.body.node.size_bytes).toBe(128 * 1024);
    expect(await stored(spacePath, "kept.bin")).toBe(true);
  });
});

describe("chat posts committed in a group", () => {
  it("by a staff member deleted in the same instant: each answers 201 or 401, never 500, and 201 means stored", async () => {
    const rooms = await org.owner.api.get(`${spacePath}/chat-rooms`);
    const room = rooms.body.chat_rooms.find((r: { name: string }) => r.name === "general");
    const messages = `${spacePath}/chat-rooms/${room.id}/messages`;
    for (let round = 0; round < 3; round++) {
      const staff = await addStaff(org);
      const tag = `staff-burst-${round}`;
      const answers = await Promise.all([
        ...Array.from({ length: 20 }, (_, i) => staff.api.post(messages, { content: `${tag} ${i}` })),
        org.owner.api.delete(`/api/v1/organizations/${org.id}/service-accounts/${staff.account.id}`),
      ]);
      const posts = answers.slice(0, 20);
      for (const post of posts) {
        expect([201, 401]).toContain(post.status);
        if (post.status === 401) expect(post.body).toEqual({ error: "unauthorized" });
      }
      const page = await org.owner.api.get(`${messages}?limit=200`);
      const kept = page.body.messages.filter((m: { content: string }) => m.content.startsWith(`${tag} `)).length;
      expect(kept).toBe(posts.filter((p) => p.status === 201).length);
    }
  });
});
