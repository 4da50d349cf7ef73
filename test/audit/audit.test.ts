/**
 * The audit log (issue 23, scope): each administrative or destructive act makes exactly one record naming who
 * did it (and from which address), what, to what and when; an act refused or failed makes none; no secret is
 * ever in one; `GET .../audit` is for `org.manage` alone, newest first, paged and filtered.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, addStaff, type Org, type Person, setupOrg } from "../helpers/factories";
import { client, TIMESTAMP, UUID } from "../helpers/http";
import { startTestServer, type TestServer } from "../helpers/server";

const EVENT_KEYS = [
  "action",
  "actor_kind",
  "actor_label",
  "actor_user_id",
  "address",
  "created_at",
  "details",
  "id",
  "organization_id",
  "target_id",
  "target_label",
  "target_type",
];
/** The address the tests' requests come from: the server listens on loopback. */
const LOOPBACK = "127.0.0.1";

let server: TestServer;
let org: Org;
let base: string;
let manager: Person;
let member: Person;
let spaceId: string;
/** Everything that should never be in a record. */
const secrets: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server, "Audit Co");
  base = `/api/v1/organizations/${org.id}`;
  member = await addMember(org, ["Member"], "Mia Member");
  // Manages members without org.manage: may remove people, not read the audit log.
  const role = await org.owner.api.post(`${base}/roles`, {
    name: "People lead",
    permissions: ["org.members.manage", "files.read"],
  });
  manager = await addMember(org, [], "Max Manager");
  await org.owner.api.put(`${base}/members/${manager.id}/roles`, { role_ids: [role.body.role.id] });
  spaceId = (await org.owner.api.post(`${base}/spaces`, { name: "Launch" })).body.id;
});
afterAll(() => server.stop());

/** Every record of the organization, newest first. */
async function everything(): Promise<any[]> {
  const all: any[] = [];
  let before = "";
  for (;;) {
    const res = await org.owner.api.get(`${base}/audit?limit=200${before ? `&before=${before}` : ""}`);
    expect(res.status).toBe(200);
    all.push(...res.body.events);
    if (res.body.events.length < 200) return all;
    before = all.at(-1).created_at;
  }
}

/** Runs `act` and answers the records it made (newest first). */
async function recordsOf(act: () => Promise<unknown>): Promise<any[]> {
  const seen = new Set((await everything()).map((e) => e.id));
  await act();
  return (await everything()).filter((e) => !seen.has(e.id));
}

/** Runs `act`, which must make exactly one record, and answers it. */
async function oneRecordOf(act: () => Promise<unknown>): Promise<any> {
  const made = await recordsOf(act);
  expect(made.map((e) => e.action)).toHaveLength(1);
  return made[0];
}

/** Expects `status` of a request made inside an act. */
async function ok(res: Promise<{ status: number; text: string }>, status: number): Promise<any> {
  const answer = await res;
  expect(answer.status, answer.text).toBe(status);
  return answer;
}

/** The actor fields of a record made by `who` over HTTP. */
function by(who: Person, label: string) {
  return { actor_user_id: who.id, actor_kind: "user", actor_label: label, address: LOOPBACK };
}

describe("a record", () => {
  it("has the fields of the API, a timestamp with milliseconds, and the address of the request", async () => {
    const record = await oneRecordOf(() => ok(org.owner.api.post(`${base}/invites`, {}), 201));
    expect(Object.keys(record).sort()).toEqual(EVENT_KEYS);
    expect(record.id).toMatch(UUID);
    expect(record.organization_id).toBe(org.id);
    expect(record.created_at).toMatch(TIMESTAMP);
    expect(record).toMatchObject(by(org.owner, "Olivia Owner"));
  });
});

describe("the address behind a proxy", () => {
  it("is the client's from X-Forwarded-For when the request comes through a trusted proxy, and never a forged one", async () => {
    // Here no proxy is trusted: a header the client wrote itself changes nothing.
    const forged = await oneRecordOf(() =>
      ok(org.owner.api.post(`${base}/invites`, {}, { headers: { "x-forwarded-for": "198.51.100.9" } }), 201),
    );
    expect(forged.address).toBe(LOOPBACK);
    const proxied = await startTestServer({ env: { TANDEM_TRUSTED_PROXIES: "127.0.0.1" } });
    try {
      const other = await setupOrg(proxied, "Proxied Co");
      const path = `/api/v1/organizations/${other.id}`;
      const res = await other.owner.api.post(`${path}/invites`, {}, { headers: { "x-forwarded-for": "203.0.113.7" } });
      expect(res.status).toBe(201);
      const events = (await other.owner.api.get(`${path}/audit?action=invite.created`)).body.events;
      expect(events.map((e: { address: string }) => e.address)).toEqual(["203.0.113.7"]);
    } finally {
      await proxied.stop();
    }
  });
});

