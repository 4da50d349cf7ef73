import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHash } from "node:crypto";
import * as encoding from "lib0/encoding";
import * as Y from "yjs";
import { addMember, addStaff, type Org, type Person, setupOrg } from "../helpers/factories";
import { startTestServer, type TestServer } from "../helpers/server";
import {
  awarenessFrame,
  collabBase,
  type Editor,
  eventually,
  collabFrame as frame,
  openEditor,
  openRaw,
  refusedUpgrade,
} from "../helpers/sockets";

let server: TestServer;
let org: Org;
let member: Person;
let viewer: Person;
let spaceId: string;
let files: string;
let base: string;
const editors: Editor[] = [];

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server);
  member = await addMember(org, ["Member"], "Mia Member");
  viewer = await addMember(org, ["Viewer"], "Vic Viewer");
  const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Docs" });
  spaceId = space.body.id;
  files = `/api/v1/organizations/${org.id}/spaces/${spaceId}/files`;
  base = collabBase(server.url, org.id, spaceId);
});
afterAll(async () => {
  for (const editor of editors) editor.destroy();
  await server.stop();
});

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

let counter = 0;
async function textFile(content = "", name = `note-${++counter}.md`): Promise<string> {
  const res = await member.api.post(`${files}/text`, { name, content });
  if (res.status !== 201) throw new Error(`text create failed: ${res.status} ${res.text}`);
  return res.body.node.id;
}

/** A stock client, synced with the server. */
async function editor(fileId: string, token = member.token): Promise<Editor> {
  const e = openEditor(base, fileId, token);
  editors.push(e);
  await e.synced();
  return e;
}

async function content(fileId: string): Promise<string> {
  const res = await member.api.get(`${files}/${fileId}/content`);
  expect(res.status).toBe(200);
  return res.text;
}

