/**
 * File edit proposals (contract §6 and §7 "File edit proposals"): `GET|POST .../files/{id}/proposals` and
 * `POST .../files/proposals/{proposalId}/accept|reject`. Anyone who can read a text file proposes a whole new text
 * for it; a person with `files.write` accepts (the file takes the text, in the live document) or rejects it.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHash } from "node:crypto";
import { type addStaff, type Org, type Person, staffWorld } from "../helpers/factories";
import { TIMESTAMP, UUID } from "../helpers/http";
import type { TestServer } from "../helpers/server";
import { collabBase, type Editor, eventually, openEditor } from "../helpers/sockets";

const PROPOSAL_KEYS = [
  "author_user_id",
  "base_content_sha256",
  "created_at",
  "id",
  "node_id",
  "note",
  "proposed_content",
  "resolved_at",
  "resolved_by",
  "space_id",
  "status",
];
const NO_ID = "01a1fdb9-0000-7000-8000-0000000000aa";
const FILE_NOT_FOUND = { error: "file not found" };
const PROPOSAL_NOT_FOUND = { error: "proposal not found" };
const NOT_PENDING = { error: "proposal is not pending" };

let server: TestServer;
let org: Org;
let member: Person;
let viewer: Person;
let outsider: Person;
let staff: Awaited<ReturnType<typeof addStaff>>;
let spaceId: string;
let otherSpaceId: string;
let privateSpaceId: string;
const editors: Editor[] = [];

const filesOf = (space: string) => `/api/v1/organizations/${org.id}/spaces/${space}/files`;
const files = () => filesOf(spaceId);
const proposalsOf = (fileId: string, space = spaceId) => `${filesOf(space)}/${fileId}/proposals`;
const resolve = (proposalId: string, action: "accept" | "reject", space = spaceId) =>
  `${filesOf(space)}/proposals/${proposalId}/${action}`;
const sha256 = (text: string | Uint8Array) => createHash("sha256").update(text).digest("hex");

let counter = 0;
const unique = (name: string) => `${++counter}-${name}`;

async function textFile(content: string, space = spaceId, as: Person = member): Promise<any> {
  const res = await as.api.post(`${filesOf(space)}/text`, { name: unique("notes.md"), content });
  if (res.status !== 201) throw new Error(`text create failed: ${res.status} ${res.text}`);
  return res.body.node;
}

async function propose(fileId: string, body: Record<string, unknown>, as: { api: Person["api"] } = member) {
  const res = await as.api.post(proposalsOf(fileId), body);
  if (res.status !== 201) throw new Error(`proposal create failed: ${res.status} ${res.text}`);
  return res.body.proposal;
}

/** GET .../content as text. */
async function content(fileId: string): Promise<string> {
  const res = await fetch(`${server.url}${files()}/${fileId}/content`, {
    headers: { authorization: `Bearer ${member.token}` },
  });
  expect(res.status).toBe(200);
  return res.text();
}

/** Polls GET .../content until it answers `expected` (or 5 s pass); returns what it last answered. */
async function servedSoon(fileId: string, expected: string): Promise<string> {
  const until = Date.now() + 5000;
  let served = await content(fileId);
  while (served !== expected && Date.now() < until) {
    await Bun.sleep(10);
    served = await content(fileId);
  }
  return served;
}

async function nodeOf(fileId: string): Promise<any> {
  return (await member.api.get(`${files()}/${fileId}`)).body.node;
}

async function proposalsList(fileId: string, as: { api: Person["api"] } = member): Promise<any[]> {
  const res = await as.api.get(proposalsOf(fileId));
  expect(res.status).toBe(200);
  return res.body.proposals;
}

beforeAll(async () => {
  ({ server, org, member, viewer, outsider, staff, spaceId, otherSpaceId, privateSpaceId } = await staffWorld([
    "Docs",
    "Other",
  ]));
});
afterAll(async () => {
  for (const editor of editors) editor.destroy();
  await server.stop();
});

