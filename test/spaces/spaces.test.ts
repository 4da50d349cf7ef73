import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, type Org, type Person, setupOrg } from "../helpers/factories";
import { client, TIMESTAMP, UUID } from "../helpers/http";
import { scenarios } from "../helpers/scenarios";
import { startTestServer, type TestServer } from "../helpers/server";

const UNKNOWN = "01a1fdb9-0000-7000-8000-000000000000";
const SPACE_FIELDS = ["created_at", "created_by", "description", "id", "name", "organization_id", "private"];

let server: TestServer;
let org: Org;
let member: Person;
let viewer: Person;
let base: string;

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server, "Acme Spaces");
  base = `/api/v1/organizations/${org.id}`;
  member = await addMember(org, ["Member"], "Mia Member");
  viewer = await addMember(org, ["Viewer"], "Vic Viewer");
});
afterAll(() => server.stop());

/** Creates a space as `who` and returns it; fails the test on anything but 201. */
async function createSpace(who: Person, body: Record<string, unknown>) {
  const res = await who.api.post(`${base}/spaces`, body);
  expect(res.status).toBe(201);
  return res.body as { id: string; name: string; private: boolean };
}

describe("POST /organizations/{orgId}/spaces", () => {
  it("answers 201 with the Space unwrapped, its fields and types", async () => {
    const res = await member.api.post(`${base}/spaces`, { name: "Rocket Launch", description: "Q3 launch" });
    expect(res.status).toBe(201);
    expect(res.body.space).toBeUndefined();
    expect(Object.keys(res.body).sort()).toEqual(SPACE_FIELDS);
    expect(res.body).toMatchObject({
      organization_id: org.id,
      name: "Rocket Launch",
      description: "Q3 launch",
      private: false,
      created_by: member.id,
    });
    expect(res.body.id).toMatch(UUID);
    expect(res.body.created_at).toMatch(TIMESTAMP);
  });

  it("defaults description to an empty string and private to false", async () => {
    const space = await createSpace(member, { name: "Plain" });
    expect(space).toMatchObject({ name: "Plain", description: "", private: false });
  });

  it("trims the name and stores private: true", async () => {
    const space = await createSpace(member, { name: "  Secret lab  ", private: true });
    expect(space).toMatchObject({ name: "Secret lab", private: true });
  });

  it("makes the creator the space's owner", async () => {
    const space = await createSpace(member, { name: "Owned" });
    const res = await member.api.get(`${base}/spaces/${space.id}/members`);
    expect(res.status).toBe(200);
    expect(res.body.members).toHaveLength(1);
    expect(res.body.members[0]).toMatchObject({ user_id: member.id, role: "owner" });
  });

  it("needs spaces.create: a Viewer gets 403 missing permission: spaces.create", async () => {
    const res = await viewer.api.post(`${base}/spaces`, { name: "Not allowed" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: spaces.create" });
    const list = await org.owner.api.get(`${base}/spaces`);
    expect(list.body.spaces.some((s: { name: string }) => s.name === "Not allowed")).toBe(false);
  });

  it("answers 400 name: required without a name, and for a blank one", async () => {
    const missing = await member.api.post(`${base}/spaces`, { description: "x" });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: "name: required" });
    const blank = await member.api.post(`${base}/spaces`, { name: "   " });
    expect(blank.status).toBe(400);
    expect(blank.body.error).toStartWith("name: ");
  });

  it("answers 400 naming the field when private is not a boolean", async () => {
    const res = await member.api.post(`${base}/spaces`, { name: "X", private: "yes" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "private: must be a boolean" });
  });

  it("answers 401 without a token and 404 organization not found for another organization", async () => {
    const anon = await org.anon.post(`${base}/spaces`, { name: "Anon" });
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual({ error: "unauthorized" });
    const other = await member.api.post(`/api/v1/organizations/${UNKNOWN}/spaces`, { name: "Elsewhere" });
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ error: "organization not found" });
  });
});

