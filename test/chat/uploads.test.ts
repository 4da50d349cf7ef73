/**
 * Uploads in chat (contract §11): `POST .../chat-rooms/{roomId}/uploads` stores the composer's file in the
 * space's `Attachments` folder (made when missing) under a free name, and answers it as an attachment whose URL
 * is Tandem's own content route: it answers those who see the space, and no one else.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, type Org, type Person, setupOrg } from "../helpers/factories";
import { startTestServer, type TestServer } from "../helpers/server";
import { type Listener, listen } from "../helpers/sockets";

let server: TestServer;
let org: Org;
let ada: Person;
let outsider: Person;
let viewer: Person;
let spaces: string;

/** A PNG's first bytes: enough for a type sniffed by name. */
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4, 5, 6, 7, 8]);

interface Space {
  id: string;
  rooms: string;
  roomId: string;
  files: string;
}

beforeAll(async () => {
  server = await startTestServer({ env: { TANDEM_MAX_UPLOAD_BYTES: "4096" } });
  org = await setupOrg(server);
  ada = await addMember(org, ["Member"], "Ada Lovelace");
  outsider = await addMember(org, ["Member"], "Otto Outsider");
  viewer = await addMember(org, ["Viewer"], "Vic Viewer");
  spaces = `/api/v1/organizations/${org.id}/spaces`;
});
afterAll(() => server.stop());

/** A new space (private ones have the owner and Ada, not Otto) with its general room. */
async function newSpace(name: string, isPrivate = false): Promise<Space> {
  const res = await org.owner.api.post(spaces, { name, private: isPrivate });
  if (res.status !== 201) throw new Error(`space failed: ${res.status} ${res.text}`);
  const id = res.body.id as string;
  if (isPrivate) await org.owner.api.post(`${spaces}/${id}/members`, { user_id: ada.id });
  const rooms = `${spaces}/${id}/chat-rooms`;
  const roomId = (await org.owner.api.get(rooms)).body.chat_rooms[0].id as string;
  return { id, rooms, roomId, files: `${spaces}/${id}/files` };
}