describe("POST .../files/{id}/proposals", () => {
  it("creates a pending proposal with every field of the contract; note defaults to empty", async () => {
    const original = "# Plan\n\n- one\n";
    const file = await textFile(original);
    const res = await member.api.post(proposalsOf(file.id), { proposed_content: "# Plan\n\n- one\n- two\n" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(["proposal"]);
    const p = res.body.proposal;
    expect(Object.keys(p).sort()).toEqual(PROPOSAL_KEYS);
    expect(p).toEqual({
      id: p.id,
      space_id: spaceId,
      node_id: file.id,
      author_user_id: member.id,
      base_content_sha256: sha256(original),
      proposed_content: "# Plan\n\n- one\n- two\n",
      note: "",
      status: "pending",
      created_at: p.created_at,
      resolved_at: null,
      resolved_by: null,
    });
    expect(p.id).toMatch(UUID);
    expect(p.created_at).toMatch(TIMESTAMP);
    expect(p.base_content_sha256).toBe(file.checksum_sha256);
    // Proposing changes nothing yet.
    expect(await content(file.id)).toBe(original);
  });

  it("keeps a note, and unicode text exactly", async () => {
    const file = await textFile("a");
    const text = "héllo — 👋 日本語\n";
    const p = await propose(file.id, { proposed_content: text, note: "Fix the greeting" });
    expect(p.note).toBe("Fix the greeting");
    expect(p.proposed_content).toBe(text);
  });

  it("is open to a service account and to a Viewer (files.read)", async () => {
    const file = await textFile("base");
    const bySa = await staff.api.post(proposalsOf(file.id), { proposed_content: "from staff" });
    expect(bySa.status).toBe(201);
    expect(bySa.body.proposal).toMatchObject({ author_user_id: staff.account.user_id, status: "pending" });
    const byViewer = await viewer.api.post(proposalsOf(file.id), { proposed_content: "from viewer" });
    expect(byViewer.status).toBe(201);
    expect(byViewer.body.proposal.author_user_id).toBe(viewer.id);
    expect((await staff.api.get(proposalsOf(file.id))).status).toBe(200);
    expect((await viewer.api.get(proposalsOf(file.id))).status).toBe(200);
  });

  it("answers 400 naming the field for a missing or invalid proposed_content or note", async () => {
    const file = await textFile("x");
    const cases: [unknown, string][] = [
      [{}, "proposed_content: required"],
      [{ proposed_content: 5 }, "proposed_content: must be a string"],
      [{ proposed_content: null }, "proposed_content: must be a string"],
      [{ proposed_content: "y", note: 3 }, "note: must be a string"],
    ];
    for (const [body, error] of cases) {
      const res = await member.api.post(proposalsOf(file.id), body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error });
    }
    const text = await member.api.post(proposalsOf(file.id), undefined, {
      raw: JSON.stringify({ proposed_content: "y" }),
      contentType: "text/plain",
    });
    expect(text.status).toBe(400);
    expect(text.body).toEqual({ error: "content-type must be application/json" });
    expect(await proposalsList(file.id)).toEqual([]);
  });
});

describe("GET .../files/{id}/proposals", () => {
  it("lists every proposal of the file whatever its status, newest first, and only that file's", async () => {
    const file = await textFile("v1");
    const other = await textFile("other");
    await propose(other.id, { proposed_content: "elsewhere" });
    const first = await propose(file.id, { proposed_content: "first", note: "1" });
    const second = await propose(file.id, { proposed_content: "second", note: "2" }, staff);
    const third = await propose(file.id, { proposed_content: "third", note: "3" });
    const rejected = await org.owner.api.post(resolve(second.id, "reject"));
    expect(rejected.status).toBe(200);
    const accepted = await org.owner.api.post(resolve(third.id, "accept"));
    expect(accepted.status).toBe(200);

    const res = await member.api.get(proposalsOf(file.id));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["proposals"]);
    const list = res.body.proposals;
    expect(list.map((p: { id: string }) => p.id)).toEqual([third.id, second.id, first.id]);
    expect(list.map((p: { status: string }) => p.status)).toEqual(["accepted", "rejected", "pending"]);
    for (const p of list) expect(Object.keys(p).sort()).toEqual(PROPOSAL_KEYS);
    expect(list[0]).toEqual(accepted.body.proposal);
    expect(list[1]).toEqual(rejected.body.proposal);
    expect(list[2]).toEqual(first);
    const created = list.map((p: { created_at: string }) => Date.parse(p.created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
  });

  it("answers an empty list for a file without proposals", async () => {
    const file = await textFile("quiet");
    expect(await proposalsList(file.id)).toEqual([]);
  });
});

describe("POST .../files/proposals/{pid}/accept", () => {
  it("applies the text: content, size and checksum match; the proposal records who and when", async () => {
    const file = await textFile("Hello\n");
    const text = "Hello, wörld 👋\nSecond line\n";
    const p = await propose(file.id, { proposed_content: text }, staff);
    const res = await org.owner.api.post(resolve(p.id, "accept"));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["proposal"]);
    expect(res.body.proposal).toEqual({
      ...p,
      status: "accepted",
      resolved_at: res.body.proposal.resolved_at,
      resolved_by: org.owner.id,
    });
    expect(res.body.proposal.resolved_at).toMatch(TIMESTAMP);
    expect(await content(file.id)).toBe(text);
    const node = await nodeOf(file.id);
    expect(node.size_bytes).toBe(Buffer.byteLength(text, "utf8"));
    expect(node.checksum_sha256).toBe(sha256(text));
  });

  it("accepts no body or {}", async () => {
    for (const body of [undefined, {}]) {
      const file = await textFile("base");
      const p = await propose(file.id, { proposed_content: `new ${JSON.stringify(body)}` });
      const res = await member.api.post(resolve(p.id, "accept"), body);
      expect(res.status).toBe(200);
      expect(res.body.proposal.status).toBe("accepted");
      expect(res.body.proposal.resolved_by).toBe(member.id);
      expect(await content(file.id)).toBe(`new ${JSON.stringify(body)}`);
    }
  });

  it("can empty a file", async () => {
    const file = await textFile("something");
    const p = await propose(file.id, { proposed_content: "" });
    expect((await member.api.post(resolve(p.id, "accept"))).status).toBe(200);
    expect(await content(file.id)).toBe("");
    expect((await nodeOf(file.id)).size_bytes).toBe(0);
  });

  it("applies a proposal based on content written by PUT before it was made", async () => {
    const file = await textFile("v1");
    const put = await member.api.put(`${files()}/${file.id}/content`, undefined, {
      raw: "v2",
      contentType: "text/plain",
    });
    expect(put.status).toBe(200);
    const p = await propose(file.id, { proposed_content: "v3" });
    expect(p.base_content_sha256).toBe(sha256("v2"));
    const res = await member.api.post(resolve(p.id, "accept"));
    expect(res.status).toBe(200);
    expect(await content(file.id)).toBe("v3");
  });

  it("answers 409 file changed since the proposal when the file changed in between, leaving it pending", async () => {
    const file = await textFile("original");
    const p = await propose(file.id, { proposed_content: "proposed" });
    const put = await member.api.put(`${files()}/${file.id}/content`, undefined, {
      raw: "edited meanwhile",
      contentType: "text/plain",
    });
    expect(put.status).toBe(200);
    const res = await org.owner.api.post(resolve(p.id, "accept"));
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "file changed since the proposal" });
    expect(await content(file.id)).toBe("edited meanwhile");
    const [listed] = await proposalsList(file.id);
    expect(listed).toEqual(p);
    // Rejecting it is still possible.
    const reject = await org.owner.api.post(resolve(p.id, "reject"));
    expect(reject.status).toBe(200);
    expect(reject.body.proposal.status).toBe("rejected");
  });

  it("of the second of two proposals on the same base answers 409 once the first is applied", async () => {
    const file = await textFile("base");
    const a = await propose(file.id, { proposed_content: "A" });
    const b = await propose(file.id, { proposed_content: "B" });
    expect((await member.api.post(resolve(a.id, "accept"))).status).toBe(200);
    const res = await member.api.post(resolve(b.id, "accept"));
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "file changed since the proposal" });
    expect(await content(file.id)).toBe("A");
  });

  it("reaches a collaborator connected over the collab socket", async () => {
    const file = await textFile("shared text\n");
    const editor = openEditor(collabBase(server.url, org.id, spaceId), file.id, member.token);
    editors.push(editor);
    await editor.synced();
    expect(editor.text()).toBe("shared text\n");
    const p = await propose(file.id, { proposed_content: "shared text, improved by staff\n" }, staff);
    const res = await org.owner.api.post(resolve(p.id, "accept"));
    expect(res.status).toBe(200);
    await eventually(() => editor.text() === "shared text, improved by staff\n", "the accepted text in the editor");
    expect(await content(file.id)).toBe("shared text, improved by staff\n");
  });

  it("bases a proposal on text typed in the editor, and applies it; a later keystroke makes it 409", async () => {
    const file = await textFile("draft\n");
    const editor = openEditor(collabBase(server.url, org.id, spaceId), file.id, member.token);
    editors.push(editor);
    await editor.synced();
    editor.insert(0, "typed ");
    expect(await servedSoon(file.id, "typed draft\n")).toBe("typed draft\n");
    const p = await propose(file.id, { proposed_content: "typed draft, reviewed\n" }, staff);
    expect(p.base_content_sha256).toBe(sha256("typed draft\n"));
    const res = await member.api.post(resolve(p.id, "accept"));
    expect(res.status).toBe(200);
    await eventually(() => editor.text() === "typed draft, reviewed\n", "the accepted text in the editor");

    const q = await propose(file.id, { proposed_content: "never applied\n" }, staff);
    editor.insert(0, "!");
    expect(await servedSoon(file.id, "!typed draft, reviewed\n")).toBe("!typed draft, reviewed\n");
    const late = await member.api.post(resolve(q.id, "accept"));
    expect(late.status).toBe(409);
    expect(late.body).toEqual({ error: "file changed since the proposal" });
    expect(editor.text()).toBe("!typed draft, reviewed\n");
  });
});