describe("GET .../files/collab/ws/{fileId} upgrade", () => {
  it("answers 401 unauthorized for a missing or bad token", async () => {
    const fileId = await textFile("x");
    for (const token of ["", "nope", `${member.token}x`]) {
      const res = await refusedUpgrade(`${base}/${fileId}?token=${token}`);
      expect(res).toEqual({ status: 401, body: { error: "unauthorized" } });
    }
  });

  it("answers 404 file not found for an unknown, malformed or deleted file", async () => {
    const deleted = await textFile("gone");
    expect((await member.api.delete(`${files}/${deleted}`)).status).toBe(204);
    for (const id of ["00000000-0000-7000-8000-000000000000", "not-a-uuid", deleted]) {
      const res = await refusedUpgrade(`${base}/${id}?token=${member.token}`);
      expect(res).toEqual({ status: 404, body: { error: "file not found" } });
    }
  });

  it("answers 404 space not found for a private space the caller cannot see, whatever the file", async () => {
    const priv = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Secret", private: true });
    const file = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces/${priv.body.id}/files/text`, {
      name: "plan.md",
      content: "x",
    });
    const privBase = collabBase(server.url, org.id, priv.body.id);
    const res = await refusedUpgrade(`${privBase}/${file.body.node.id}?token=${member.token}`);
    expect(res).toEqual({ status: 404, body: { error: "space not found" } });
  });

  it("answers 400 for a folder and for a binary file", async () => {
    const folder = await member.api.post(`${files}/folders`, { name: `folder-${++counter}` });
    expect(await refusedUpgrade(`${base}/${folder.body.node.id}?token=${member.token}`)).toEqual({
      status: 400,
      body: { error: "a folder has no content" },
    });
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array([0, 1, 2, 255])], { type: "application/octet-stream" }), "b.bin");
    const up = await fetch(`${server.url}${files}/upload`, {
      method: "POST",
      body: form,
      headers: { authorization: `Bearer ${member.token}` },
    });
    const binary = ((await up.json()) as { node: { id: string } }).node.id;
    expect(await refusedUpgrade(`${base}/${binary}?token=${member.token}`)).toEqual({
      status: 400,
      body: { error: "not a text file" },
    });
  });

  it("answers 403 missing permission: files.read to a member whose roles lack it", async () => {
    const role = await org.owner.api.post(`/api/v1/organizations/${org.id}/roles`, {
      name: `Chat only ${++counter}`,
      permissions: ["chat.write"],
    });
    const chatter = await addMember(org, ["Member"]);
    await org.owner.api.put(`/api/v1/organizations/${org.id}/members/${chatter.id}/roles`, {
      role_ids: [role.body.role.id],
    });
    const fileId = await textFile("x");
    expect(await refusedUpgrade(`${base}/${fileId}?token=${chatter.token}`)).toEqual({
      status: 403,
      body: { error: "missing permission: files.read" },
    });
  });

  it("answers 400 to a plain GET that does not upgrade", async () => {
    const fileId = await textFile("x");
    const res = await member.api.get(`${files}/collab/ws/${fileId}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "websocket upgrade required" });
  });

  it("answers an upgrade without a handshake key 400 in the API's shape, on both routes", async () => {
    const fileId = await textFile("x");
    const message =
      "invalid websocket upgrade: a Sec-WebSocket-Key (16 bytes in base64) and Sec-WebSocket-Version: 13 are required";
    for (const path of [`${files}/collab/ws/${fileId}?token=`, `${files}/collab/ws?file_id=${fileId}&token=`]) {
      const res = await fetch(`${server.url}${path}${member.token}`, {
        headers: { upgrade: "websocket", connection: "Upgrade", "sec-websocket-version": "13" },
      });
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(await res.json()).toEqual({ error: message });
    }
  });

  it("refuses a 101st editing socket of one person with 429", async () => {
    const fileId = await textFile("many tabs");
    const heavy = await addMember(org, ["Member"], "Ed Many");
    const sockets = Array.from({ length: 100 }, () => openRaw(`${base}/${fileId}?token=${heavy.token}`));
    await Promise.all(sockets.map((s) => s.opened));
    expect(await refusedUpgrade(`${base}/${fileId}?token=${heavy.token}`)).toEqual({
      status: 429,
      body: { error: "too many open editing sockets: at most 100 per person" },
    });
    for (const s of sockets) s.ws.close();
  });

  it("accepts the file as ?file_id= on .../files/collab/ws", async () => {
    const fileId = await textFile("by query");
    const raw = openRaw(`${base}?token=${member.token}&file_id=${fileId}`);
    await raw.opened;
    await eventually(() => raw.messages.length > 0, "the server's sync step 1");
    expect(Array.from((raw.messages[0] as Uint8Array).slice(0, 2))).toEqual([0, 0]);
    raw.ws.close();
    for (const query of ["", "&file_id="]) {
      expect(await refusedUpgrade(`${base}?token=${member.token}${query}`)).toEqual({
        status: 400,
        body: { error: "file_id: required" },
      });
    }
  });

  it("never writes the token into the log", async () => {
    const fileId = await textFile("x");
    const e = await editor(fileId);
    e.destroy();
    const lines = server.logs.filter((line) => line.includes("/collab/ws/"));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of server.logs) expect(line).not.toContain(member.token);
    expect(lines.some((line) => line.includes('"status":101'))).toBe(true);
  });
});