describe("GET /organizations/{orgId}/spaces", () => {
  let publicSpace: { id: string };
  let privateSpace: { id: string };

  beforeAll(async () => {
    publicSpace = await createSpace(member, { name: "Listing public" });
    privateSpace = await createSpace(member, { name: "Listing private", private: true });
  });

  it("answers {spaces} oldest first with the Space fields", async () => {
    const res = await member.api.get(`${base}/spaces`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["spaces"]);
    const spaces = res.body.spaces as { id: string; created_at: string }[];
    for (const s of spaces) expect(Object.keys(s).sort()).toEqual(SPACE_FIELDS);
    const sorted = [...spaces].sort((a, b) =>
      a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1,
    );
    expect(spaces.map((s) => s.id)).toEqual(sorted.map((s) => s.id));
    const ids = spaces.map((s) => s.id);
    expect(ids.indexOf(publicSpace.id)).toBeLessThan(ids.indexOf(privateSpace.id));
  });

  it("hides a private space from members who do not belong to it", async () => {
    const other = await addMember(org, ["Member"]);
    const ids = (await other.api.get(`${base}/spaces`)).body.spaces.map((s: { id: string }) => s.id);
    expect(ids).toContain(publicSpace.id);
    expect(ids).not.toContain(privateSpace.id);
    const viewerIds = (await viewer.api.get(`${base}/spaces`)).body.spaces.map((s: { id: string }) => s.id);
    expect(viewerIds).toContain(publicSpace.id);
    expect(viewerIds).not.toContain(privateSpace.id);
  });

  it("shows the private space to its members and to org.manage holders", async () => {
    const mine = (await member.api.get(`${base}/spaces`)).body.spaces.map((s: { id: string }) => s.id);
    expect(mine).toContain(privateSpace.id);
    const owner = (await org.owner.api.get(`${base}/spaces`)).body.spaces.map((s: { id: string }) => s.id);
    expect(owner).toContain(privateSpace.id);
    const got = await org.owner.api.get(`${base}/spaces/${privateSpace.id}`);
    expect(got.status).toBe(200);
    expect(got.body.id).toBe(privateSpace.id);
  });

  it("shows a private space to someone once they are added to it", async () => {
    const later = await addMember(org, ["Viewer"]);
    expect((await later.api.get(`${base}/spaces/${privateSpace.id}`)).status).toBe(404);
    const add = await member.api.post(`${base}/spaces/${privateSpace.id}/members`, { user_id: later.id });
    expect(add.status).toBe(201);
    const ids = (await later.api.get(`${base}/spaces`)).body.spaces.map((s: { id: string }) => s.id);
    expect(ids).toContain(privateSpace.id);
    expect((await later.api.get(`${base}/spaces/${privateSpace.id}`)).status).toBe(200);
  });
});

describe("GET /organizations/{orgId}/spaces/{spaceId}", () => {
  it("answers 200 with the Space unwrapped, equal to what create answered", async () => {
    const created = await member.api.post(`${base}/spaces`, { name: "Fetch me", description: "d" });
    const res = await viewer.api.get(`${base}/spaces/${created.body.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created.body);
  });
});

describe("routes below a space answer 404 space not found", () => {
  let privateSpace: { id: string };
  let outsider: Person;

  beforeAll(async () => {
    privateSpace = await createSpace(member, { name: "Hidden", private: true });
    outsider = await addMember(org, ["Member"]);
  });

  /** Every route below a space, with a body where one is needed. */
  // biome-ignore format: a table reads in columns
  const routes: { method: string; path: string; body?: unknown }[] = [
    { method: "GET",    path: "" },
    { method: "GET",    path: "/board" },
    { method: "POST",   path: "/board/columns",                          body: { name: "c" } },
    { method: "PATCH",  path: "/board/columns/{unknown}",                body: { name: "c" } },
    { method: "DELETE", path: "/board/columns/{unknown}" },
    { method: "GET",    path: "/labels" },
    { method: "POST",   path: "/labels",                                 body: { name: "l", color: "#000000" } },
    { method: "PATCH",  path: "/labels/{unknown}",                       body: { name: "l" } },
    { method: "DELETE", path: "/labels/{unknown}" },
    { method: "GET",    path: "/members" },
    { method: "POST",   path: "/members",                                body: { user_id: UNKNOWN } },
    { method: "DELETE", path: "/members/{unknown}" },
    { method: "GET",    path: "/chat-rooms" },
    { method: "GET",    path: "/tasks" },
    { method: "POST",   path: "/tasks",                                  body: { title: "t", column_id: UNKNOWN } },
    { method: "PATCH",  path: "/tasks/{unknown}",                        body: { title: "t" } },
    { method: "DELETE", path: "/tasks/{unknown}" },
    { method: "GET",    path: "/tasks/{unknown}/messages" },
    { method: "POST",   path: "/tasks/{unknown}/messages",               body: { content: "hi" } },
    { method: "GET",    path: "/tasks/{unknown}/deliverables" },
    { method: "POST",   path: "/tasks/{unknown}/deliverables",           body: { file_node_id: UNKNOWN } },
    { method: "DELETE", path: "/tasks/{unknown}/deliverables/{unknown}" },
    { method: "GET",    path: "/files/tree" },
  ];
  /** Who calls, on which space. */
  const cases = [
    { as: "member", space: "{unknown}", name: "(an unknown space id)" },
    { as: "member", space: "not-a-uuid", name: "(a malformed space id)" },
    { as: "outsider", space: "{hidden}", name: "(a private space it cannot see, with write permission: never 400)" },
    { as: "viewer", space: "{hidden}", name: "(a private space it cannot see, without write permission: never 403)" },
  ];
  scenarios(
    {
      url: () => server.url,
      tokens: () => ({ member: member.token, outsider: outsider.token, viewer: viewer.token }),
      params: () => ({ orgId: org.id, unknown: UNKNOWN, hidden: privateSpace.id }),
    },
    cases.flatMap(({ as, space, name }) =>
      routes.map(({ method, path, body }) => ({
        method,
        url: `/api/v1/organizations/{orgId}/spaces/${space}${path}`,
        as,
        body,
        name,
        status: 404,
        error: "space not found",
      })),
    ),
  );

  it("for a space of another organization's id as seen from this one", async () => {
    // A space id is only looked up inside the organization of the path.
    const res = await member.api.get(`/api/v1/organizations/${UNKNOWN}/spaces/${privateSpace.id}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "organization not found" });
  });
});

