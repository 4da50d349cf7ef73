/**
 * File versions (contract §11 "File versions"): `GET .../files/{id}/versions`, `GET .../versions/{versionId}/content`
 * and `POST .../versions/{versionId}/restore`. Versions come from the live document: one when an editing session
 * ends (at most one per interval while people type, here shortened), one before and after each REST write,
 * accepted proposal and restore; a restore goes through the live document while others edit it.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHash } from "node:crypto";
import * as Y from "yjs";
import { addMember, addStaff, type Org, type Person, setupOrg } from "../helpers/factories";
import { TIMESTAMP, UUID } from "../helpers/http";
import { openDataDirDatabase } from "../helpers/postgres";
import { scenarios } from "../helpers/scenarios";
import { startTestServer, type TestServer } from "../helpers/server";
import { collabBase, type Editor, eventually, type Listener, listen, openEditor } from "../helpers/sockets";

/** How long an editing session lasts here before its version is kept (5 minutes in production). */
const SESSION_MS = 700;
const VERSION_KEYS = ["author_user_ids", "checksum_sha256", "created_at", "file_id", "id", "size_bytes"];
const NO_ID = "01a1fdb9-0000-7000-8000-0000000000aa";

let server: TestServer;
let org: Org;
let member: Person;
let other: Person;
let viewer: Person;
let staff: Awaited<ReturnType<typeof addStaff>>;
let spaceId: string;
let files: string;
let base: string;
let live: Listener;
const editors: Editor[] = [];

beforeAll(async () => {
  server = await startTestServer({ docs: { idleMs: 300, versionEveryMs: SESSION_MS } });
  org = await setupOrg(server);
  member = await addMember(org, ["Member"], "Mia Member");
  other = await addMember(org, ["Member"], "Oscar Other");
  viewer = await addMember(org, ["Viewer"], "Vic Viewer");
  staff = await addStaff(org);
  const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Docs" });
  spaceId = space.body.id;
  files = `/api/v1/organizations/${org.id}/spaces/${spaceId}/files`;
  base = collabBase(server.url, org.id, spaceId);
  live = await listen(server.url, org.id, other.token);
});
afterAll(async () => {
  live.close();
  for (const editor of editors) editor.destroy();
  await server.stop();
});

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const versionsOf = (fileId: string) => `${files}/${fileId}/versions`;

let counter = 0;
async function textFile(content: string, name = `notes-${++counter}.md`, parentId?: string): Promise<any> {
  const res = await member.api.post(`${files}/text`, { name, content, parent_id: parentId });
  if (res.status !== 201) throw new Error(`text create failed: ${res.status} ${res.text}`);
  return res.body.node;
}

async function put(fileId: string, text: string, as: Person = member) {
  const res = await as.api.put(`${files}/${fileId}/content`, undefined, { raw: text, contentType: "text/plain" });
  if (res.status !== 200) throw new Error(`put failed: ${res.status} ${res.text}`);
  return res.body.node;
}

async function versions(fileId: string, as: { api: Person["api"] } = member): Promise<any[]> {
  const res = await as.api.get(versionsOf(fileId));
  expect(res.status).toBe(200);
  expect(Object.keys(res.body)).toEqual(["versions"]);
  return res.body.versions;
}

async function versionText(fileId: string, versionId: string): Promise<string> {
  const res = await member.api.get(`${versionsOf(fileId)}/${versionId}/content`);
  expect(res.status).toBe(200);
  return res.text;
}

async function content(fileId: string): Promise<string> {
  const res = await member.api.get(`${files}/${fileId}/content`);
  expect(res.status).toBe(200);
  return res.text;
}

async function editor(fileId: string, token = member.token): Promise<Editor> {
  const e = openEditor(base, fileId, token);
  editors.push(e);
  await e.synced();
  return e;
}