describe("members and roles", () => {
  it("member.removed: who removed whom, by name and email", async () => {
    const leaving = await addMember(org, ["Viewer"], "Lee Leaving");
    const record = await oneRecordOf(() => ok(manager.api.delete(`${base}/members/${leaving.id}`), 204));
    expect(record).toMatchObject({
      ...by(manager, "Max Manager"),
      action: "member.removed",
      target_type: "user",
      target_id: leaving.id,
      target_label: "Lee Leaving",
      details: { email: leaving.email },
    });
  });

  it("member.roles.changed: the roles given and taken away", async () => {
    const person = await addMember(org, ["Member"], "Rita Roles");
    const record = await oneRecordOf(() =>
      ok(org.owner.api.put(`${base}/members/${person.id}/roles`, { role_ids: [org.roles.Viewer] }), 200),
    );
    expect(record).toMatchObject({
      ...by(org.owner, "Olivia Owner"),
      action: "member.roles.changed",
      target_type: "user",
      target_id: person.id,
      target_label: "Rita Roles",
      details: {
        email: person.email,
        added: [{ id: org.roles.Viewer, name: "Viewer" }],
        removed: [{ id: org.roles.Member, name: "Member" }],
      },
    });
    // The same roles again change nothing, and record nothing.
    const none = await recordsOf(() =>
      ok(org.owner.api.put(`${base}/members/${person.id}/roles`, { role_ids: [org.roles.Viewer] }), 200),
    );
    expect(none).toEqual([]);
  });

  it("role.created, role.updated (before and after), role.deleted", async () => {
    let roleId = "";
    const created = await oneRecordOf(async () => {
      const res = await ok(org.owner.api.post(`${base}/roles`, { name: "Writers", permissions: ["chat.write"] }), 201);
      roleId = res.body.role.id;
    });
    expect(created).toMatchObject({
      ...by(org.owner, "Olivia Owner"),
      action: "role.created",
      target_type: "role",
      target_id: roleId,
      target_label: "Writers",
      details: { permissions: ["chat.write"] },
    });
    const updated = await oneRecordOf(() =>
      ok(
        org.owner.api.patch(`${base}/roles/${roleId}`, { name: "Editors", permissions: ["chat.write", "tasks.write"] }),
        200,
      ),
    );
    expect(updated).toMatchObject({
      action: "role.updated",
      target_id: roleId,
      target_label: "Editors",
      details: {
        changes: {
          name: { from: "Writers", to: "Editors" },
          permissions: { from: ["chat.write"], to: ["tasks.write", "chat.write"] },
        },
      },
    });
    const deleted = await oneRecordOf(() => ok(org.owner.api.delete(`${base}/roles/${roleId}`), 204));
    expect(deleted).toMatchObject({
      action: "role.deleted",
      target_type: "role",
      target_id: roleId,
      target_label: "Editors",
      details: { permissions: ["tasks.write", "chat.write"] },
    });
  });
});