describe("editing together", () => {
  it("gives a new editor the file's text, and each sees the other's typing", async () => {
    const fileId = await textFile("Hello");
    const a = await editor(fileId);
    const b = await editor(fileId, org.owner.token);
    expect(a.text()).toBe("Hello");
    expect(b.text()).toBe("Hello");
    a.insert(5, ", world");
    await eventually(() => b.text() === "Hello, world", "b to see a's typing");
    b.insert(0, "> ");
    await eventually(() => a.text() === "> Hello, world", "a to see b's typing");
  });

  it("shares cursors (awareness) and drops them when their editor leaves", async () => {
    const fileId = await textFile("cursor");
    const a = await editor(fileId);
    const b = await editor(fileId, org.owner.token);
    a.provider.awareness.setLocalStateField("user", { name: "Mia" });
    await eventually(
      () => (b.provider.awareness.getStates().get(a.doc.clientID) as { user?: { name: string } })?.user?.name === "Mia",
      "b to see a's cursor",
    );
    a.destroy();
    await eventually(() => !b.provider.awareness.getStates().has(a.doc.clientID), "a's cursor to go");
  });

  it("closes 4413 on an awareness state over 8 KiB, relaying none of it", async () => {
    const fileId = await textFile("big cursor");
    const a = await editor(fileId);
    const b = await editor(fileId, org.owner.token);
    a.provider.awareness.setLocalStateField("user", { name: "x".repeat(9000) });
    expect(await a.closed).toEqual({ code: 4413, reason: "awareness state too large: at most 8 KiB" });
    await Bun.sleep(100);
    expect(b.provider.awareness.getStates().has(a.doc.clientID)).toBe(false);
  });

  it("keeps GET content, size_bytes and checksum_sha256 on the current text", async () => {
    const fileId = await textFile("abc");
    const a = await editor(fileId);
    a.insert(3, " é😀");
    const expected = "abc é😀";
    await eventually(() => a.text() === expected, "the local edit");
    let body = "";
    for (let i = 0; i < 100 && body !== expected; i++) {
      body = await content(fileId);
      if (body !== expected) await Bun.sleep(10);
    }
    expect(body).toBe(expected);
    const node = (await member.api.get(`${files}/${fileId}`)).body.node;
    expect(node.size_bytes).toBe(Buffer.byteLength(expected));
    expect(node.checksum_sha256).toBe(sha256(expected));
    const tree = (await member.api.get(`${files}/tree`)).body.nodes.find((n: { id: string }) => n.id === fileId);
    expect(tree.checksum_sha256).toBe(sha256(expected));
  });

  it("writes the text before any read: the tree, a listing, the node and a proposal's base describe an edit just relayed", async () => {
    const fileId = await textFile("one");
    const a = await editor(fileId);
    const watcher = await editor(fileId);
    const sha = (text: string) => sha256(text);
    const check = async (expected: string, read: () => Promise<{ size_bytes: number; checksum_sha256: string }>) => {
      await eventually(() => watcher.text() === expected, "the edit to be relayed (so it is stored)");
      const node = await read();
      expect(node.size_bytes).toBe(Buffer.byteLength(expected));
      expect(node.checksum_sha256).toBe(sha(expected));
    };
    a.insert(3, " two");
    await check("one two", async () =>
      (await member.api.get(`${files}/tree`)).body.nodes.find((n: { id: string }) => n.id === fileId),
    );
    a.insert(7, " three");
    await check("one two three", async () =>
      (await member.api.get(`${files}`)).body.nodes.find((n: { id: string }) => n.id === fileId),
    );
    a.insert(13, " four");
    await check("one two three four", async () => (await member.api.get(`${files}/${fileId}`)).body.node);
    a.insert(18, " five");
    await eventually(() => watcher.text() === "one two three four five", "the edit to be relayed");
    const proposal = await member.api.post(`${files}/${fileId}/proposals`, { proposed_content: "six" });
    expect(proposal.status).toBe(201);
    expect(proposal.body.proposal.base_content_sha256).toBe(sha("one two three four five"));
    a.destroy();
    watcher.destroy();
  });

  it("shows a PUT of new content in open editors at once, keeping what did not change", async () => {
    const fileId = await textFile("one two three");
    const a = await editor(fileId);
    const b = await editor(fileId, org.owner.token);
    const put = await member.api.put(`${files}/${fileId}/content`, undefined, {
      raw: "one 2 three",
      contentType: "text/plain",
    });
    expect(put.status).toBe(200);
    expect(put.body.node.size_bytes).toBe(11);
    expect(put.body.node.checksum_sha256).toBe(sha256("one 2 three"));
    await eventually(() => a.text() === "one 2 three" && b.text() === "one 2 three", "editors to see the PUT");
    expect(await content(fileId)).toBe("one 2 three");
    // The replacement touched only the changed span: an edit made at the end before the PUT arrived survives.
    a.insert(a.text().length, "!");
    await eventually(() => b.text() === "one 2 three!", "b to see a's edit");
  });

  it("answers a PUT to a file nobody has open, and the next editor gets it", async () => {
    const fileId = await textFile("before");
    const put = await member.api.put(`${files}/${fileId}/content`, undefined, {
      raw: "after",
      contentType: "text/plain",
    });
    expect(put.status).toBe(200);
    const a = await editor(fileId);
    expect(a.text()).toBe("after");
  });

  it("answers sync step 1 with the updates the client lacks", async () => {
    const fileId = await textFile("state");
    const raw = openRaw(`${base}/${fileId}?token=${member.token}`);
    await raw.opened;
    raw.send(frame(0, 0, Y.encodeStateVector(new Y.Doc())));
    await eventually(() => raw.messages.some((m) => m[0] === 0 && m[1] === 1), "sync step 2");
    const step2 = raw.messages.find((m) => m[0] === 0 && m[1] === 1) as Uint8Array;
    const doc = new Y.Doc();
    const decoder = step2.slice(2);
    // Skip the varuint length prefix.
    let offset = 0;
    while ((decoder[offset] as number) & 0x80) offset++;
    Y.applyUpdate(doc, decoder.slice(offset + 1));
    expect(doc.getText("content").toString()).toBe("state");
    raw.ws.close();
  });

  it("lets nobody else change an editor's name or cursor, and relays a socket's own", async () => {
    const fileId = await textFile("presence");
    const a = await editor(fileId);
    const b = await editor(fileId, org.owner.token);
    a.provider.awareness.setLocalStateField("user", { name: "Mia" });
    const nameOf = (id: number) =>
      (b.provider.awareness.getStates().get(id) as { user?: { name: string } })?.user?.name;
    await eventually(() => nameOf(a.doc.clientID) === "Mia", "b to see a's name");
    // A read-only socket speaks for a's client id (a newer clock, another name) and for its own.
    const raw = openRaw(`${base}/${fileId}?token=${viewer.token}`);
    await raw.opened;
    raw.send(
      awarenessFrame([
        [a.doc.clientID, 1000, { user: { name: "SPOOF" } }],
        [424242, 1000, { user: { name: "Vic" } }],
      ]),
    );
    await eventually(() => nameOf(424242) === "Vic", "the viewer's own presence");
    expect(nameOf(a.doc.clientID)).toBe("Mia");
    expect((a.provider.awareness.getLocalState() as { user: { name: string } }).user.name).toBe("Mia");
    raw.ws.close();
  });

  it("answers a query for awareness with the known states", async () => {
    const fileId = await textFile("aware");
    const a = await editor(fileId);
    a.provider.awareness.setLocalStateField("user", { name: "Mia" });
    await Bun.sleep(50);
    const raw = openRaw(`${base}/${fileId}?token=${member.token}`);
    await raw.opened;
    const before = raw.messages.length;
    raw.send(new Uint8Array([3]));
    await eventually(() => raw.messages.slice(before).some((m) => m[0] === 1), "an awareness answer");
    raw.ws.close();
  });
});