/** Polls the versions until `check` holds; returns them. */
async function versionsSoon(fileId: string, check: (list: any[]) => boolean, what: string): Promise<any[]> {
  let list: any[] = [];
  const until = Date.now() + 5000;
  while (Date.now() < until) {
    list = await versions(fileId);
    if (check(list)) return list;
    await Bun.sleep(25);
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(list)}`);
}

describe("GET .../files/{id}/versions", () => {
  it("a new text file has none: its history starts with its first change", async () => {
    const file = await textFile("# Plan\n");
    expect(await versions(file.id)).toEqual([]);
  });

  it("a REST PUT keeps the text before it (its creator's) and the text after it (the writer's), newest first", async () => {
    const file = await textFile("first\n");
    await put(file.id, "second\n", other);
    const list = await versions(file.id);
    expect(list).toHaveLength(2);
    for (const version of list) {
      expect(Object.keys(version).sort()).toEqual(VERSION_KEYS);
      expect(version.id).toMatch(UUID);
      expect(version.file_id).toBe(file.id);
      expect(version.created_at).toMatch(TIMESTAMP);
    }
    const [after, before] = list;
    expect(after).toMatchObject({
      size_bytes: 7,
      checksum_sha256: sha256("second\n"),
      author_user_ids: [other.id],
    });
    expect(before).toMatchObject({
      size_bytes: 6,
      checksum_sha256: sha256("first\n"),
      author_user_ids: [member.id],
    });
    expect(Date.parse(after.created_at)).toBeGreaterThan(Date.parse(before.created_at));
    expect(await versionText(file.id, after.id)).toBe("second\n");
    expect(await versionText(file.id, before.id)).toBe("first\n");
  });

  it("each later PUT adds one version (the text before it is kept already); an unchanged text adds none", async () => {
    const file = await textFile("one\n");
    await put(file.id, "two\n");
    await put(file.id, "three\n");
    await put(file.id, "three\n");
    const list = await versions(file.id);
    expect(list.map((v) => v.checksum_sha256)).toEqual([sha256("three\n"), sha256("two\n"), sha256("one\n")]);
  });

  it("an accepted proposal keeps a version, made by the person who accepted it", async () => {
    const file = await textFile("draft\n");
    const proposal = await staff.api.post(`${files}/${file.id}/proposals`, { proposed_content: "final\n" });
    expect(proposal.status).toBe(201);
    const accepted = await other.api.post(`${files}/proposals/${proposal.body.proposal.id}/accept`);
    expect(accepted.status).toBe(200);
    const list = await versions(file.id);
    expect(list.map((v) => [v.checksum_sha256, v.author_user_ids])).toEqual([
      [sha256("final\n"), [other.id]],
      [sha256("draft\n"), [member.id]],
    ]);
  });

  it("is announced live as file.version.created, with the version as the list has it", async () => {
    const file = await textFile("a\n");
    await put(file.id, "b\n");
    const list = await versions(file.id);
    for (const version of list) {
      const event = await live.next((e) => e.type === "file.version.created" && e.payload.id === version.id);
      expect(event).toEqual({
        type: "file.version.created",
        organization_id: org.id,
        space_id: spaceId,
        payload: version,
      });
    }
  });

  it("while people type, keeps the text before the session and one version at its end, naming who typed", async () => {
    const file = await textFile("start\n");
    const a = await editor(file.id);
    const b = await editor(file.id, other.token);
    a.insert(0, "A ");
    b.insert(b.text().length, "B\n");
    const started = Date.now();
    // The text before anyone typed is kept at once; the session's own version after the interval.
    const first = await versionsSoon(file.id, (l) => l.length >= 1, "the text before the session");
    expect(first[0]).toMatchObject({ checksum_sha256: sha256("start\n"), author_user_ids: [member.id] });
    const list = await versionsSoon(file.id, (l) => l.length === 2, "the session's version");
    expect(Date.now() - started).toBeGreaterThanOrEqual(SESSION_MS - 50);
    await eventually(() => a.text() === b.text(), "editors converge");
    expect(list[0].checksum_sha256).toBe(sha256(a.text()));
    expect([...list[0].author_user_ids].sort()).toEqual([member.id, other.id].sort());
    expect(await versionText(file.id, list[0].id)).toBe(a.text());
  });

  it("keeps at most one version per interval while edits keep arriving", async () => {
    const file = await textFile("x\n");
    const a = await editor(file.id);
    const until = Date.now() + SESSION_MS * 3;
    while (Date.now() < until) {
      a.insert(a.text().length, "typing ");
      await Bun.sleep(40);
    }
    await Bun.sleep(SESSION_MS + 200);
    const list = (await versions(file.id)).reverse();
    // The text before the first keystroke, then one per session of SESSION_MS.
    expect(list[0].checksum_sha256).toBe(sha256("x\n"));
    const sessions = list.slice(1);
    expect(sessions.length).toBeGreaterThanOrEqual(2);
    expect(sessions.length).toBeLessThanOrEqual(4);
    for (let i = 1; i < sessions.length; i++) {
      const gap = Date.parse(sessions[i].created_at) - Date.parse(sessions[i - 1].created_at);
      expect(gap).toBeGreaterThanOrEqual(SESSION_MS - 50);
    }
    expect(sessions.at(-1).checksum_sha256).toBe(sha256(await content(file.id)));
  });

  it("keeps the session's version when the last editor leaves and the document unloads", async () => {
    const file = await textFile("left\n");
    const a = await editor(file.id);
    a.insert(0, "edited and ");
    await eventually(() => a.text() === "edited and left\n", "the edit");
    await Bun.sleep(100);
    a.destroy();
    const list = await versionsSoon(file.id, (l) => l.length === 2, "the version at unload");
    expect(list[0]).toMatchObject({ checksum_sha256: sha256("edited and left\n"), author_user_ids: [member.id] });
  });

  it("a viewer lists versions and reads their text (files.read); a binary file has none", async () => {
    const file = await textFile("v\n");
    await put(file.id, "w\n");
    expect(await versions(file.id, viewer)).toHaveLength(2);
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array([0, 1, 2, 255])]), "image.png");
    const up = await fetch(`${server.url}${files}/upload`, {
      method: "POST",
      headers: { authorization: `Bearer ${member.token}` },
      body: form,
    });
    const binary = ((await up.json()) as any).node;
    expect(await versions(binary.id)).toEqual([]);
  });
});

describe("GET .../files/{id}/versions/{versionId}/content", () => {
  it("answers the version's text as the content route serves text: type, ETag, sandbox", async () => {
    const file = await textFile("héllo 👋\n", "greeting.md");
    await put(file.id, "bye\n");
    const [, before] = await versions(file.id);
    const res = await fetch(`${server.url}${versionsOf(file.id)}/${before.id}/content`, {
      headers: { authorization: `Bearer ${member.token}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(res.headers.get("etag")).toBe(`"${sha256("héllo 👋\n")}"`);
    expect(res.headers.get("content-security-policy")).toContain("sandbox");
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(bytes.byteLength).toBe(before.size_bytes);
    expect(new TextDecoder().decode(bytes)).toBe("héllo 👋\n");
  });
});