describe("invites and signups", () => {
  it("invite.created and invite.revoked name the invite's email and roles, never its token", async () => {
    let invite: any;
    const created = await oneRecordOf(async () => {
      const res = await ok(
        manager.api.post(`${base}/invites`, { email: "newcomer@acme.test", role_ids: [org.roles.Viewer] }),
        201,
      );
      invite = res.body.invite;
      secrets.push(res.body.token);
    });
    expect(created).toMatchObject({
      ...by(manager, "Max Manager"),
      action: "invite.created",
      target_type: "invite",
      target_id: invite.id,
      target_label: "newcomer@acme.test",
      details: {
        email: "newcomer@acme.test",
        roles: [{ id: org.roles.Viewer, name: "Viewer" }],
        expires_at: invite.expires_at,
      },
    });
    const revoked = await oneRecordOf(() => ok(manager.api.delete(`${base}/invites/${invite.id}`), 204));
    expect(revoked).toMatchObject({
      action: "invite.revoked",
      target_type: "invite",
      target_id: invite.id,
      target_label: "newcomer@acme.test",
    });
  });

  it("organization.updated, signup.approved with the roles given, signup.denied", async () => {
    const opened = await oneRecordOf(() => ok(org.owner.api.patch(base, { open_signups_enabled: true }), 200));
    expect(opened).toMatchObject({
      ...by(org.owner, "Olivia Owner"),
      action: "organization.updated",
      target_type: "organization",
      target_id: org.id,
      target_label: "Audit Co",
      details: { changes: { open_signups_enabled: { from: false, to: true } } },
    });
    const register = async (email: string, name: string) => {
      const res = await ok(
        org.anon.post("/api/v1/auth/register", { email, password: "password-123", display_name: name }),
        201,
      );
      return (await client(server.url, res.body.access_token).get("/api/v1/me")).body.user.id as string;
    };
    const annId = await register("ann@signup.test", "Ann Applicant");
    const denId = await register("den@signup.test", "Den Denied");
    const requests = (await org.owner.api.get(`${base}/signup-requests`)).body.signup_requests;
    const requestOf = (userId: string) => requests.find((r: any) => r.user_id === userId).id;

    const approved = await oneRecordOf(() =>
      ok(
        manager.api.post(`${base}/signup-requests/${requestOf(annId)}/approve`, { role_ids: [org.roles.Viewer] }),
        204,
      ),
    );
    expect(approved).toMatchObject({
      ...by(manager, "Max Manager"),
      action: "signup.approved",
      target_type: "user",
      target_id: annId,
      target_label: "Ann Applicant",
      details: { email: "ann@signup.test", roles: [{ id: org.roles.Viewer, name: "Viewer" }] },
    });
    const denied = await oneRecordOf(() =>
      ok(manager.api.post(`${base}/signup-requests/${requestOf(denId)}/deny`), 204),
    );
    expect(denied).toMatchObject({
      action: "signup.denied",
      target_id: denId,
      target_label: "Den Denied",
      details: { email: "den@signup.test" },
    });
    // A PATCH that changes nothing records nothing.
    expect(await recordsOf(() => ok(org.owner.api.patch(base, { open_signups_enabled: true }), 200))).toEqual([]);
  });
});

describe("staff and provider keys", () => {
  it("service_account.created, .updated (what changed), .deleted; the token is never recorded", async () => {
    let account: any;
    const created = await oneRecordOf(async () => {
      const res = await ok(org.owner.api.post(`${base}/service-accounts`, { name: "Sage", provider: "agent" }), 201);
      account = res.body.service_account;
      secrets.push(res.body.token);
    });
    expect(created).toMatchObject({
      ...by(org.owner, "Olivia Owner"),
      action: "service_account.created",
      target_type: "service_account",
      target_id: account.id,
      target_label: "Sage",
      details: {
        user_id: account.user_id,
        provider: "agent",
        roles: [{ id: org.roles["AI Staff"], name: "AI Staff" }],
      },
    });
    const updated = await oneRecordOf(() =>
      ok(
        org.owner.api.patch(`${base}/service-accounts/${account.id}`, {
          name: "Sage Two",
          agent_default_ref: "main",
        }),
        200,
      ),
    );
    expect(updated).toMatchObject({
      action: "service_account.updated",
      target_id: account.id,
      target_label: "Sage Two",
      details: {
        user_id: account.user_id,
        changes: { name: { from: "Sage", to: "Sage Two" }, agent_default_ref: { from: null, to: "main" } },
      },
    });
    const rotated = await oneRecordOf(async () => {
      const res = await ok(org.owner.api.post(`${base}/service-accounts/${account.id}/token`), 200);
      secrets.push(res.body.token);
    });
    expect(rotated).toMatchObject({
      ...by(org.owner, "Olivia Owner"),
      action: "service_account.token.rotated",
      target_type: "service_account",
      target_id: account.id,
      target_label: "Sage Two",
    });
    const deleted = await oneRecordOf(() => ok(org.owner.api.delete(`${base}/service-accounts/${account.id}`), 204));
    expect(deleted).toMatchObject({
      action: "service_account.deleted",
      target_type: "service_account",
      target_id: account.id,
      target_label: "Sage Two",
    });
  });

  it("integration.key.set and .cleared name the provider, never the key nor its hint", async () => {
    const key = "sk-audit-test-key-9Q7Z";
    secrets.push(key, "9Q7Z");
    const set = await oneRecordOf(() =>
      ok(org.owner.api.put(`${base}/integrations/modelrouter`, { api_key: key }), 200),
    );
    expect(set).toMatchObject({
      ...by(org.owner, "Olivia Owner"),
      action: "integration.key.set",
      target_type: "integration",
      target_id: "modelrouter",
      target_label: "modelrouter",
      details: { replaced: false },
    });
    const replaced = await oneRecordOf(() =>
      ok(org.owner.api.put(`${base}/integrations/modelrouter`, { api_key: `${key}-2` }), 200),
    );
    expect(replaced.details).toEqual({ replaced: true });
    const cleared = await oneRecordOf(() => ok(org.owner.api.delete(`${base}/integrations/modelrouter`), 204));
    expect(cleared).toMatchObject({ action: "integration.key.cleared", target_id: "modelrouter", details: {} });
    // Clearing what is not set changes nothing.
    expect(await recordsOf(() => ok(org.owner.api.delete(`${base}/integrations/agent`), 204))).toEqual([]);
  });
});