describe("read-only collaborators", () => {
  it("drops the updates of a Viewer and keeps the socket open", async () => {
    const fileId = await textFile("viewers watch");
    const writer = await editor(fileId);
    const watcher = await editor(fileId, viewer.token);
    expect(watcher.text()).toBe("viewers watch");
    watcher.insert(0, "HACKED ");
    // The server deletes what it dropped in the viewer's own copy: its editor shows what everyone has.
    await eventually(() => watcher.text() === "viewers watch", "the viewer's typing to be taken back");
    expect(writer.text()).toBe("viewers watch");
    expect(await content(fileId)).toBe("viewers watch");
    expect(watcher.provider.wsconnected).toBe(true);
    writer.insert(writer.text().length, "!");
    await eventually(() => watcher.text().endsWith("viewers watch!"), "the viewer to keep receiving");
  });

  it("drops the updates of a service account (staff propose instead)", async () => {
    const staff = await addStaff(org);
    const fileId = await textFile("staff read");
    const writer = await editor(fileId);
    const bot = await editor(fileId, staff.token);
    expect(bot.text()).toBe("staff read");
    bot.insert(0, "bot: ");
    await Bun.sleep(150);
    expect(writer.text()).toBe("staff read");
    expect(await content(fileId)).toBe("staff read");
    expect(bot.provider.wsconnected).toBe(true);
  });
});