describe("POST .../files/proposals/{pid}/reject", () => {
  it("marks the proposal rejected and leaves the file alone", async () => {
    const file = await textFile("keep me");
    const p = await propose(file.id, { proposed_content: "replace me" }, staff);
    const res = await member.api.post(resolve(p.id, "reject"));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.proposal).sort()).toEqual(PROPOSAL_KEYS);
    expect(res.body.proposal).toEqual({
      ...p,
      status: "rejected",
      resolved_at: res.body.proposal.resolved_at,
      resolved_by: member.id,
    });
    expect(res.body.proposal.resolved_at).toMatch(TIMESTAMP);
    expect(await content(file.id)).toBe("keep me");
  });

  it("accepts no body or {}", async () => {
    for (const body of [undefined, {}]) {
      const file = await textFile("x");
      const p = await propose(file.id, { proposed_content: "y" });
      const res = await member.api.post(resolve(p.id, "reject"), body);
      expect(res.status).toBe(200);
      expect(res.body.proposal.status).toBe("rejected");
    }
  });
});

describe("resolving rules", () => {
  it("a JSON body without the JSON content type answers 400 on accept and reject", async () => {
    const file = await textFile("x");
    const p = await propose(file.id, { proposed_content: "y" });
    for (const action of ["accept", "reject"] as const) {
      const res = await member.api.post(resolve(p.id, action), undefined, { raw: "{}", contentType: "text/plain" });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "content-type must be application/json" });
    }
    expect((await proposalsList(file.id))[0].status).toBe("pending");
    expect(await content(file.id)).toBe("x");
  });

  it("answers 409 proposal is not pending for an accepted or rejected proposal", async () => {
    const file = await textFile("x");
    const accepted = await propose(file.id, { proposed_content: "y" });
    expect((await member.api.post(resolve(accepted.id, "accept"))).status).toBe(200);
    const rejected = await propose(file.id, { proposed_content: "z" });
    expect((await member.api.post(resolve(rejected.id, "reject"))).status).toBe(200);
    for (const id of [accepted.id, rejected.id]) {
      for (const action of ["accept", "reject"] as const) {
        const res = await org.owner.api.post(resolve(id, action));
        expect(res.status).toBe(409);
        expect(res.body).toEqual(NOT_PENDING);
      }
    }
    expect(await content(file.id)).toBe("y");
    const statuses = (await proposalsList(file.id)).map((p) => p.status);
    expect(statuses).toEqual(["rejected", "accepted"]);
  });

  it("an accept racing a reject resolves once, and the file agrees with the recorded status", async () => {
    // Accepting writes the text first and records the status after; a reject landing in between must not leave
    // the file holding a proposal that is listed as rejected (the accept answering 409 although it applied).
    for (let i = 0; i < 5; i++) {
      const file = await textFile("base");
      const p = await propose(file.id, { proposed_content: "proposed" });
      const [accept, reject] = await Promise.all([
        member.api.post(resolve(p.id, "accept")),
        org.owner.api.post(resolve(p.id, "reject")),
      ]);
      const [final] = await proposalsList(file.id);
      const text = await content(file.id);
      expect([accept.status, reject.status].sort()).toEqual([200, 409]);
      const loser = accept.status === 409 ? accept : reject;
      expect(loser.body).toEqual(NOT_PENDING);
      if (accept.status === 200) {
        expect(final.status).toBe("accepted");
        expect(text).toBe("proposed");
      } else {
        expect(final.status).toBe("rejected");
        expect(text).toBe("base");
      }
    }
  });

  it("a service account (which holds files.write) gets 403 on accept and reject", async () => {
    const file = await textFile("x");
    const p = await propose(file.id, { proposed_content: "y" }, staff);
    for (const action of ["accept", "reject"] as const) {
      const res = await staff.api.post(resolve(p.id, action));
      expect(res.status).toBe(403);
      expect(typeof res.body.error).toBe("string");
    }
    expect((await proposalsList(file.id))[0]).toEqual(p);
    expect(await content(file.id)).toBe("x");
  });

  it("a Viewer gets 403 missing permission: files.write on accept and reject", async () => {
    const file = await textFile("x");
    const p = await propose(file.id, { proposed_content: "y" }, viewer);
    for (const action of ["accept", "reject"] as const) {
      const res = await viewer.api.post(resolve(p.id, action));
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: "missing permission: files.write" });
    }
    expect((await proposalsList(file.id))[0].status).toBe("pending");
  });

  it("answers 404 proposal not found for a malformed, unknown or other space's proposal", async () => {
    const elsewhere = await textFile("o", otherSpaceId);
    const res = await member.api.post(proposalsOf(elsewhere.id, otherSpaceId), { proposed_content: "p" });
    expect(res.status).toBe(201);
    for (const id of ["not-a-uuid", NO_ID, res.body.proposal.id]) {
      for (const action of ["accept", "reject"] as const) {
        const r = await org.owner.api.post(resolve(id, action));
        expect(r.status).toBe(404);
        expect(r.body).toEqual(PROPOSAL_NOT_FOUND);
      }
    }
  });

  it("accepting or rejecting a proposal of a file deleted since answers 404 file not found", async () => {
    const file = await textFile("x");
    const p = await propose(file.id, { proposed_content: "y" });
    expect((await member.api.delete(`${files()}/${file.id}`)).status).toBe(204);
    for (const action of ["accept", "reject"] as const) {
      const res = await member.api.post(resolve(p.id, action));
      expect(res.status).toBe(404);
      expect(res.body).toEqual(FILE_NOT_FOUND);
    }
  });

  it("a JSON body that is not an object answers 400 on accept and reject, leaving the proposal pending", async () => {
    const file = await textFile("x");
    const p = await propose(file.id, { proposed_content: "y" });
    for (const action of ["accept", "reject"] as const) {
      for (const raw of ["[]", '"yes"', "5"]) {
        const res = await member.api.post(resolve(p.id, action), undefined, { raw, contentType: "application/json" });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: "body must be a JSON object" });
      }
    }
    expect((await proposalsList(file.id))[0].status).toBe("pending");
  });
});