describe("GET /organizations/{orgId}/spaces/{spaceId}/board", () => {
  it("answers the Board and the columns To do, In progress, Review, Done at positions 0..3", async () => {
    const space = await createSpace(member, { name: "Board space" });
    const res = await viewer.api.get(`${base}/spaces/${space.id}/board`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["board", "columns"]);
    const { board, columns } = res.body;
    expect(Object.keys(board).sort()).toEqual(["created_at", "id", "name", "space_id"]);
    expect(board).toMatchObject({ space_id: space.id, name: "Board" });
    expect(board.id).toMatch(UUID);
    expect(board.created_at).toMatch(TIMESTAMP);
    expect(columns.map((c: { name: string; position: number }) => [c.name, c.position])).toEqual([
      ["To do", 0],
      ["In progress", 1],
      ["Review", 2],
      ["Done", 3],
    ]);
    for (const c of columns) {
      expect(Object.keys(c).sort()).toEqual(["board_id", "id", "name", "position", "wip_limit"]);
      expect(c.wip_limit).toBeNull();
      expect(c.id).toMatch(UUID);
      expect(c.board_id).toBe(board.id);
    }
    expect(new Set(columns.map((c: { id: string }) => c.id)).size).toBe(4);
  });

  it("gives every space its own board and columns", async () => {
    const a = await createSpace(member, { name: "Board A" });
    const b = await createSpace(member, { name: "Board B" });
    const boardA = (await member.api.get(`${base}/spaces/${a.id}/board`)).body;
    const boardB = (await member.api.get(`${base}/spaces/${b.id}/board`)).body;
    expect(boardA.board.id).not.toBe(boardB.board.id);
    const idsA = boardA.columns.map((c: { id: string }) => c.id);
    for (const c of boardB.columns) expect(idsA).not.toContain(c.id);
  });
});

describe("GET /organizations/{orgId}/spaces/{spaceId}/chat-rooms", () => {
  it("lists the general room created with the space", async () => {
    const space = await createSpace(member, { name: "Chatty" });
    const res = await viewer.api.get(`${base}/spaces/${space.id}/chat-rooms`);
    expect(res.status).toBe(200);
    expect(res.body.chat_rooms).toHaveLength(1);
    const room = res.body.chat_rooms[0];
    expect(room).toMatchObject({ space_id: space.id, name: "general" });
    expect(room.id).toMatch(UUID);
    expect(room.created_at).toMatch(TIMESTAMP);
  });
});