describe("bad frames", () => {
  async function openSocket(fileId: string) {
    const raw = openRaw(`${base}/${fileId}?token=${member.token}`);
    await raw.opened;
    return raw;
  }

  const cases: [string, Uint8Array | string][] = [
    ["garbage", new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])],
    ["an unknown message type", new Uint8Array([9, 0])],
    ["an unknown sync step", new Uint8Array([0, 7, 0])],
    ["a truncated update", new Uint8Array([0, 2, 40, 1, 2, 3])],
    ["an update that is not one", frame(0, 2, new Uint8Array([200, 1, 2, 3, 4, 5, 6, 7]))],
    ["trailing bytes", new Uint8Array([3, 0, 0])],
    ["a bad awareness update", frame(1, null, new Uint8Array([1, 5, 1, 9, 65]))],
    ["a text frame", "hello"],
    ["an empty frame", new Uint8Array([])],
  ];

  for (const [what, data] of cases) {
    it(`closes the socket that sent ${what} with 4400, and nothing else`, async () => {
      const fileId = await textFile("steady");
      const a = await editor(fileId);
      const b = await editor(fileId, org.owner.token);
      const bad = await openSocket(fileId);
      bad.send(data);
      const closed = await bad.closed;
      expect(closed.code).toBe(4400);
      a.insert(0, "still ");
      await eventually(() => b.text() === "still steady", "the others to go on");
      expect(await content(fileId)).toBe("still steady");
    });
  }

  it("closes a socket whose message is over the frame limit (1009), and nothing else", async () => {
    const fileId = await textFile("big");
    const a = await editor(fileId);
    const b = await editor(fileId, org.owner.token);
    const bad = await openSocket(fileId);
    bad.send(new Uint8Array(17 * 1024 * 1024));
    const closed = await bad.closed;
    expect(closed.code).toBe(1009);
    a.insert(0, "still ");
    await eventually(() => b.text() === "still big", "the others to go on");
  });
});

describe("access changes while connected", () => {
  it("disconnects a member removed from the organization (4404 organization not found, no reconnect)", async () => {
    const leaver = await addMember(org, ["Member"]);
    const fileId = await textFile("x");
    const e = await editor(fileId, leaver.token);
    expect((await org.owner.api.delete(`/api/v1/organizations/${org.id}/members/${leaver.id}`)).status).toBe(204);
    expect(await e.closed).toEqual({ code: 4404, reason: "organization not found" });
  });

  it("disconnects a member removed from a private space (4404 space not found)", async () => {
    const insider = await addMember(org, ["Member"]);
    const priv = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Inner", private: true });
    const privFiles = `/api/v1/organizations/${org.id}/spaces/${priv.body.id}`;
    await org.owner.api.post(`${privFiles}/members`, { user_id: insider.id });
    const file = await org.owner.api.post(`${privFiles}/files/text`, { name: "p.md", content: "p" });
    const e = openEditor(collabBase(server.url, org.id, priv.body.id), file.body.node.id, insider.token);
    editors.push(e);
    await e.synced();
    expect((await org.owner.api.delete(`${privFiles}/members/${insider.id}`)).status).toBe(204);
    expect(await e.closed).toEqual({ code: 4404, reason: "space not found" });
  });

  it("turns a member who loses files.write into a read-only collaborator", async () => {
    const demoted = await addMember(org, ["Member"]);
    const fileId = await textFile("rw");
    const writer = await editor(fileId);
    const e = await editor(fileId, demoted.token);
    e.insert(0, "a");
    await eventually(() => writer.text() === "arw", "the first edit");
    await org.owner.api.put(`/api/v1/organizations/${org.id}/members/${demoted.id}/roles`, {
      role_ids: [org.roles.Viewer],
    });
    await Bun.sleep(50);
    e.insert(0, "b");
    await Bun.sleep(150);
    expect(writer.text()).toBe("arw");
    expect(e.provider.wsconnected).toBe(true);
  });

  it("has a read-only collaborator who may now edit rejoin (4205): what it typed before stays dropped, what it types from then on lands", async () => {
    const promoted = await addMember(org, ["Viewer"]);
    const fileId = await textFile("base");
    const writer = await editor(fileId);
    const e = await editor(fileId, promoted.token);
    const rejoined = new Promise<number>((resolve) => {
      e.provider.on("connection-close", (event: CloseEvent | null) => event && resolve(event.code));
    });
    e.insert(0, "typed while read-only ");
    await eventually(() => e.text() === "base", "the read-only typing to be taken back");
    expect(writer.text()).toBe("base");
    await org.owner.api.put(`/api/v1/organizations/${org.id}/members/${promoted.id}/roles`, {
      role_ids: [org.roles.Member],
    });
    expect(await rejoined).toBe(4205);
    await e.synced();
    e.insert(e.text().length, " and after");
    await eventually(() => writer.text() === "base and after" && e.text() === "base and after", "the two to converge");
    expect(await content(fileId)).toBe("base and after");
  });

  it("closes the document of a deleted file (4404), and of the files in a deleted folder", async () => {
    const folder = await member.api.post(`${files}/folders`, { name: `dir-${++counter}` });
    const inner = await member.api.post(`${files}/text`, { name: "in.md", parent_id: folder.body.node.id });
    const fileId = await textFile("bye");
    const e1 = await editor(fileId);
    const e2 = await editor(inner.body.node.id);
    await member.api.delete(`${files}/${fileId}`);
    expect(await e1.closed).toEqual({ code: 4404, reason: "file not found" });
    await member.api.delete(`${files}/${folder.body.node.id}`);
    expect(await e2.closed).toEqual({ code: 4404, reason: "file not found" });
  });
});