describe("files that cannot take proposals", () => {
  it("an unknown, malformed or deleted file answers 404 file not found on list and create", async () => {
    const deleted = await textFile("gone");
    expect((await member.api.delete(`${files()}/${deleted.id}`)).status).toBe(204);
    const elsewhere = await textFile("o", otherSpaceId);
    for (const id of [NO_ID, "not-a-uuid", deleted.id, elsewhere.id]) {
      const list = await member.api.get(proposalsOf(id));
      expect(list.status).toBe(404);
      expect(list.body).toEqual(FILE_NOT_FOUND);
      const create = await member.api.post(proposalsOf(id), { proposed_content: "x" });
      expect(create.status).toBe(404);
      expect(create.body).toEqual(FILE_NOT_FOUND);
    }
  });

  it("a folder answers 400 a folder has no content (as the content route does)", async () => {
    const folder = await member.api.post(`${files()}/folders`, { name: unique("folder") });
    expect(folder.status).toBe(201);
    const id = folder.body.node.id;
    const contentRoute = await member.api.get(`${files()}/${id}/content`);
    expect(contentRoute.status).toBe(400);
    for (const res of [
      await member.api.get(proposalsOf(id)),
      await member.api.post(proposalsOf(id), { proposed_content: "x" }),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "a folder has no content" });
      expect(res.body).toEqual(contentRoute.body);
    }
  });

  it("a binary (non-text) file answers 400 not a text file", async () => {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array([0, 1, 2, 255, 254])], { type: "image/png" }), unique("pic.png"));
    const up = await fetch(`${server.url}${files()}/upload`, {
      method: "POST",
      headers: { authorization: `Bearer ${member.token}` },
      body: form,
    });
    expect(up.status).toBe(201);
    const id = ((await up.json()) as any).node.id;
    for (const res of [
      await member.api.get(proposalsOf(id)),
      await member.api.post(proposalsOf(id), { proposed_content: "x" }),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "not a text file" });
    }
  });

  it("a private space answers 404 space not found to someone who cannot see it", async () => {
    const file = await textFile("hidden", privateSpaceId, org.owner);
    const p = await org.owner.api.post(proposalsOf(file.id, privateSpaceId), { proposed_content: "x" });
    expect(p.status).toBe(201);
    for (const res of [
      await outsider.api.get(proposalsOf(file.id, privateSpaceId)),
      await outsider.api.post(proposalsOf(file.id, privateSpaceId), { proposed_content: "y" }),
      await outsider.api.post(resolve(p.body.proposal.id, "accept", privateSpaceId)),
      await outsider.api.post(resolve(p.body.proposal.id, "reject", privateSpaceId)),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "space not found" });
    }
  });

  it("answers 401 without a token", async () => {
    const file = await textFile("x");
    const res = await org.anon.get(proposalsOf(file.id));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
  });
});