describe("POST .../files/{id}/versions/{versionId}/restore", () => {
  it("gives the file the version's text again, keeping the text it replaces; answers {node}", async () => {
    const file = await textFile("alpha\n");
    await put(file.id, "beta\n");
    const [, alpha] = await versions(file.id);
    // Typed after the last version: restoring must not lose it.
    const a = await editor(file.id);
    a.insert(a.text().length, "gamma\n");
    await eventually(() => a.text() === "beta\ngamma\n", "the edit");
    await Bun.sleep(50);
    const res = await other.api.post(`${versionsOf(file.id)}/${alpha.id}/restore`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["node"]);
    expect(res.body.node).toMatchObject({ id: file.id, size_bytes: 6, checksum_sha256: sha256("alpha\n") });
    expect(await content(file.id)).toBe("alpha\n");
    await eventually(() => a.text() === "alpha\n", "the editor sees the restore");
    const list = await versions(file.id);
    expect(list.map((v) => v.checksum_sha256)).toEqual([
      sha256("alpha\n"),
      sha256("beta\ngamma\n"),
      sha256("beta\n"),
      sha256("alpha\n"),
    ]);
    expect(list[0].author_user_ids).toEqual([other.id]);
    expect(list[1].author_user_ids).toEqual([member.id]);
    await live.next((e) => e.type === "file.updated" && e.payload.id === file.id && e.payload.size_bytes === 6);
  });

  it("applies through the live document while someone types: nothing is lost and both converge", async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}`);
    const file = await textFile(`${lines.join("\n")}\n`);
    await put(file.id, `${lines.map((l) => `${l} changed`).join("\n")}\n`);
    const [, original] = await versions(file.id);
    const a = await editor(file.id);
    const b = await editor(file.id, other.token);
    // Typing goes on before, during and after the restore, at both ends of the text.
    let typing = true;
    const typed: string[] = [];
    let restoredAt = -1;
    const loop = (async () => {
      for (let i = 0; typing; i++) {
        const word = `<${i}>`;
        typed.push(word);
        if (i % 2 === 0) a.insert(0, word);
        else a.insert(a.text().length, word);
        if (restoredAt < 0 && !a.text().includes("changed")) restoredAt = i;
        await Bun.sleep(5);
      }
    })();
    await Bun.sleep(40);
    const res = await member.api.post(`${versionsOf(file.id)}/${original.id}/restore`);
    expect(res.status).toBe(200);
    await Bun.sleep(80);
    typing = false;
    await loop;
    await eventually(() => a.text() === b.text(), "the two editors converge");
    let text = await content(file.id);
    const until = Date.now() + 5000;
    while (text !== a.text() && Date.now() < until) {
      await Bun.sleep(20);
      text = await content(file.id);
    }
    expect(text).toBe(a.text());
    // The version's lines are back, and whatever was typed is in the text or in the version kept before it.
    for (const line of lines) expect(text).toContain(`${line}\n`);
    expect(text).not.toContain("changed");
    expect(restoredAt).toBeGreaterThan(0);
    for (const word of typed.slice(restoredAt)) expect(text).toContain(word);
    // The newest version holding the replaced text is the one kept just before the restore.
    let before = "";
    for (const version of await versions(file.id)) {
      before = await versionText(file.id, version.id);
      if (before.includes("changed")) break;
    }
    expect(before).toContain("changed");
    for (const word of typed) expect(text.includes(word) || before.includes(word), word).toBe(true);
  });

  it("changes only the lines that differ: an editor's cursor in an unchanged line stays where it was", async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}`);
    const original = `${lines.join("\n")}\n`;
    const file = await textFile(original);
    await put(file.id, original.replace("line 3\n", "line three\n").replace("line 15\n", "line fifteen\n"));
    const [, version] = await versions(file.id);
    const a = await editor(file.id);
    // A cursor after "line 1" of "line 10", as an editor keeps it: relative to the text around it.
    const offset = a.text().indexOf("line 10") + 6;
    const cursor = Y.createRelativePositionFromTypeIndex(a.doc.getText("content"), offset);
    expect((await member.api.post(`${versionsOf(file.id)}/${version.id}/restore`)).status).toBe(200);
    await eventually(() => a.text() === original, "the editor sees the restore");
    const moved = Y.createAbsolutePositionFromRelativePosition(cursor, a.doc);
    expect(moved?.index).toBe(original.indexOf("line 10") + 6);
  });

  it("restores a version of before several edits, and a restore can itself be undone by restoring again", async () => {
    const file = await textFile("v1\n");
    await put(file.id, "v2\n");
    await put(file.id, "v3\n");
    const byText = async () => new Map((await versions(file.id)).map((v) => [v.checksum_sha256, v.id]));
    await member.api.post(`${versionsOf(file.id)}/${(await byText()).get(sha256("v1\n"))}/restore`);
    expect(await content(file.id)).toBe("v1\n");
    await member.api.post(`${versionsOf(file.id)}/${(await byText()).get(sha256("v3\n"))}/restore`);
    expect(await content(file.id)).toBe("v3\n");
  });
});