describe("what an update may hold", () => {
  it("closes 4400 on anything but the shared text: another type, a map entry, a format or an embed", async () => {
    const fileId = await textFile("only text");
    const edits: [string, (doc: Y.Doc) => void][] = [
      ["a map", (doc) => doc.getMap("meta").set("big", "x".repeat(1000))],
      ["an array", (doc) => doc.getArray("list").insert(0, [1, 2, 3])],
      ["a format", (doc) => doc.getText("content").format(0, 4, { bold: true })],
      ["an embed", (doc) => doc.getText("content").insertEmbed(0, { image: "x" })],
      ["another text", (doc) => doc.getText("notes").insert(0, "hidden")],
    ];
    for (const [what, edit] of edits) {
      const editor = openEditor(base, fileId, member.token);
      editors.push(editor);
      await editor.synced();
      edit(editor.doc);
      expect([what, await editor.closed]).toEqual([
        what,
        { code: 4400, reason: 'only the text getText("content") can be edited' },
      ]);
    }
    // The file is as it was, and text still lands.
    const writer = openEditor(base, fileId, member.token);
    editors.push(writer);
    await writer.synced();
    writer.insert(0, "still ");
    await eventually(() => writer.text() === "still only text", "the edit to apply locally");
    const watcher = openEditor(base, fileId, member.token);
    editors.push(watcher);
    await watcher.synced();
    await eventually(() => watcher.text() === "still only text", "the text edit to be relayed");
    expect((await member.api.get(`${files}/${fileId}/content`)).text).toBe("still only text");
  });
});

