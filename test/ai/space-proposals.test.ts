/**
 * `GET .../files/proposals` (the proposals of a space's files, pending by default) and the live events of
 * proposals (`file.proposal.created`, `file.proposal.updated`): what lets the files screen show which files wait
 * for a review, and a file's open page show a new proposal as it arrives.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { type addStaff, type Org, type Person, staffWorld } from "../helpers/factories";
import type { TestServer } from "../helpers/server";
import { type Listener, listen } from "../helpers/sockets";

let server: TestServer;
let org: Org;
let member: Person;
let viewer: Person;
let outsider: Person;
let staff: Awaited<ReturnType<typeof addStaff>>;
let spaceId: string;
let otherSpaceId: string;
let privateSpaceId: string;
const listeners: Listener[] = [];

const filesOf = (space: string) => `/api/v1/organizations/${org.id}/spaces/${space}/files`;
const spaceProposals = (space: string, query = "") => `${filesOf(space)}/proposals${query}`;

let counter = 0;
async function textFile(space: string, content = "base\n", as: Person = member): Promise<{ id: string }> {
  const res = await as.api.post(`${filesOf(space)}/text`, { name: `${++counter}.md`, content });
  if (res.status !== 201) throw new Error(`text create failed: ${res.status} ${res.text}`);
  return res.body.node;
}

async function propose(space: string, fileId: string, text: string, as: { api: Person["api"] } = staff) {
  const res = await as.api.post(`${filesOf(space)}/${fileId}/proposals`, { proposed_content: text, note: text });
  if (res.status !== 201) throw new Error(`proposal create failed: ${res.status} ${res.text}`);
  return res.body.proposal as { id: string; node_id: string; status: string };
}

const ids = (list: { id: string }[]) => list.map((p) => p.id);

beforeAll(async () => {
  ({ server, org, member, viewer, outsider, staff, spaceId, otherSpaceId, privateSpaceId } = await staffWorld([
    "Docs",
    "Other",
  ]));
});
afterAll(async () => {
  for (const listener of listeners) listener.close();
  await server.stop();
});

describe("GET .../files/proposals", () => {
  it("lists the space's pending proposals newest first, across files, and only this space's", async () => {
    const a = await textFile(spaceId);
    const b = await textFile(spaceId);
    const elsewhere = await textFile(otherSpaceId);
    await propose(otherSpaceId, elsewhere.id, "elsewhere");
    const first = await propose(spaceId, a.id, "first");
    const second = await propose(spaceId, b.id, "second");
    const third = await propose(spaceId, a.id, "third");
    const res = await viewer.api.get(spaceProposals(spaceId));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["proposals"]);
    expect(ids(res.body.proposals)).toEqual([third.id, second.id, first.id]);
    expect(res.body.proposals[0]).toEqual(
      (await member.api.get(`${filesOf(spaceId)}/${a.id}/proposals`)).body.proposals[0],
    );
    expect((await member.api.get(spaceProposals(spaceId, "?status=pending"))).body.proposals).toEqual(
      res.body.proposals,
    );
  });

  it("filters by status, and leaves out the proposals of deleted files", async () => {
    const file = await textFile(otherSpaceId);
    const kept = await textFile(otherSpaceId);
    const rejected = await propose(otherSpaceId, file.id, "no");
    const accepted = await propose(otherSpaceId, kept.id, "yes");
    const pending = await propose(otherSpaceId, file.id, "later");
    expect((await org.owner.api.post(`${filesOf(otherSpaceId)}/proposals/${rejected.id}/reject`)).status).toBe(200);
    expect((await org.owner.api.post(`${filesOf(otherSpaceId)}/proposals/${accepted.id}/accept`)).status).toBe(200);

    const of = async (status: string) =>
      ids((await member.api.get(spaceProposals(otherSpaceId, `?status=${status}`))).body.proposals);
    expect(await of("rejected")).toEqual([rejected.id]);
    expect(await of("accepted")).toEqual([accepted.id]);
    expect(await of("pending")).toContain(pending.id);

    expect((await member.api.delete(`${filesOf(otherSpaceId)}/${file.id}`)).status).toBe(204);
    expect(await of("pending")).not.toContain(pending.id);
    expect(await of("rejected")).toEqual([]);
    expect(await of("accepted")).toEqual([accepted.id]);
  });

  it("answers 400 for another status, 404 for a space the caller cannot see, 401 without a token", async () => {
    const bad = await member.api.get(spaceProposals(spaceId, "?status=open"));
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'status: must be one of "pending", "accepted", "rejected"' });
    const hidden = await outsider.api.get(spaceProposals(privateSpaceId));
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ error: "space not found" });
    expect((await org.anon.get(spaceProposals(spaceId))).status).toBe(401);
    expect((await org.owner.api.get(spaceProposals(privateSpaceId))).body).toEqual({ proposals: [] });
  });

  it("does not shadow GET .../files/{nodeId} nor the file's own proposals", async () => {
    const file = await textFile(spaceId);
    expect((await member.api.get(`${filesOf(spaceId)}/${file.id}`)).body.node.id).toBe(file.id);
    expect((await member.api.get(`${filesOf(spaceId)}/${file.id}/proposals`)).body).toEqual({ proposals: [] });
  });
});

describe("live events of proposals", () => {
  it("announces a new proposal and its review, with the proposal as payload, to those who see the space", async () => {
    const watcher = await listen(server.url, org.id, member.token);
    const owner = await listen(server.url, org.id, org.owner.token);
    const stranger = await listen(server.url, org.id, outsider.token);
    listeners.push(watcher, owner, stranger);

    const file = await textFile(spaceId, "one\n");
    const proposal = await propose(spaceId, file.id, "two\n");
    const created = await watcher.next((e) => e.type === "file.proposal.created" && e.payload.id === proposal.id);
    expect(created).toEqual({
      type: "file.proposal.created",
      organization_id: org.id,
      space_id: spaceId,
      payload: (await member.api.get(`${filesOf(spaceId)}/${file.id}/proposals`)).body.proposals[0],
    });

    const accept = await org.owner.api.post(`${filesOf(spaceId)}/proposals/${proposal.id}/accept`);
    expect(accept.status).toBe(200);
    const updated = await watcher.next((e) => e.type === "file.proposal.updated" && e.payload.id === proposal.id);
    expect(updated.payload).toEqual(accept.body.proposal);
    expect(updated.payload.status).toBe("accepted");

    const other = await propose(spaceId, file.id, "three\n");
    expect((await org.owner.api.post(`${filesOf(spaceId)}/proposals/${other.id}/reject`)).status).toBe(200);
    const rejected = await watcher.next((e) => e.type === "file.proposal.updated" && e.payload.id === other.id);
    expect(rejected.payload.status).toBe("rejected");

    // A proposal in a private space reaches its members only.
    const secret = await textFile(privateSpaceId, "s\n", org.owner);
    const hidden = await propose(privateSpaceId, secret.id, "t\n", org.owner);
    await owner.next((e) => e.type === "file.proposal.created" && e.payload.id === hidden.id);
    await watcher.next((e) => e.type === "file.proposal.updated" && e.payload.id === other.id);
    expect(stranger.events.some((e) => e.payload?.id === hidden.id)).toBe(false);
    expect(watcher.events.some((e) => e.payload?.id === hidden.id)).toBe(false);
  });

  it("announces nothing when accepting fails because the file changed", async () => {
    const watcher = await listen(server.url, org.id, member.token);
    listeners.push(watcher);
    const file = await textFile(spaceId, "a\n");
    const proposal = await propose(spaceId, file.id, "b\n");
    await watcher.next((e) => e.type === "file.proposal.created" && e.payload.id === proposal.id);
    const put = await member.api.put(`${filesOf(spaceId)}/${file.id}/content`, undefined, {
      raw: "changed\n",
      contentType: "text/plain",
    });
    expect(put.status).toBe(200);
    const accept = await org.owner.api.post(`${filesOf(spaceId)}/proposals/${proposal.id}/accept`);
    expect(accept.status).toBe(409);
    expect(accept.body).toEqual({ error: "file changed since the proposal" });
    // An event after the failed accept, so anything the accept had sent would have arrived before it.
    const later = await propose(spaceId, file.id, "c\n");
    await watcher.next((e) => e.type === "file.proposal.created" && e.payload.id === later.id);
    expect(watcher.events.some((e) => e.type === "file.proposal.updated" && e.payload.id === proposal.id)).toBe(false);
  });
});