/** Uploads a file as a browser's form does; the status and JSON. */
async function upload(
  s: Space,
  file: { bytes: Uint8Array | string; name: string; type?: string } | null,
  who: Person = ada,
  roomId = s.roomId,
) {
  const form = new FormData();
  if (file) form.append("file", new Blob([file.bytes as BlobPart], { type: file.type ?? "" }), file.name);
  else form.append("note", "no file");
  const res = await fetch(`${server.url}${s.rooms}/${roomId}/uploads`, {
    method: "POST",
    headers: { authorization: `Bearer ${who.token}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** GETs an attachment's URL as `who` (no token: anonymous). */
async function open(url: string, who?: Person) {
  return fetch(url, { headers: who ? { authorization: `Bearer ${who.token}` } : {} });
}

describe("POST .../chat-rooms/{roomId}/uploads", () => {
  let s: Space;
  beforeAll(async () => {
    s = await newSpace("Uploads");
  });

  it("stores the file in a new Attachments folder and answers it ready to attach, by a URL of Tandem's own", async () => {
    const res = await upload(s, { bytes: PNG, name: "shot.png", type: "image/png" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["attachment", "node"]);
    const { attachment, node } = res.body;
    expect(attachment).toEqual({
      url: `${server.url}${s.files}/${node.id}/content`,
      name: "shot.png",
      mime: "image/png",
      size_bytes: PNG.length,
    });
    const folder = (await ada.api.get(`${s.files}/${node.parent_id}`)).body.node;
    expect(folder).toMatchObject({ kind: "folder", name: "Attachments", parent_id: null });
    const bytes = await open(attachment.url, ada);
    expect(bytes.status).toBe(200);
    expect(bytes.headers.get("content-type")).toStartWith("image/png");
    expect(new Uint8Array(await bytes.arrayBuffer())).toEqual(PNG);
  });

  it("names a second file of the same name as a copy: shot (2).png, and keeps one Attachments folder", async () => {
    const first = await upload(s, { bytes: PNG, name: "paste.png", type: "image/png" });
    const second = await upload(s, { bytes: PNG, name: "paste.png", type: "image/png" });
    const third = await upload(s, { bytes: "notes", name: "PASTE.png", type: "image/png" });
    expect([first.body.node.name, second.body.node.name, third.body.node.name]).toEqual([
      "paste.png",
      "paste (2).png",
      "PASTE (3).png",
    ]);
    expect(new Set([first, second, third].map((r) => r.body.node.parent_id)).size).toBe(1);
    const roots = (await ada.api.get(s.files)).body.nodes.filter((n: any) => n.name === "Attachments");
    expect(roots).toHaveLength(1);
  });

  it("attaches the upload to a message, listed with the message, in a thread too", async () => {
    const { attachment } = (await upload(s, { bytes: "%PDF-1.4", name: "plan.pdf", type: "application/pdf" })).body;
    const messages = `${s.rooms}/${s.roomId}/messages`;
    const root = await ada.api.post(messages, { content: "The plan", attachments: [attachment] });
    expect(root.status).toBe(201);
    expect(root.body.attachments).toEqual([
      expect.objectContaining({ url: attachment.url, name: "plan.pdf", mime: "application/pdf", size_bytes: 8 }),
    ]);
    const reply = await ada.api.post(messages, { thread_root_id: root.body.message.id, attachments: [attachment] });
    expect(reply.status).toBe(201);
    const thread = await ada.api.get(`${messages}/${root.body.message.id}/replies`);
    expect(thread.body.attachments.map((a: any) => a.url)).toEqual([attachment.url]);
  });

  it("refuses a request without a file, a form that is not multipart, and a file over the upload limit", async () => {
    const none = await upload(s, null);
    expect(none).toEqual({ status: 400, body: { error: "file: required" } });
    const json = await ada.api.post(`${s.rooms}/${s.roomId}/uploads`, { file: "x" });
    expect(json.status).toBe(400);
    expect(json.body.error).toBe("content-type must be multipart/form-data");
    const big = await upload(s, { bytes: new Uint8Array(5000), name: "big.bin" });
    expect(big).toEqual({ status: 413, body: { error: "file too large" } });
  });

  it("needs chat.write and a room of the space", async () => {
    const refused = await upload(s, { bytes: PNG, name: "v.png" }, viewer);
    expect(refused).toEqual({ status: 403, body: { error: "missing permission: chat.write" } });
    const unknown = await upload(s, { bytes: PNG, name: "u.png" }, ada, "01a1fdb9-0000-7000-8000-000000000000");
    expect(unknown).toEqual({ status: 404, body: { error: "chat room not found" } });
  });

  it("answers 409 when a root file (not a folder) is named Attachments", async () => {
    const blocked = await newSpace("Blocked");
    await org.owner.api.post(`${blocked.files}/text`, { name: "attachments", content: "x" });
    const res = await upload(blocked, { bytes: PNG, name: "x.png" });
    expect(res).toEqual({ status: 409, body: { error: "a file named Attachments is in the way" } });
  });

  it("announces the new folder and file as file.created", async () => {
    const fresh = await newSpace("Announced");
    const live: Listener = await listen(server.url, org.id, org.owner.token);
    try {
      const res = await upload(fresh, { bytes: PNG, name: "live.png" });
      const created = await live.next((e) => e.type === "file.created" && e.payload.id === res.body.node.id);
      expect(created.payload).toEqual(res.body.node);
      await live.next((e) => e.type === "file.created" && e.payload.name === "Attachments");
    } finally {
      live.close();
    }
  });
});

describe("an uploaded attachment's URL", () => {
  it("answers only those who see the space: 404 space not found for others, 401 without a token", async () => {
    const secret = await newSpace("Secret", true);
    const res = await upload(secret, { bytes: PNG, name: "secret.png", type: "image/png" });
    expect(res.status).toBe(201);
    const { url } = res.body.attachment;
    expect((await open(url, ada)).status).toBe(200);
    expect((await open(url, org.owner)).status).toBe(200);
    const outside = await open(url, outsider);
    expect({ status: outside.status, body: await outside.json() }).toEqual({
      status: 404,
      body: { error: "space not found" },
    });
    const anonymous = await open(url);
    expect(anonymous.status).toBe(401);
    // An outsider cannot upload there either.
    expect(await upload(secret, { bytes: PNG, name: "x.png" }, outsider)).toEqual({
      status: 404,
      body: { error: "space not found" },
    });
  });

  it("is made of the origin the uploader reached Tandem at (a proxy's forwarded host and scheme)", async () => {
    const s = await newSpace("Proxied");
    const form = new FormData();
    form.append("file", new Blob([PNG], { type: "image/png" }), "proxied.png");
    const res = await fetch(`${server.url}${s.rooms}/${s.roomId}/uploads`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${ada.token}`,
        "x-forwarded-host": "tandem.example.com",
        "x-forwarded-proto": "https",
      },
      body: form,
    });
    const body = (await res.json()) as any;
    expect(body.attachment.url).toBe(`https://tandem.example.com${s.files}/${body.node.id}/content`);
  });
});