describe("updates out of order, and awareness of many clients", () => {
  it("closes 4400 on a client's update that skips its earlier ones, applying nothing", async () => {
    const fileId = await textFile("in order");
    const writer = await editor(fileId);
    // Two edits of one offline client, the second sent alone: it builds on the first, which never came.
    const offline = new Y.Doc();
    Y.applyUpdate(offline, Y.encodeStateAsUpdate(writer.doc));
    const start = Y.encodeStateVector(offline);
    offline.getText("content").insert(0, "first ");
    const middle = Y.encodeStateVector(offline);
    offline.getText("content").insert(0, "second ");
    const second = Y.encodeStateAsUpdate(offline, middle);
    expect(Y.encodeStateAsUpdate(offline, start).byteLength).toBeGreaterThan(second.byteLength);
    const raw = openRaw(`${base}/${fileId}?token=${member.token}`);
    await raw.opened;
    raw.send(frame(0, 2, second));
    expect(await raw.closed).toEqual({
      code: 4400,
      reason: "update out of order: an earlier edit of the same client is missing",
    });
    expect(await content(fileId)).toBe("in order");
  });

  it("closes 4400 on awareness for more than 4 clients from one socket", async () => {
    const fileId = await textFile("crowd");
    const raw = openRaw(`${base}/${fileId}?token=${member.token}`);
    await raw.opened;
    raw.send(awarenessFrame([1, 2, 3, 4, 5].map((client) => [client, 1, { user: { name: `n${client}` } }] as const)));
    expect(await raw.closed).toEqual({ code: 4400, reason: "too many awareness clients on one socket: at most 4" });
  });
});