describe("approvals", () => {
  let staff: Awaited<ReturnType<typeof addStaff>>;
  const automations = () => `${base}/spaces/${spaceId}/automations`;
  const proposed = async (name: string) => {
    const res = await staff.api.post(automations(), { name, kind: "scheduled", config: {} });
    expect(res.status).toBe(201);
    expect(res.body.automation.status).toBe("pending_approval");
    return res.body.automation;
  };

  beforeAll(async () => {
    staff = await addStaff(org, { name: "Proposer" });
    secrets.push(staff.token);
  });

  it("automation.approved by approve, and by setting a pending automation active", async () => {
    const first = await proposed("Standup");
    const approved = await oneRecordOf(() => ok(org.owner.api.post(`${automations()}/${first.id}/approve`), 200));
    expect(approved).toMatchObject({
      ...by(org.owner, "Olivia Owner"),
      action: "automation.approved",
      target_type: "automation",
      target_id: first.id,
      target_label: "Standup",
      details: { space_id: spaceId, space_name: "Launch", kind: "scheduled" },
    });
    const second = await proposed("Digest");
    const patched = await oneRecordOf(() =>
      ok(member.api.patch(`${automations()}/${second.id}`, { status: "active" }), 200),
    );
    expect(patched).toMatchObject({ ...by(member, "Mia Member"), action: "automation.approved", target_id: second.id });
  });

  it("automation.rejected with its reason", async () => {
    const automation = await proposed("Spam bot");
    const rejected = await oneRecordOf(() =>
      ok(member.api.post(`${automations()}/${automation.id}/reject`, { reason: "too noisy" }), 200),
    );
    expect(rejected).toMatchObject({
      ...by(member, "Mia Member"),
      action: "automation.rejected",
      target_id: automation.id,
      target_label: "Spam bot",
      details: { space_id: spaceId, reason: "too noisy" },
    });
  });

  it("file.proposal.accepted and .rejected name the file", async () => {
    const files = `${base}/spaces/${spaceId}/files`;
    const node = (await member.api.post(`${files}/text`, { name: "plan.md", content: "v1" })).body.node;
    const propose = async () =>
      (await staff.api.post(`${files}/${node.id}/proposals`, { proposed_content: `v${Date.now()}` })).body.proposal;
    const first = await propose();
    const accepted = await oneRecordOf(() => ok(member.api.post(`${files}/proposals/${first.id}/accept`), 200));
    expect(accepted).toMatchObject({
      ...by(member, "Mia Member"),
      action: "file.proposal.accepted",
      target_type: "file_proposal",
      target_id: first.id,
      target_label: "plan.md",
      details: { space_id: spaceId, space_name: "Launch", file_id: node.id, author_user_id: staff.account.user_id },
    });
    const second = await propose();
    const rejected = await oneRecordOf(() => ok(member.api.post(`${files}/proposals/${second.id}/reject`), 200));
    expect(rejected).toMatchObject({ action: "file.proposal.rejected", target_id: second.id, target_label: "plan.md" });
  });

  it("names staff as staff when they act (a task a staff member deleted)", async () => {
    const board = (await member.api.get(`${base}/spaces/${spaceId}/board`)).body;
    const tasks = `${base}/spaces/${spaceId}/tasks`;
    const task = (await member.api.post(tasks, { title: "Made by mistake", column_id: board.columns[0].id })).body;
    const record = await oneRecordOf(() => ok(staff.api.delete(`${tasks}/${task.id}`), 204));
    expect(record).toMatchObject({
      actor_user_id: staff.account.user_id,
      actor_kind: "service_account",
      actor_label: "Proposer",
      address: LOOPBACK,
      action: "task.deleted",
      target_label: "Made by mistake",
    });
  });
});