describe("a file's versions go with the file", () => {
  const rows = (fileId: string) => {
    const db = openDataDirDatabase(server.dataDir, { readonly: true });
    try {
      return (db.query("SELECT count(*) AS n FROM file_versions WHERE node_id = ?").get(fileId) as { n: number }).n;
    } finally {
      db.close();
    }
  };

  it("deleting a file deletes its versions; its routes answer 404 file not found", async () => {
    const file = await textFile("keep\n");
    await put(file.id, "gone\n");
    const [version] = await versions(file.id);
    expect(rows(file.id)).toBe(2);
    expect((await member.api.delete(`${files}/${file.id}`)).status).toBe(204);
    expect(rows(file.id)).toBe(0);
    for (const res of [
      await member.api.get(versionsOf(file.id)),
      await member.api.get(`${versionsOf(file.id)}/${version.id}/content`),
      await member.api.post(`${versionsOf(file.id)}/${version.id}/restore`),
    ]) {
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: { error: "file not found" } });
    }
  });

  it("deleting a folder deletes the versions of every file below it", async () => {
    const folder = (await member.api.post(`${files}/folders`, { name: `folder-${++counter}` })).body.node;
    const sub = (await member.api.post(`${files}/folders`, { name: "sub", parent_id: folder.id })).body.node;
    const file = await textFile("deep\n", "deep.md", sub.id);
    await put(file.id, "deeper\n");
    expect(rows(file.id)).toBe(2);
    expect((await member.api.delete(`${files}/${folder.id}`)).status).toBe(204);
    expect(rows(file.id)).toBe(0);
  });

  it("moving or renaming a file keeps its versions", async () => {
    const file = await textFile("moved\n");
    await put(file.id, "moved again\n");
    const res = await member.api.patch(`${files}/${file.id}`, { name: `renamed-${++counter}.md` });
    expect(res.status).toBe(200);
    expect(await versions(file.id)).toHaveLength(2);
  });
});