describe("the text file limit over the socket", () => {
  const LIMIT = 4096;
  let small: TestServer;
  let smallOrg: Org;

  beforeAll(async () => {
    small = await startTestServer({ docs: { maxTextBytes: LIMIT } });
    smallOrg = await setupOrg(small);
  });
  afterAll(() => small.stop());

  it("refuses an update that would take the text over the limit: 4413 text file too large, nothing stored", async () => {
    const space = await smallOrg.owner.api.post(`/api/v1/organizations/${smallOrg.id}/spaces`, { name: "S" });
    const path = `/api/v1/organizations/${smallOrg.id}/spaces/${space.body.id}/files`;
    const fileId = (await smallOrg.owner.api.post(`${path}/text`, { name: "limit.md", content: "start" })).body.node.id;
    const socketBase = collabBase(small.url, smallOrg.id, space.body.id);
    const writer = openEditor(socketBase, fileId, smallOrg.owner.token);
    const watcher = openEditor(socketBase, fileId, smallOrg.owner.token);
    editors.push(writer, watcher);
    await Promise.all([writer.synced(), watcher.synced()]);

    // Up to the limit, edits land as usual: counted in UTF-8 bytes (é is two).
    writer.insert(5, "é".repeat(1000));
    await eventually(() => watcher.text().length === 1005, "an edit under the limit to be relayed");

    writer.insert(0, "x".repeat(LIMIT));
    expect(await writer.closed).toEqual({ code: 4413, reason: "text file too large" });
    const stored = await smallOrg.owner.api.get(`${path}/${fileId}/content`);
    expect(stored.text).toBe(`start${"é".repeat(1000)}`);
    expect(watcher.text()).toBe(`start${"é".repeat(1000)}`);
  });

  it("lets edits land at the limit: a delete from a full text, a few characters that still fit", async () => {
    const space = await smallOrg.owner.api.post(`/api/v1/organizations/${smallOrg.id}/spaces`, { name: "S" });
    const path = `/api/v1/organizations/${smallOrg.id}/spaces/${space.body.id}/files`;
    const full = "y".repeat(LIMIT - 10);
    const fileId = (await smallOrg.owner.api.post(`${path}/text`, { name: "full.md", content: full })).body.node.id;
    const writer = openEditor(collabBase(small.url, smallOrg.id, space.body.id), fileId, smallOrg.owner.token);
    editors.push(writer);
    await writer.synced();
    writer.insert(0, "abc");
    writer.delete(3, 1);
    writer.insert(writer.text().length, "é".repeat(4));
    const expected = `abc${full.slice(1)}${"é".repeat(4)}`;
    expect(Buffer.byteLength(expected)).toBe(LIMIT);
    const watcher = openEditor(collabBase(small.url, smallOrg.id, space.body.id), fileId, smallOrg.owner.token);
    editors.push(watcher);
    await watcher.synced();
    await eventually(() => watcher.text() === expected, "the edits to be relayed");
    expect((await smallOrg.owner.api.get(`${path}/${fileId}/content`)).text).toBe(expected);
    writer.insert(0, "z");
    expect(await writer.closed).toEqual({ code: 4413, reason: "text file too large" });
  });

  it("lets typing over a selection land in a full text: what an update deletes counts as well as what it inserts", async () => {
    const space = await smallOrg.owner.api.post(`/api/v1/organizations/${smallOrg.id}/spaces`, { name: "S" });
    const path = `/api/v1/organizations/${smallOrg.id}/spaces/${space.body.id}/files`;
    const full = "ü".repeat(LIMIT / 2); // exactly at the limit, two bytes a character
    const fileId = (await smallOrg.owner.api.post(`${path}/text`, { name: "over.md", content: full })).body.node.id;
    const base = collabBase(small.url, smallOrg.id, space.body.id);
    const writer = openEditor(base, fileId, smallOrg.owner.token);
    editors.push(writer);
    await writer.synced();
    const text = writer.doc.getText("content");
    // Each a single update, as an editor sends a replaced selection: delete 5, insert 1; delete 200, insert 300
    // one-byte characters (200 × 2 bytes out, 300 in).
    writer.doc.transact(() => {
      text.delete(100, 5);
      text.insert(100, "R");
    });
    writer.doc.transact(() => {
      text.delete(500, 200);
      text.insert(500, "a".repeat(300));
    });
    const once = `${full.slice(0, 100)}R${full.slice(105)}`;
    const expected = `${once.slice(0, 500)}${"a".repeat(300)}${once.slice(700)}`;
    expect(writer.text()).toBe(expected);
    const watcher = openEditor(base, fileId, smallOrg.owner.token);
    editors.push(watcher);
    await watcher.synced();
    await eventually(() => watcher.text() === expected, "both replacements to be relayed");
    expect((await smallOrg.owner.api.get(`${path}/${fileId}/content`)).text).toBe(expected);
    // Replacing with more than was selected still cannot pass the limit.
    writer.doc.transact(() => {
      text.delete(0, 10);
      text.insert(0, "ü".repeat(LIMIT));
    });
    expect(await writer.closed).toEqual({ code: 4413, reason: "text file too large" });
    expect((await smallOrg.owner.api.get(`${path}/${fileId}/content`)).text).toBe(expected);
  });

  it("counts a delete range listed several times once", async () => {
    const space = await smallOrg.owner.api.post(`/api/v1/organizations/${smallOrg.id}/spaces`, { name: "S" });
    const path = `/api/v1/organizations/${smallOrg.id}/spaces/${space.body.id}/files`;
    const full = "y".repeat(LIMIT - 10);
    const fileId = (await smallOrg.owner.api.post(`${path}/text`, { name: "twice.md", content: full })).body.node.id;
    const socketBase = collabBase(small.url, smallOrg.id, space.body.id);
    const reader = openEditor(socketBase, fileId, smallOrg.owner.token);
    editors.push(reader);
    await reader.synced();
    // An update inserting 3,000 characters and listing the same 2,000-character deletion three times:
    // 4,086 + 3,000 - 2,000 is over the limit, whatever the list claims.
    const copy = new Y.Doc();
    Y.applyUpdate(copy, Y.encodeStateAsUpdate(reader.doc));
    const before = Y.encodeStateVector(copy);
    copy.getText("content").insert(0, "z".repeat(3000));
    const inserts = Y.encodeStateAsUpdate(copy, before);
    expect(inserts.at(-1)).toBe(0); // an empty delete set ends the update
    const [owner] = [...reader.doc.store.clients.keys()];
    const ds = encoding.createEncoder();
    encoding.writeVarUint(ds, 1);
    encoding.writeVarUint(ds, owner as number);
    encoding.writeVarUint(ds, 3);
    for (let i = 0; i < 3; i++) {
      encoding.writeVarUint(ds, 0);
      encoding.writeVarUint(ds, 2000);
    }
    const update = new Uint8Array([...inserts.subarray(0, -1), ...encoding.toUint8Array(ds)]);
    const raw = openRaw(`${socketBase}/${fileId}?token=${smallOrg.owner.token}`);
    await raw.opened;
    raw.send(frame(0, 2, update));
    expect(await raw.closed).toEqual({ code: 4413, reason: "text file too large" });
    expect((await smallOrg.owner.api.get(`${path}/${fileId}/content`)).text).toBe(full);
  });
});
