import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, addStaff, type Org, type Person, setupOrg } from "../helpers/factories";
import { TIMESTAMP, UUID } from "../helpers/http";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let org: Org;
let member: Person;
let viewer: Person;
let base: string;

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server, "Acme Rockets");
  base = `/api/v1/organizations/${org.id}`;
  member = await addMember(org, ["Member"], "Mia Member");
  viewer = await addMember(org, ["Viewer"], "Vic Viewer");
});
afterAll(() => server.stop());

describe("GET /api/v1/organizations", () => {
  it("lists the caller's organization with its fields", async () => {
    const res = await member.api.get("/api/v1/organizations");
    expect(res.status).toBe(200);
    expect(res.body.organizations).toHaveLength(1);
    const o = res.body.organizations[0];
    expect(Object.keys(o).sort()).toEqual(["created_at", "id", "name", "open_signups_enabled", "slug"]);
    expect(o).toMatchObject({ id: org.id, name: "Acme Rockets", slug: "acme-rockets", open_signups_enabled: false });
    expect(o.created_at).toMatch(TIMESTAMP);
  });
});

describe("GET|PATCH /organizations/{orgId}", () => {
  it("answers {organization} to any member", async () => {
    const res = await viewer.api.get(base);
    expect(res.status).toBe(200);
    expect(res.body.organization.id).toBe(org.id);
  });

  it("answers 404 organization not found for an unknown or malformed id", async () => {
    for (const id of ["01a1fdb9-0000-7000-8000-000000000000", "nope"]) {
      const res = await member.api.get(`/api/v1/organizations/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "organization not found" });
    }
  });

  it("PATCH needs org.manage", async () => {
    const res = await member.api.patch(base, { name: "Hijacked" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: org.manage" });
  });

  it("PATCH renames and toggles open signups; the slug stays", async () => {
    const res = await org.owner.api.patch(base, { name: "Acme Space", open_signups_enabled: true });
    expect(res.status).toBe(200);
    expect(res.body.organization).toMatchObject({
      name: "Acme Space",
      slug: "acme-rockets",
      open_signups_enabled: true,
    });
    // The sign-in page asks the public instance route whether to offer sign-up.
    expect((await org.anon.get("/api/v1/public/instance")).body.open_signups_enabled).toBe(true);
    await org.owner.api.patch(base, { name: "Acme Rockets", open_signups_enabled: false });
    expect((await org.anon.get("/api/v1/public/instance")).body.open_signups_enabled).toBe(false);
  });

  it("PATCH with an empty body changes nothing", async () => {
    const res = await org.owner.api.patch(base, {});
    expect(res.status).toBe(200);
    expect(res.body.organization.name).toBe("Acme Rockets");
  });
});

describe("GET /organizations/{orgId}/me/permissions", () => {
  it("answers each role's permissions", async () => {
    expect((await org.owner.api.get(`${base}/me/permissions`)).body.permissions).toEqual([
      "chat.write",
      "files.read",
      "files.write",
      "org.manage",
      "org.members.manage",
      "spaces.create",
      "tasks.write",
    ]);
    expect((await viewer.api.get(`${base}/me/permissions`)).body).toEqual({ permissions: ["files.read"] });
  });
});

describe("members", () => {
  it("lists members with their fields, oldest first", async () => {
    const res = await viewer.api.get(`${base}/members`);
    expect(res.status).toBe(200);
    const members = res.body.members;
    expect(members[0].user_id).toBe(org.owner.id);
    expect(Object.keys(members[0]).sort()).toEqual([
      "display_name",
      "email",
      "is_service_account",
      "joined_at",
      "role_ids",
      "service_account_id",
      "user_id",
    ]);
    const mia = members.find((m: { user_id: string }) => m.user_id === member.id);
    expect(mia).toMatchObject({
      email: member.email,
      display_name: "Mia Member",
      is_service_account: false,
      service_account_id: null,
      role_ids: [org.roles.Member],
    });
    expect(mia.joined_at).toMatch(TIMESTAMP);
  });

  it("DELETE needs org.members.manage", async () => {
    const res = await member.api.delete(`${base}/members/${viewer.id}`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: org.members.manage" });
  });

  it("DELETE refuses yourself", async () => {
    const res = await org.owner.api.delete(`${base}/members/${org.owner.id}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "cannot remove yourself" });
  });

  it("DELETE answers 404 member not found for someone who is not a member", async () => {
    const res = await org.owner.api.delete(`${base}/members/01a1fdb9-0000-7000-8000-000000000000`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "member not found" });
  });

  it("a removed member loses access at once: 404 organization not found with a still-valid token", async () => {
    const gone = await addMember(org);
    expect((await gone.api.get(base)).status).toBe(200);
    const res = await org.owner.api.delete(`${base}/members/${gone.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    const after = await gone.api.get(`${base}/members`);
    expect(after.status).toBe(404);
    expect(after.body).toEqual({ error: "organization not found" });
    // Outside the organization, the token's session has ended (test/auth/member-removal.test.ts).
    expect((await gone.api.get("/api/v1/organizations")).status).toBe(401);
    expect((await gone.api.get("/api/v1/me")).status).toBe(401);
  });

  it("keeps the last owner: a manager without org.manage cannot remove an owner, nobody removes or demotes the last", async () => {
    const role = await org.owner.api.post(`${base}/roles`, { name: "People ops", permissions: ["org.members.manage"] });
    const manager = await addMember(org, ["Member"]);
    await org.owner.api.put(`${base}/members/${manager.id}/roles`, { role_ids: [role.body.role.id, org.roles.Member] });
    // Removing an owner takes the Owner role away, which needs what the Owner role holds.
    const remove = await manager.api.delete(`${base}/members/${org.owner.id}`);
    expect(remove.status).toBe(403);
    expect(remove.body).toEqual({ error: "missing permission: org.manage" });
    const everything = await org.owner.api.post(`${base}/roles`, {
      name: "Everything",
      permissions: (await org.owner.api.get(`${base}/me/permissions`)).body.permissions,
    });
    const admin = await addMember(org, ["Member"]);
    await org.owner.api.put(`${base}/members/${admin.id}/roles`, { role_ids: [everything.body.role.id] });
    const last = await admin.api.delete(`${base}/members/${org.owner.id}`);
    expect(last.status).toBe(409);
    expect(last.body).toEqual({ error: "cannot remove the last owner" });
    const demote = await org.owner.api.put(`${base}/members/${org.owner.id}/roles`, { role_ids: [org.roles.Member] });
    expect(demote.status).toBe(409);
    expect(demote.body).toEqual({ error: "cannot remove the last owner" });
  });

  it("counts only people as owners: staff holding the Owner role do not let the last person give it up", async () => {
    const staff = await addStaff(org, { role_ids: [org.roles.Owner] });
    const demote = await org.owner.api.put(`${base}/members/${org.owner.id}/roles`, { role_ids: [org.roles.Member] });
    expect(demote.status).toBe(409);
    expect(demote.body).toEqual({ error: "cannot remove the last owner" });
    // The staff member may lose the role, or be deleted (with its own token), whatever the count.
    const staffUser = staff.account.user_id;
    expect((await org.owner.api.put(`${base}/members/${staffUser}/roles`, { role_ids: [] })).status).toBe(200);
    expect((await staff.api.delete(`${base}/service-accounts/${staff.account.id}`)).status).toBe(403);
    expect((await org.owner.api.delete(`${base}/service-accounts/${staff.account.id}`)).status).toBe(204);
    expect((await org.owner.api.get(`${base}/me/permissions`)).body.permissions).toContain("org.manage");
  });

  it("an owner can remove another owner while one remains", async () => {
    const second = await addMember(org, ["Owner"]);
    const third = await addMember(org, ["Owner"]);
    const res = await second.api.delete(`${base}/members/${third.id}`);
    expect(res.status).toBe(204);
  });
});

describe("PUT /organizations/{orgId}/members/{userId}/roles", () => {
  it("replaces the roles and answers {role_ids}", async () => {
    const p = await addMember(org);
    const res = await org.owner.api.put(`${base}/members/${p.id}/roles`, {
      role_ids: [org.roles.Viewer, org.roles.Viewer],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ role_ids: [org.roles.Viewer] });
    expect((await p.api.get(`${base}/me/permissions`)).body).toEqual({ permissions: ["files.read"] });
  });

  it("answers 400 for a role of no such id", async () => {
    const res = await org.owner.api.put(`${base}/members/${member.id}/roles`, {
      role_ids: ["01a1fdb9-0000-7000-8000-000000000000"],
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "role_ids: unknown role" });
  });

  it("answers 400 naming the field for a malformed role id", async () => {
    const res = await org.owner.api.put(`${base}/members/${member.id}/roles`, { role_ids: ["nope"] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "role_ids[0]: must be a UUID" });
  });

  it("does not let a caller grant permissions it lacks", async () => {
    const role = await org.owner.api.post(`${base}/roles`, { name: "Recruiter", permissions: ["org.members.manage"] });
    const recruiter = await addMember(org, ["Member"]);
    await org.owner.api.put(`${base}/members/${recruiter.id}/roles`, {
      role_ids: [role.body.role.id, org.roles.Member],
    });
    const self = await recruiter.api.put(`${base}/members/${recruiter.id}/roles`, {
      role_ids: [role.body.role.id, org.roles.Member, org.roles.Owner],
    });
    expect(self.status).toBe(403);
    expect(self.body).toEqual({ error: "missing permission: org.manage" });
    const invite = await recruiter.api.post(`${base}/invites`, { role_ids: [org.roles.Owner] });
    expect(invite.status).toBe(403);
    expect(invite.body).toEqual({ error: "missing permission: org.manage" });
  });
});

describe("taking away what the caller does not hold", () => {
  it("a manager with org.members.manage alone cannot demote, strip or remove a holder of a custom org.manage role", async () => {
    const adminRole = await org.owner.api.post(`${base}/roles`, {
      name: "Org Admin",
      permissions: ["org.manage", "org.members.manage"],
    });
    const managerRole = await org.owner.api.post(`${base}/roles`, {
      name: "Team lead",
      permissions: ["org.members.manage"],
    });
    const admin = await addMember(org, ["Member"]);
    const manager = await addMember(org, ["Member"]);
    await org.owner.api.put(`${base}/members/${admin.id}/roles`, { role_ids: [adminRole.body.role.id] });
    await org.owner.api.put(`${base}/members/${manager.id}/roles`, {
      role_ids: [managerRole.body.role.id, org.roles.Member],
    });
    const refused = { status: 403, body: { error: "missing permission: org.manage" } };
    const demote = await manager.api.put(`${base}/members/${admin.id}/roles`, { role_ids: [org.roles.Viewer] });
    expect({ status: demote.status, body: demote.body }).toEqual(refused);
    const strip = await manager.api.patch(`${base}/roles/${adminRole.body.role.id}`, { permissions: [] });
    expect({ status: strip.status, body: strip.body }).toEqual(refused);
    const rename = await manager.api.patch(`${base}/roles/${adminRole.body.role.id}`, { name: "Guests" });
    expect({ status: rename.status, body: rename.body }).toEqual(refused);
    const remove = await manager.api.delete(`${base}/members/${admin.id}`);
    expect({ status: remove.status, body: remove.body }).toEqual(refused);
    expect((await admin.api.get(`${base}/me/permissions`)).body.permissions).toContain("org.manage");
    // What the manager holds, it may still give and take away.
    const viewer = await addMember(org, ["Member"]);
    expect((await manager.api.put(`${base}/members/${viewer.id}/roles`, { role_ids: [org.roles.Viewer] })).status).toBe(
      200,
    );
    expect((await manager.api.delete(`${base}/members/${viewer.id}`)).status).toBe(204);
    const team = await manager.api.post(`${base}/roles`, { name: "Readers", permissions: ["files.read"] });
    expect((await manager.api.patch(`${base}/roles/${team.body.role.id}`, { name: "Readers all" })).status).toBe(200);
  });
});

describe("roles", () => {
  it("lists the four system roles first, in order, with their fields", async () => {
    const res = await org.owner.api.get(`${base}/roles`);
    expect(res.status).toBe(200);
    const roles = res.body.roles;
    expect(roles.slice(0, 4).map((r: { name: string }) => r.name)).toEqual(["Owner", "Member", "Viewer", "AI Staff"]);
    expect(Object.keys(roles[0]).sort()).toEqual([
      "created_at",
      "id",
      "is_system",
      "name",
      "organization_id",
      "permissions",
      "updated_at",
    ]);
    expect(roles[0].id).toMatch(UUID);
    expect(roles[0].organization_id).toBe(org.id);
    expect(roles[0].is_system).toBe(true);
    expect(roles[3].permissions).toEqual(["tasks.write", "chat.write", "files.read", "files.write"]);
    expect(roles[1].permissions).toEqual(["spaces.create", "tasks.write", "chat.write", "files.read", "files.write"]);
    expect(roles[2].permissions).toEqual(["files.read"]);
  });

  it("needs org.members.manage", async () => {
    const res = await member.api.get(`${base}/roles`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: org.members.manage" });
  });

  it("creates, renames, re-permissions and deletes a custom role", async () => {
    const created = await org.owner.api.post(`${base}/roles`, {
      name: " Editors ",
      permissions: ["files.write", "files.read", "files.read"],
    });
    expect(created.status).toBe(201);
    expect(created.body.role).toMatchObject({
      name: "Editors",
      is_system: false,
      permissions: ["files.read", "files.write"],
    });
    const id = created.body.role.id;
    const dup = await org.owner.api.post(`${base}/roles`, { name: "editors" });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ error: "role name already exists" });
    const patched = await org.owner.api.patch(`${base}/roles/${id}`, { name: "Writers", permissions: ["chat.write"] });
    expect(patched.status).toBe(200);
    expect(patched.body.role).toMatchObject({ id, name: "Writers", permissions: ["chat.write"] });
    expect(patched.body.role.updated_at >= created.body.role.updated_at).toBe(true);
    const del = await org.owner.api.delete(`${base}/roles/${id}`);
    expect(del.status).toBe(204);
    expect((await org.owner.api.patch(`${base}/roles/${id}`, { name: "x" })).status).toBe(404);
  });

  it("refuses an unknown permission", async () => {
    const res = await org.owner.api.post(`${base}/roles`, { name: "Bad", permissions: ["root"] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'permissions: unknown permission "root"' });
  });

  it("keeps system roles: no rename, no delete, Owner keeps every permission", async () => {
    const rename = await org.owner.api.patch(`${base}/roles/${org.roles.Member}`, { name: "Folks" });
    expect(rename.status).toBe(400);
    expect(rename.body).toEqual({ error: "system roles cannot be renamed" });
    const del = await org.owner.api.delete(`${base}/roles/${org.roles.Viewer}`);
    expect(del.status).toBe(400);
    expect(del.body).toEqual({ error: "system roles cannot be deleted" });
    const owner = await org.owner.api.patch(`${base}/roles/${org.roles.Owner}`, { permissions: ["files.read"] });
    expect(owner.status).toBe(400);
    expect(owner.body).toEqual({ error: "the Owner role always has every permission" });
  });

  it("lets an owner change a system role's permissions, and members feel it at once", async () => {
    const res = await org.owner.api.patch(`${base}/roles/${org.roles.Viewer}`, {
      permissions: ["files.read", "chat.write"],
    });
    expect(res.status).toBe(200);
    expect((await viewer.api.get(`${base}/me/permissions`)).body.permissions).toEqual(["chat.write", "files.read"]);
    await org.owner.api.patch(`${base}/roles/${org.roles.Viewer}`, { permissions: ["files.read"] });
  });
});

describe("invites", () => {
  it("creates an invite valid 7 days and shows its token once", async () => {
    const before = Date.now();
    const res = await org.owner.api.post(`${base}/invites`, { email: "new@acme.test" });
    expect(res.status).toBe(201);
    expect(typeof res.body.token).toBe("string");
    const invite = res.body.invite;
    expect(invite).toMatchObject({ email: "new@acme.test", role_ids: [org.roles.Member] });
    for (const key of ["id", "email", "expires_at", "created_at"]) expect(key in invite).toBe(true);
    const ttl = Date.parse(invite.expires_at) - before;
    expect(Math.abs(ttl - 7 * 24 * 3600 * 1000)).toBeLessThan(60_000);
    const list = await org.owner.api.get(`${base}/invites`);
    const listed = list.body.invites.find((i: { id: string }) => i.id === invite.id);
    expect(listed).toBeDefined();
    expect(JSON.stringify(list.body)).not.toContain(res.body.token);
  });

  it("takes no email (anyone with the link)", async () => {
    const res = await org.owner.api.post(`${base}/invites`, {});
    expect(res.status).toBe(201);
    expect(res.body.invite.email).toBeNull();
  });

  it("DELETE revokes: 204, and the token no longer works", async () => {
    const res = await org.owner.api.post(`${base}/invites`, {});
    expect((await org.owner.api.delete(`${base}/invites/${res.body.invite.id}`)).status).toBe(204);
    const accept = await org.anon.post("/api/v1/auth/accept-invite", {
      token: res.body.token,
      email: "late@acme.test",
      password: "password-123",
      display_name: "Late",
    });
    expect(accept.status).toBe(400);
    expect(
      (await org.owner.api.get(`${base}/invites`)).body.invites.some(
        (i: { id: string }) => i.id === res.body.invite.id,
      ),
    ).toBe(false);
  });

  it("needs org.members.manage", async () => {
    expect((await member.api.post(`${base}/invites`, {})).body).toEqual({
      error: "missing permission: org.members.manage",
    });
    expect((await viewer.api.get(`${base}/invites`)).status).toBe(403);
  });

  it("answers 400 for a malformed email", async () => {
    const res = await org.owner.api.post(`${base}/invites`, { email: "not-an-email" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "email: must be an email address" });
  });
});

describe("signup requests", () => {
  it("lists {signup_requests} and refuses an unknown status filter", async () => {
    const res = await org.owner.api.get(`${base}/signup-requests`);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body.signup_requests)).toBe(true);
    const bad = await org.owner.api.get(`${base}/signup-requests?status=maybe`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'status: must be one of "pending", "approved", "denied"' });
  });

  it("answers 404 signup request not found", async () => {
    const res = await org.owner.api.post(`${base}/signup-requests/01a1fdb9-0000-7000-8000-000000000000/approve`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "signup request not found" });
  });

  it("approve and deny accept no body or {}, but a body must still be JSON", async () => {
    const res = await org.owner.api.post(
      `${base}/signup-requests/01a1fdb9-0000-7000-8000-000000000000/deny`,
      undefined,
      {
        raw: "{}",
        contentType: "text/plain",
      },
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "content-type must be application/json" });
  });
});