describe("deletions", () => {
  it("chat.room.deleted, task.deleted and file.deleted name what was deleted and its space", async () => {
    const rooms = `${base}/spaces/${spaceId}/chat-rooms`;
    const room = (await member.api.post(rooms, { name: "random" })).body;
    const roomRecord = await oneRecordOf(() => ok(member.api.delete(`${rooms}/${room.id}`), 204));
    expect(roomRecord).toMatchObject({
      ...by(member, "Mia Member"),
      action: "chat.room.deleted",
      target_type: "chat_room",
      target_id: room.id,
      target_label: "random",
      details: { space_id: spaceId, space_name: "Launch" },
    });

    const board = (await member.api.get(`${base}/spaces/${spaceId}/board`)).body;
    const tasks = `${base}/spaces/${spaceId}/tasks`;
    const task = (await member.api.post(tasks, { title: "Ship it", column_id: board.columns[0].id })).body;
    const taskRecord = await oneRecordOf(() => ok(member.api.delete(`${tasks}/${task.id}`), 204));
    expect(taskRecord).toMatchObject({
      action: "task.deleted",
      target_type: "task",
      target_id: task.id,
      target_label: "Ship it",
      details: { space_id: spaceId, space_name: "Launch" },
    });

    // A folder goes with everything in it: one record, for what the person deleted.
    const files = `${base}/spaces/${spaceId}/files`;
    const folder = (await member.api.post(`${files}/folders`, { name: "Old stuff" })).body.node;
    await member.api.post(`${files}/text`, { name: "inside.md", content: "x", parent_id: folder.id });
    const fileRecord = await oneRecordOf(() => ok(member.api.delete(`${files}/${folder.id}`), 204));
    expect(fileRecord).toMatchObject({
      action: "file.deleted",
      target_type: "file",
      target_id: folder.id,
      target_label: "Old stuff",
      details: { space_id: spaceId, space_name: "Launch", kind: "folder" },
    });
  });
});

describe("what records nothing", () => {
  it("an act refused (403, 404, 409) or invalid (400) leaves no record", async () => {
    const made = await recordsOf(async () => {
      // Not allowed: 403.
      await ok(member.api.delete(`${base}/members/${manager.id}`), 403);
      await ok(member.api.post(`${base}/roles`, { name: "Nope" }), 403);
      await ok(member.api.put(`${base}/integrations/agent`, { api_key: "sk-never-stored" }), 403);
      // Grants more than the caller holds: 403.
      await ok(manager.api.put(`${base}/members/${member.id}/roles`, { role_ids: [org.roles.Owner] }), 403);
      // The last owner stays: 400 for oneself, 409 otherwise.
      await ok(org.owner.api.delete(`${base}/members/${org.owner.id}`), 400);
      await ok(org.owner.api.put(`${base}/members/${org.owner.id}/roles`, { role_ids: [] }), 409);
      // Invalid input: 400.
      await ok(org.owner.api.post(`${base}/roles`, { name: "Bad", permissions: ["root"] }), 400);
      await ok(org.owner.api.post(`${base}/invites`, { role_ids: ["01a1fdb9-0000-7000-8000-000000000000"] }), 400);
      // Nothing there: 404.
      await ok(member.api.delete(`${base}/spaces/${spaceId}/tasks/01a1fdb9-0000-7000-8000-000000000000`), 404);
      await ok(org.owner.api.delete(`${base}/invites/01a1fdb9-0000-7000-8000-000000000000`), 404);
      // A conflict: 409.
      await ok(org.owner.api.post(`${base}/roles`, { name: "People lead" }), 409);
    });
    expect(made).toEqual([]);
  });

  it("keeps every secret out: tokens, keys and their hints appear in no record", async () => {
    expect(secrets.length).toBeGreaterThanOrEqual(5);
    const text = JSON.stringify(await everything());
    for (const secret of secrets) expect(text).not.toContain(secret);
  });
});