describe("who may do what, and answers for what is not there", () => {
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    const file = await textFile("mine\n");
    await put(file.id, "yours\n");
    const [version] = await versions(file.id);
    const otherFile = await textFile("theirs\n");
    const folder = (await member.api.post(`${files}/folders`, { name: `dir-${++counter}` })).body.node;
    const privateSpace = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, {
      name: "Secret",
      private: true,
    });
    Object.assign(ids, {
      file: file.id,
      version: version.id,
      otherFile: otherFile.id,
      folder: folder.id,
      privateSpace: privateSpace.body.id,
    });
  });

  const path = "/api/v1/organizations/{org}/spaces/{space}/files";
  const version = `${path}/{file}/versions/{version}`;
  const unknown = `${path}/{file}/versions/${NO_ID}`;
  const ofOtherFile = `${path}/{otherFile}/versions/{version}`;
  /** One line: method, path, caller, status and, for a refusal, its error. */
  const line = (method: string, url: string, as: string, status: number, error?: string, name?: string) => ({
    method,
    url,
    as,
    status,
    error,
    name,
  });
  const another = "(a version of another file)";
  scenarios(
    {
      url: () => server.url,
      tokens: () => ({ member: member.token, viewer: viewer.token, staff: staff.token, nobody: undefined }),
      params: () => ({ org: org.id, space: spaceId, ...ids }),
    },
    [
      line("GET", `${path}/{file}/versions`, "staff", 200),
      line("GET", `${path}/{file}/versions`, "nobody", 401, "unauthorized"),
      line("GET", `${path}/${NO_ID}/versions`, "member", 404, "file not found"),
      line("GET", `${path}/not-a-uuid/versions`, "member", 404, "file not found"),
      line("GET", `${path}/{folder}/versions`, "member", 400, "a folder has no content"),
      line(
        "GET",
        "/api/v1/organizations/{org}/spaces/{privateSpace}/files/{file}/versions",
        "member",
        404,
        "space not found",
      ),
      line("GET", `${version}/content`, "viewer", 200),
      line("GET", `${unknown}/content`, "member", 404, "version not found"),
      line("GET", `${path}/{file}/versions/nope/content`, "member", 404, "version not found"),
      line("GET", `${ofOtherFile}/content`, "member", 404, "version not found", another),
      line("POST", `${version}/restore`, "staff", 403, "only a person can restore a version"),
      line("POST", `${version}/restore`, "viewer", 403, "missing permission: files.write"),
      line("POST", `${unknown}/restore`, "member", 404, "version not found"),
      line("POST", `${ofOtherFile}/restore`, "member", 404, "version not found", another),
      { ...line("POST", `${version}/restore`, "member", 200), body: { unknown: true } },
      {
        ...line("POST", `${version}/restore`, "member", 400, "content-type must be application/json"),
        options: () => ({ raw: "{}", contentType: "text/plain" }),
        name: "(a body that is not declared JSON)",
      },
    ],
  );
});