describe("space members", () => {
  let space: { id: string };
  let owner: Person;
  let plain: Person;
  let candidate: Person;

  beforeAll(async () => {
    owner = await addMember(org, ["Member"], "Space Owner");
    plain = await addMember(org, ["Member"], "Plain Member");
    candidate = await addMember(org, ["Viewer"], "Candidate");
    space = await createSpace(owner, { name: "Members space", private: true });
  });

  const membersOf = async (who: Person = owner) => (await who.api.get(`${base}/spaces/${space.id}/members`)).body;

  it("GET answers {members: [{user_id, role, added_at}]} with the owner", async () => {
    const res = await owner.api.get(`${base}/spaces/${space.id}/members`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["members"]);
    expect(res.body.members).toHaveLength(1);
    expect(Object.keys(res.body.members[0]).sort()).toEqual(["added_at", "role", "user_id"]);
    expect(res.body.members[0]).toMatchObject({ user_id: owner.id, role: "owner" });
    expect(res.body.members[0].added_at).toMatch(TIMESTAMP);
  });

  it("POST by the space owner answers 201 {member} with role member by default", async () => {
    const res = await owner.api.post(`${base}/spaces/${space.id}/members`, { user_id: plain.id });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(["member"]);
    expect(Object.keys(res.body.member).sort()).toEqual(["added_at", "role", "user_id"]);
    expect(res.body.member).toMatchObject({ user_id: plain.id, role: "member" });
    expect(res.body.member.added_at).toMatch(TIMESTAMP);
  });

  it("GET lists members by when they were added", async () => {
    const body = await membersOf(plain);
    expect(body.members.map((m: { user_id: string; role: string }) => [m.user_id, m.role])).toEqual([
      [owner.id, "owner"],
      [plain.id, "member"],
    ]);
  });

  it("POST answers 409 already a member of the space", async () => {
    const res = await owner.api.post(`${base}/spaces/${space.id}/members`, { user_id: plain.id });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "already a member of the space" });
  });

  it("POST answers 400 user_id: not a member of the organization", async () => {
    const res = await owner.api.post(`${base}/spaces/${space.id}/members`, { user_id: UNKNOWN });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "user_id: not a member of the organization" });
  });

  it("POST answers 400 naming the field for a malformed or missing user_id and a bad role", async () => {
    const bad = await owner.api.post(`${base}/spaces/${space.id}/members`, { user_id: "nope" });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: "user_id: must be a UUID" });
    const missing = await owner.api.post(`${base}/spaces/${space.id}/members`, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: "user_id: required" });
    const role = await owner.api.post(`${base}/spaces/${space.id}/members`, { user_id: candidate.id, role: "boss" });
    expect(role.status).toBe(400);
    expect(role.body.error).toStartWith("role: ");
  });

  it("a non-owner member gets 403 only a space owner can manage its members on POST and DELETE", async () => {
    const add = await plain.api.post(`${base}/spaces/${space.id}/members`, { user_id: candidate.id });
    expect(add.status).toBe(403);
    expect(add.body).toEqual({ error: "only a space owner can manage its members" });
    const del = await plain.api.delete(`${base}/spaces/${space.id}/members/${owner.id}`);
    expect(del.status).toBe(403);
    expect(del.body).toEqual({ error: "only a space owner can manage its members" });
    expect((await membersOf()).members).toHaveLength(2);
  });

  it("a non-member of a public space gets 403 only a space owner can manage its members", async () => {
    const pub = await createSpace(owner, { name: "Public members" });
    const res = await plain.api.post(`${base}/spaces/${pub.id}/members`, { user_id: candidate.id });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "only a space owner can manage its members" });
  });

  it("an org.manage holder who is not in the space can add and remove members", async () => {
    const add = await org.owner.api.post(`${base}/spaces/${space.id}/members`, {
      user_id: candidate.id,
      role: "owner",
    });
    expect(add.status).toBe(201);
    expect(add.body.member).toMatchObject({ user_id: candidate.id, role: "owner" });
    const del = await org.owner.api.delete(`${base}/spaces/${space.id}/members/${candidate.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expect((await membersOf()).members.map((m: { user_id: string }) => m.user_id)).not.toContain(candidate.id);
  });

  it("DELETE answers 404 space member not found for a non-member, an unknown and a malformed id", async () => {
    for (const id of [candidate.id, UNKNOWN, "nope"]) {
      const res = await owner.api.delete(`${base}/spaces/${space.id}/members/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "space member not found" });
    }
  });

  it("DELETE answers 409 cannot remove the last owner of the space", async () => {
    const res = await owner.api.delete(`${base}/spaces/${space.id}/members/${owner.id}`);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "cannot remove the last owner of the space" });
    const byOrgOwner = await org.owner.api.delete(`${base}/spaces/${space.id}/members/${owner.id}`);
    expect(byOrgOwner.status).toBe(409);
    expect(byOrgOwner.body).toEqual({ error: "cannot remove the last owner of the space" });
  });

  it("an owner can be removed while another owner remains", async () => {
    const second = await addMember(org, ["Member"]);
    await owner.api.post(`${base}/spaces/${space.id}/members`, { user_id: second.id, role: "owner" });
    const res = await second.api.delete(`${base}/spaces/${space.id}/members/${owner.id}`);
    expect(res.status).toBe(204);
    // The former owner no longer sees the private space at all.
    const gone = await owner.api.get(`${base}/spaces/${space.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ error: "space not found" });
    const back = await second.api.post(`${base}/spaces/${space.id}/members`, { user_id: owner.id, role: "owner" });
    expect(back.status).toBe(201);
  });

  it("a removed space member loses a private space at once", async () => {
    const res = await owner.api.delete(`${base}/spaces/${space.id}/members/${plain.id}`);
    expect(res.status).toBe(204);
    const after = await plain.api.get(`${base}/spaces/${space.id}/tasks`);
    expect(after.status).toBe(404);
    expect(after.body).toEqual({ error: "space not found" });
    const ids = (await plain.api.get(`${base}/spaces`)).body.spaces.map((s: { id: string }) => s.id);
    expect(ids).not.toContain(space.id);
  });
});

describe("leaving a space", () => {
  it("any member may remove themselves, and then no longer sees the private space; the last owner may not", async () => {
    const owner = await addMember(org, ["Member"], "Lone Owner");
    const leaver = await addMember(org, ["Member"], "Leaves");
    const space = await createSpace(owner, { name: "Left behind", private: true });
    expect((await owner.api.post(`${base}/spaces/${space.id}/members`, { user_id: leaver.id })).status).toBe(201);
    const left = await leaver.api.delete(`${base}/spaces/${space.id}/members/${leaver.id}`);
    expect(left.status).toBe(204);
    expect((await leaver.api.get(`${base}/spaces/${space.id}/tasks`)).status).toBe(404);
    const last = await owner.api.delete(`${base}/spaces/${space.id}/members/${owner.id}`);
    expect(last.status).toBe(409);
    expect(last.body).toEqual({ error: "cannot remove the last owner of the space" });
  });
});

describe("removing someone from the organization", () => {
  it("ends their space memberships: a re-invited member no longer sees the private space", async () => {
    const leaver = await addMember(org, ["Member"], "Leaver");
    const space = await createSpace(member, { name: "Leaver's private", private: true });
    const add = await member.api.post(`${base}/spaces/${space.id}/members`, { user_id: leaver.id });
    expect(add.status).toBe(201);
    expect((await leaver.api.get(`${base}/spaces/${space.id}`)).status).toBe(200);

    const removed = await org.owner.api.delete(`${base}/members/${leaver.id}`);
    expect(removed.status).toBe(204);
    const members = (await member.api.get(`${base}/spaces/${space.id}/members`)).body.members;
    expect(members.map((m: { user_id: string }) => m.user_id)).not.toContain(leaver.id);

    // Invited back with the same account.
    const invite = await org.owner.api.post(`${base}/invites`, { email: leaver.email, role_ids: [org.roles.Member] });
    expect(invite.status).toBe(201);
    const accepted = await org.anon.post("/api/v1/auth/accept-invite", {
      token: invite.body.token,
      email: leaver.email,
      password: leaver.password,
      display_name: "Leaver again",
    });
    expect(accepted.status).toBe(201);
    const again = client(server.url, accepted.body.access_token);
    expect((await again.get("/api/v1/me")).body.user.id).toBe(leaver.id);
    expect((await again.get(`${base}`)).status).toBe(200);

    const res = await again.get(`${base}/spaces/${space.id}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "space not found" });
    const ids = (await again.get(`${base}/spaces`)).body.spaces.map((s: { id: string }) => s.id);
    expect(ids).not.toContain(space.id);
    const stillMembers = (await member.api.get(`${base}/spaces/${space.id}/members`)).body.members;
    expect(stillMembers.map((m: { user_id: string }) => m.user_id)).not.toContain(leaver.id);
  });
});