describe("GET /organizations/{orgId}/audit", () => {
  it("answers 403 missing permission: org.manage to members, member managers and staff", async () => {
    const staff = await addStaff(org, { role_ids: [org.roles.Owner] });
    const viewer = await addMember(org, ["Viewer"]);
    for (const caller of [member, manager, viewer]) {
      const res = await caller.api.get(`${base}/audit`);
      expect({ status: res.status, body: res.body }).toEqual({
        status: 403,
        body: { error: "missing permission: org.manage" },
      });
    }
    // Staff holding Owner hold org.manage: the permission decides, not the kind of member.
    expect((await staff.api.get(`${base}/audit`)).status).toBe(200);
    expect((await org.anon.get(`${base}/audit`)).status).toBe(401);
  });

  it("pages newest first with limit and before (the last record's created_at): no gap, no repeat", async () => {
    const all = await everything();
    expect(all.length).toBeGreaterThan(10);
    const times = all.map((e) => Date.parse(e.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(new Set(times).size).toBe(times.length);
    const paged: any[] = [];
    let before = "";
    for (;;) {
      const res = await org.owner.api.get(`${base}/audit?limit=3${before ? `&before=${before}` : ""}`);
      expect(res.status).toBe(200);
      expect(res.body.events.length).toBeLessThanOrEqual(3);
      paged.push(...res.body.events);
      if (res.body.events.length < 3) break;
      before = res.body.events.at(-1).created_at;
    }
    expect(paged.map((e) => e.id)).toEqual(all.map((e) => e.id));
    // Default 50, at most 200.
    expect((await org.owner.api.get(`${base}/audit`)).body.events.length).toBe(Math.min(all.length, 50));
    expect((await org.owner.api.get(`${base}/audit?limit=100000`)).body.events.length).toBe(Math.min(all.length, 200));
  });

  it("filters by actor_user_id and by action, together or alone", async () => {
    const all = await everything();
    const byManager = (await org.owner.api.get(`${base}/audit?limit=200&actor_user_id=${manager.id}`)).body.events;
    expect(byManager.map((e: any) => e.id)).toEqual(all.filter((e) => e.actor_user_id === manager.id).map((e) => e.id));
    expect(byManager.length).toBeGreaterThan(0);
    const removed = (await org.owner.api.get(`${base}/audit?action=member.removed`)).body.events;
    expect(removed.map((e: any) => e.id)).toEqual(all.filter((e) => e.action === "member.removed").map((e) => e.id));
    const both = await org.owner.api.get(`${base}/audit?action=invite.created&actor_user_id=${manager.id}`);
    expect(both.body.events.map((e: any) => e.id)).toEqual(
      all.filter((e) => e.action === "invite.created" && e.actor_user_id === manager.id).map((e) => e.id),
    );
    // An id of no one: nothing, not an error.
    const nobody = await org.owner.api.get(`${base}/audit?actor_user_id=01a1fdb9-0000-7000-8000-000000000000`);
    expect(nobody.body).toEqual({ events: [] });
  });

  it("answers 400 naming the field for an invalid query value", async () => {
    const cases: [string, string][] = [
      ["limit=0", "invalid limit"],
      ["limit=ten", "invalid limit"],
      ["before=yesterday", "invalid before"],
      ["actor_user_id=nope", "actor_user_id: must be a UUID"],
    ];
    for (const [query, error] of cases) {
      const res = await org.owner.api.get(`${base}/audit?${query}`);
      expect({ query, status: res.status, body: res.body }).toEqual({ query, status: 400, body: { error } });
    }
    const action = await org.owner.api.get(`${base}/audit?action=member.exploded`);
    expect(action.status).toBe(400);
    expect(action.body.error).toStartWith("action: must be one of ");
  });

  it("answers 404 organization not found for another organization's id", async () => {
    const res = await org.owner.api.get("/api/v1/organizations/01a1fdb9-0000-7000-8000-000000000000/audit");
    expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: { error: "organization not found" } });
  });
});
