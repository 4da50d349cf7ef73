/**
 * Automations of a space (api-spec §2 "Automation", §3 "Automation status", §4 "Automations", §5 rule 6;
 * contract §4 approve/reject, §5 live events, §7): list, create, patch, delete, approve and reject under
 * `/api/v1/organizations/{orgId}/spaces/{spaceId}/automations`, called over HTTP by people and by an `sa_` token.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, addStaff, type Org, type Person, staffWorld } from "../helpers/factories";
import { TIMESTAMP, UUID } from "../helpers/http";
import type { TestServer } from "../helpers/server";
import { type Listener, type LiveEvent, listen } from "../helpers/sockets";

/** Every field api-spec §2 lists for an Automation, plus the `has_oauth_token` extension. */
const AUTOMATION_KEYS = [
  "config",
  "config_problem",
  "created_at",
  "created_by_service_account_id",
  "created_by_user_id",
  "has_oauth_token",
  "id",
  "kind",
  "last_error",
  "last_run_at",
  "name",
  "next_run_at",
  "organization_id",
  "rejection_reason",
  "reviewed_at",
  "reviewed_by_user_id",
  "space_id",
  "status",
  "updated_at",
];
const KINDS = ["social_post", "reverse_tunnel", "scheduled", "webhook"];
const SETTABLE = ["draft", "pending_approval", "active", "paused"];
/** A well-formed id of no automation. */
const NO_ID = "01a1fdb9-0000-7000-8000-0000000000aa";
const NOT_PENDING = { error: "automation is not pending approval" };
const NOT_FOUND = { error: "automation not found" };

let server: TestServer;
let org: Org;
let member: Person;
let viewer: Person;
let outsider: Person;
let staff: Awaited<ReturnType<typeof addStaff>>;
let spaceId: string;
let otherSpaceId: string;
let privateSpaceId: string;
let ownerLive: Listener;
/** Every OAuth token sent, for the "write-only" checks at the end. */
const oauthTokens: string[] = [];
/** Every answer text received, for the same checks. */
const answers: string[] = [];

const automations = (space = spaceId) => `/api/v1/organizations/${org.id}/spaces/${space}/automations`;
const one = (id: string, space = spaceId) => `${automations(space)}/${id}`;

let counter = 0;
const unique = (name: string) => `${name} ${++counter}`;
function newOauthToken(): string {
  const token = `oauth-${++counter}-${crypto.randomUUID()}`;
  oauthTokens.push(token);
  return token;
}

function seen<T extends { text: string }>(reply: T): T {
  answers.push(reply.text);
  return reply;
}

/** Creates an automation as `as` and returns it (fails loudly otherwise). */
async function create(body: Record<string, unknown> = {}, as: { api: Person["api"] } = member): Promise<any> {
  const res = seen(await as.api.post(automations(), { name: unique("Auto"), kind: "scheduled", ...body }));
  if (res.status !== 201) throw new Error(`automation create failed: ${res.status} ${res.text}`);
  return res.body.automation;
}

/** A pending automation proposed by the staff member. */
const proposed = (body: Record<string, unknown> = {}) => create({ description: "please", ...body }, staff);

async function listed(id: string, as: { api: Person["api"] } = member): Promise<any> {
  const res = seen(await as.api.get(automations()));
  expect(res.status).toBe(200);
  return res.body.automations.find((a: { id: string }) => a.id === id);
}

const is = (id: string, status?: string) => (e: LiveEvent) =>
  e.type === "automation.updated" && e.payload?.id === id && (status === undefined || e.payload.status === status);

beforeAll(async () => {
  ({ server, org, member, viewer, outsider, staff, spaceId, otherSpaceId, privateSpaceId } = await staffWorld([
    "Marketing",
    "Ops",
  ]));
  ownerLive = await listen(server.url, org.id, org.owner.token);
});
afterAll(async () => {
  ownerLive?.close();
  await server.stop();
});

describe("POST .../automations by a person", () => {
  it("creates a draft with every field of the spec, name stripped and config {}", async () => {
    const before = Date.now();
    const res = seen(await member.api.post(automations(), { name: "  Weekly digest \n", kind: "scheduled" }));
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(["automation"]);
    const a = res.body.automation;
    expect(Object.keys(a).sort()).toEqual(AUTOMATION_KEYS);
    expect(a).toEqual({
      id: a.id,
      organization_id: org.id,
      space_id: spaceId,
      name: "Weekly digest",
      kind: "scheduled",
      config: {},
      status: "draft",
      created_by_user_id: member.id,
      created_by_service_account_id: null,
      reviewed_by_user_id: null,
      reviewed_at: null,
      rejection_reason: null,
      last_run_at: null,
      last_error: null,
      // Contract §8: an empty config cannot run, and says why; nothing is scheduled.
      next_run_at: null,
      config_problem: "config.cron: required",
      has_oauth_token: false,
      created_at: a.created_at,
      updated_at: a.updated_at,
    });
    expect(a.id).toMatch(UUID);
    expect(a.created_at).toMatch(TIMESTAMP);
    expect(a.updated_at).toMatch(TIMESTAMP);
    expect(Date.parse(a.created_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(await listed(a.id)).toEqual(a);
  });

  it("accepts every kind and keeps the config given", async () => {
    for (const kind of KINDS) {
      const config = { cron: "0 9 * * 1", channel: "#general", nested: { on: true, n: [1, 2] } };
      const a = await create({ kind, config });
      expect(a.kind).toBe(kind);
      expect(a.config).toEqual(config);
    }
  });

  it("honours a given status of draft, pending_approval, active or paused", async () => {
    for (const status of SETTABLE) {
      const a = await create({ status });
      expect(a.status).toBe(status);
      expect(a.created_by_user_id).toBe(member.id);
      expect((await listed(a.id)).status).toBe(status);
    }
  });

  it("refuses status rejected (and any other value) with a 400 naming status, creating nothing", async () => {
    const before = seen(await member.api.get(automations())).body.automations.length;
    for (const status of ["rejected", "running", "", 1, null]) {
      const res = await member.api.post(automations(), { name: unique("Bad"), kind: "webhook", status });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain("status");
    }
    expect(seen(await member.api.get(automations())).body.automations.length).toBe(before);
  });

  it("keeps a person's description out of config (it becomes proposal_note only for staff)", async () => {
    const a = await create({ description: "for the team", config: { a: 1 } });
    expect(a.config).toEqual({ a: 1 });
    expect(a.status).toBe("draft");
  });

  it("answers 400 naming the field for a missing or invalid name, kind or config", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: "webhook" }, "name: required"],
      [{ name: "   ", kind: "webhook" }, "name: must not be empty"],
      [{ name: 5, kind: "webhook" }, "name: must be a string"],
      [{ name: "x".repeat(201), kind: "webhook" }, "name: must be at most 200 characters"],
    ];
    for (const [body, error] of cases) {
      const res = await member.api.post(automations(), body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error });
    }
    for (const body of [{ name: "k" }, { name: "k", kind: "cron" }, { name: "k", kind: 3 }]) {
      const res = await member.api.post(automations(), body);
      expect(res.status).toBe(400);
      expect(res.body.error).toContain("kind");
    }
    for (const config of [[1, 2], "x", 3, null]) {
      const res = await member.api.post(automations(), { name: "c", kind: "webhook", config });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain("config");
    }
  });

  it("answers 400 for a body that is not JSON", async () => {
    const text = await member.api.post(automations(), undefined, {
      raw: JSON.stringify({ name: "t", kind: "webhook" }),
      contentType: "text/plain",
    });
    expect(text.status).toBe(400);
    expect(text.body).toEqual({ error: "content-type must be application/json" });
    const bad = await member.api.post(automations(), undefined, { raw: "{", contentType: "application/json" });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: "invalid json" });
  });
});

describe("POST .../automations by a service account", () => {
  it("forces pending_approval, keeps description as config.proposal_note, records the account", async () => {
    const res = seen(
      await staff.api.post(automations(), {
        name: " Post launch tweet ",
        kind: "social_post",
        status: "active",
        config: { channel: "#launch" },
        description: "Announce the launch every Monday",
      }),
    );
    expect(res.status).toBe(201);
    const a = res.body.automation;
    expect(Object.keys(a).sort()).toEqual(AUTOMATION_KEYS);
    expect(a).toMatchObject({
      name: "Post launch tweet",
      kind: "social_post",
      status: "pending_approval",
      config: { channel: "#launch", proposal_note: "Announce the launch every Monday" },
      created_by_user_id: null,
      created_by_service_account_id: staff.account.id,
      reviewed_by_user_id: null,
      reviewed_at: null,
      rejection_reason: null,
      has_oauth_token: false,
    });
  });

  it("ignores every status the body gives, and also none", async () => {
    for (const status of [undefined, "draft", "active", "paused", "pending_approval"]) {
      const a = await create(status === undefined ? {} : { status }, staff);
      expect(a.status).toBe("pending_approval");
      expect(a.created_by_service_account_id).toBe(staff.account.id);
      expect(a.created_by_user_id).toBeNull();
    }
  });

  it("without a description adds no proposal_note", async () => {
    const a = await create({ config: { x: 1 } }, staff);
    expect(a.config).toEqual({ x: 1 });
  });

  it("refuses oauth_token with 403 service accounts cannot set oauth_token", async () => {
    const before = seen(await member.api.get(automations())).body.automations.length;
    const res = await staff.api.post(automations(), {
      name: unique("Token"),
      kind: "social_post",
      oauth_token: newOauthToken(),
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "service accounts cannot set oauth_token" });
    expect(seen(await member.api.get(automations())).body.automations.length).toBe(before);
  });

  it("gets the same 403 whatever the oauth_token's value: null, empty, a number, on create and PATCH", async () => {
    const a = await proposed();
    for (const oauth_token of [null, "", 5, { a: 1 }, "x".repeat(9000)]) {
      const created = await staff.api.post(automations(), { name: unique("Token"), kind: "webhook", oauth_token });
      const patched = await staff.api.patch(one(a.id), { oauth_token });
      for (const res of [created, patched]) {
        expect({ oauth_token, status: res.status, body: res.body }).toEqual({
          oauth_token,
          status: 403,
          body: { error: "service accounts cannot set oauth_token" },
        });
      }
    }
  });
});

describe("oauth_token is write-only", () => {
  it("is stored on create and shown only as has_oauth_token", async () => {
    const token = newOauthToken();
    const res = seen(
      await member.api.post(automations(), { name: unique("Social"), kind: "social_post", oauth_token: token }),
    );
    expect(res.status).toBe(201);
    expect(res.body.automation.has_oauth_token).toBe(true);
    expect(res.text).not.toContain(token);
    expect(Object.keys(res.body.automation)).not.toContain("oauth_token");
    expect((await listed(res.body.automation.id)).has_oauth_token).toBe(true);
  });

  it("is set and replaced by PATCH, never answered", async () => {
    const a = await create({ kind: "social_post" });
    expect(a.has_oauth_token).toBe(false);
    const first = seen(await member.api.patch(one(a.id), { oauth_token: newOauthToken() }));
    expect(first.status).toBe(200);
    expect(first.body.automation.has_oauth_token).toBe(true);
    const second = seen(await org.owner.api.patch(one(a.id), { oauth_token: newOauthToken(), name: "Renamed" }));
    expect(second.body.automation).toMatchObject({ has_oauth_token: true, name: "Renamed" });
    // A PATCH without it keeps the stored token.
    const third = seen(await member.api.patch(one(a.id), { config: { a: 1 } }));
    expect(third.body.automation.has_oauth_token).toBe(true);
  });

  it("is cleared by PATCH with null (an extension), and can be set again", async () => {
    const a = await create({ kind: "social_post", oauth_token: newOauthToken() });
    expect(a.has_oauth_token).toBe(true);
    const cleared = seen(await member.api.patch(one(a.id), { oauth_token: null }));
    expect(cleared.status).toBe(200);
    expect(cleared.body.automation.has_oauth_token).toBe(false);
    expect((await listed(a.id)).has_oauth_token).toBe(false);
    const again = seen(await member.api.patch(one(a.id), { oauth_token: newOauthToken() }));
    expect(again.body.automation.has_oauth_token).toBe(true);
  });

  it("cannot be cleared by a service account (403)", async () => {
    const a = await proposed();
    const res = await staff.api.patch(one(a.id), { oauth_token: null });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "service accounts cannot set oauth_token" });
  });

  it("refuses an empty, mistyped or overlong oauth_token from a person with 400 naming the field", async () => {
    for (const [oauth_token, error] of [
      ["", "oauth_token: must not be empty"],
      [null, "oauth_token: must be a string"],
      [5, "oauth_token: must be a string"],
      ["x".repeat(8193), "oauth_token: must be at most 8192 characters"],
    ] as const) {
      const res = await member.api.post(automations(), { name: unique("E"), kind: "webhook", oauth_token });
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error } });
    }
  });

  it("cannot be set by a service account through PATCH either", async () => {
    const a = await proposed();
    const res = await staff.api.patch(one(a.id), { oauth_token: newOauthToken() });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "service accounts cannot set oauth_token" });
    expect((await listed(a.id)).has_oauth_token).toBe(false);
  });
});

describe("PATCH .../automations/{id}", () => {
  it("changes only the fields given; config replaces; name stripped; updated_at moves", async () => {
    // Config names rooms that exist (contract §8: a room that does not is a 400).
    for (const name of ["a", "b"])
      await member.api.post(`/api/v1/organizations/${org.id}/spaces/${spaceId}/chat-rooms`, { name });
    const a = await create({ config: { cron: "0 9 * * *", channel: "#a" } });
    await Bun.sleep(5);
    const res = seen(await member.api.patch(one(a.id), { name: "  Nightly  ", config: { channel: "#b" } }));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["automation"]);
    const b = res.body.automation;
    expect(Object.keys(b).sort()).toEqual(AUTOMATION_KEYS);
    // What it lacks to run changed with its config (contract §8).
    expect(a.config_problem).toBe("config.message: required (or staff_prompt, or task)");
    expect(b.config_problem).toBe("config.cron: required");
    expect(b).toEqual({
      ...a,
      name: "Nightly",
      config: { channel: "#b" },
      config_problem: b.config_problem,
      updated_at: b.updated_at,
    });
    expect(b.updated_at).toMatch(TIMESTAMP);
    expect(Date.parse(b.updated_at)).toBeGreaterThan(Date.parse(a.updated_at));
    expect(b.created_at).toBe(a.created_at);
    expect(await listed(a.id)).toEqual(b);
  });

  it("config {} empties it", async () => {
    const a = await create({ config: { a: 1 } });
    const res = seen(await member.api.patch(one(a.id), { config: {} }));
    expect(res.body.automation.config).toEqual({});
  });

  it("moves a person's automation to any settable status, from any status (rejected included)", async () => {
    const a = await create();
    for (const status of ["pending_approval", "active", "paused", "draft", "active"]) {
      await Bun.sleep(2);
      const before = (await listed(a.id)).updated_at;
      const res = seen(await member.api.patch(one(a.id), { status }));
      expect(res.status).toBe(200);
      expect(res.body.automation.status).toBe(status);
      expect(Date.parse(res.body.automation.updated_at)).toBeGreaterThan(Date.parse(before));
    }
    const r = await proposed();
    expect((await org.owner.api.post(`${one(r.id)}/reject`)).body.automation.status).toBe("rejected");
    const back = seen(await member.api.patch(one(r.id), { status: "draft" }));
    expect(back.status).toBe(200);
    expect(back.body.automation.status).toBe("draft");
  });

  it("refuses status rejected (or unknown) with 400 naming status, changing nothing", async () => {
    const a = await create({ status: "active" });
    for (const status of ["rejected", "done", 7]) {
      const res = await member.api.patch(one(a.id), { status, name: "Changed" });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain("status");
    }
    expect(await listed(a.id)).toEqual(a);
  });

  it("answers 400 naming the field for an empty name or a non-object config", async () => {
    const a = await create();
    const name = await member.api.patch(one(a.id), { name: "  " });
    expect(name.status).toBe(400);
    expect(name.body).toEqual({ error: "name: must not be empty" });
    const config = await member.api.patch(one(a.id), { config: ["x"] });
    expect(config.status).toBe(400);
    expect(config.body.error).toContain("config");
  });

  it("sends a service account's change back to pending_approval, whatever status it asks for", async () => {
    const a = await create({ status: "active" });
    const res = seen(await staff.api.patch(one(a.id), { config: { tweaked: true }, status: "active" }));
    expect(res.status).toBe(200);
    expect(res.body.automation).toMatchObject({
      status: "pending_approval",
      config: { tweaked: true },
      created_by_user_id: member.id,
    });
    const renamed = seen(await staff.api.patch(one(a.id), { name: "Staff rename" }));
    expect(renamed.body.automation).toMatchObject({ name: "Staff rename", status: "pending_approval" });
  });

  it("merges a service account's description into config as proposal_note, as on create", async () => {
    const a = await proposed();
    const noted = seen(await staff.api.patch(one(a.id), { config: { cron: "0 9 * * 1" }, description: "Mondays now" }));
    expect(noted.body.automation.config).toEqual({ cron: "0 9 * * 1", proposal_note: "Mondays now" });
    const only = seen(await staff.api.patch(one(a.id), { description: "Mondays at nine" }));
    expect(only.body.automation.config).toEqual({ cron: "0 9 * * 1", proposal_note: "Mondays at nine" });
    // A person's description is not a proposal note: config is left as it is.
    const person = seen(await member.api.patch(one(a.id), { description: "mine" }));
    expect(person.body.automation.config).toEqual(only.body.automation.config);
  });

  it("records the person who sets a pending automation active as its reviewer", async () => {
    const a = await proposed();
    const res = seen(await member.api.patch(one(a.id), { status: "active" }));
    expect(res.body.automation).toMatchObject({ status: "active", reviewed_by_user_id: member.id });
    expect(res.body.automation.reviewed_at).toMatch(TIMESTAMP);
    // Pausing and resuming later is not a review.
    const paused = seen(await org.owner.api.patch(one(a.id), { status: "paused" }));
    const resumed = seen(await org.owner.api.patch(one(a.id), { status: "active" }));
    expect(paused.body.automation.reviewed_by_user_id).toBe(member.id);
    expect(resumed.body.automation).toMatchObject({
      reviewed_by_user_id: member.id,
      reviewed_at: res.body.automation.reviewed_at,
    });
  });

  it("clears the earlier review when an automation goes back to pending_approval", async () => {
    const a = await proposed();
    const rejected = await org.owner.api.post(`${one(a.id)}/reject`, { reason: "not yet" });
    expect(rejected.body.automation).toMatchObject({ status: "rejected", rejection_reason: "not yet" });
    const again = seen(await staff.api.patch(one(a.id), { config: { better: true } }));
    expect(again.body.automation).toMatchObject({
      status: "pending_approval",
      reviewed_by_user_id: null,
      reviewed_at: null,
      rejection_reason: null,
    });
  });
});

describe("POST .../automations/{id}/approve and /reject", () => {
  it("approve: a person makes a pending automation active and is recorded as reviewer", async () => {
    const a = await proposed();
    await Bun.sleep(2);
    const res = seen(await org.owner.api.post(`${one(a.id)}/approve`));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["automation"]);
    const b = res.body.automation;
    expect(Object.keys(b).sort()).toEqual(AUTOMATION_KEYS);
    expect(b).toEqual({
      ...a,
      status: "active",
      reviewed_by_user_id: org.owner.id,
      reviewed_at: b.reviewed_at,
      rejection_reason: null,
      updated_at: b.updated_at,
    });
    expect(b.reviewed_at).toMatch(TIMESTAMP);
    expect(Date.parse(b.updated_at)).toBeGreaterThan(Date.parse(a.updated_at));
    expect(b.created_by_user_id).toBeNull();
    expect(b.created_by_service_account_id).toBe(staff.account.id);
    expect(await listed(a.id)).toEqual(b);
  });

  it("reject: a reason is kept as rejection_reason and the status becomes rejected", async () => {
    const a = await proposed();
    const res = seen(await member.api.post(`${one(a.id)}/reject`, { reason: "Too noisy" }));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.automation).sort()).toEqual(AUTOMATION_KEYS);
    expect(res.body.automation).toMatchObject({
      status: "rejected",
      reviewed_by_user_id: member.id,
      rejection_reason: "Too noisy",
    });
    expect(res.body.automation.reviewed_at).toMatch(TIMESTAMP);
    expect(await listed(a.id)).toEqual(res.body.automation);
  });

  it("accept no body or {} (reject then has no reason)", async () => {
    for (const body of [undefined, {}]) {
      const x = await proposed();
      const approve = seen(await member.api.post(`${one(x.id)}/approve`, body));
      expect(approve.status).toBe(200);
      expect(approve.body.automation.status).toBe("active");
      const y = await proposed();
      const reject = seen(await member.api.post(`${one(y.id)}/reject`, body));
      expect(reject.status).toBe(200);
      expect(reject.body.automation).toMatchObject({ status: "rejected", rejection_reason: null });
    }
  });

  it("refuse a JSON body sent without the JSON content type (400), leaving it pending", async () => {
    const a = await proposed();
    for (const action of ["approve", "reject"]) {
      const res = await member.api.post(`${one(a.id)}/${action}`, undefined, {
        raw: JSON.stringify({ reason: "x" }),
        contentType: "text/plain",
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "content-type must be application/json" });
    }
    expect((await listed(a.id)).status).toBe("pending_approval");
  });

  it("answer 409 automation is not pending approval outside pending_approval", async () => {
    for (const status of ["draft", "active", "paused"]) {
      const a = await create({ status });
      for (const action of ["approve", "reject"]) {
        const res = await org.owner.api.post(`${one(a.id)}/${action}`);
        expect(res.status).toBe(409);
        expect(res.body).toEqual(NOT_PENDING);
      }
      expect(await listed(a.id)).toEqual(a);
    }
    const approved = await proposed();
    await org.owner.api.post(`${one(approved.id)}/approve`);
    expect((await org.owner.api.post(`${one(approved.id)}/approve`)).body).toEqual(NOT_PENDING);
    expect((await org.owner.api.post(`${one(approved.id)}/reject`)).body).toEqual(NOT_PENDING);
    const rejected = await proposed();
    await org.owner.api.post(`${one(rejected.id)}/reject`, { reason: "no" });
    const again = await org.owner.api.post(`${one(rejected.id)}/approve`);
    expect(again.status).toBe(409);
    expect(again.body).toEqual(NOT_PENDING);
    expect((await listed(rejected.id)).rejection_reason).toBe("no");
  });

  it("a human-created pending_approval automation can be approved too", async () => {
    const a = await create({ status: "pending_approval" });
    const res = seen(await org.owner.api.post(`${one(a.id)}/approve`, {}));
    expect(res.status).toBe(200);
    expect(res.body.automation).toMatchObject({ status: "active", created_by_user_id: member.id });
  });

  it("answer 403 to a service account, even one holding files.write, and change nothing", async () => {
    const a = await proposed();
    for (const action of ["approve", "reject"]) {
      const res = await staff.api.post(`${one(a.id)}/${action}`);
      expect(res.status).toBe(403);
      expect(typeof res.body.error).toBe("string");
    }
    expect(await listed(a.id)).toEqual(a);
  });

  it("answer 403 missing permission: files.write to a Viewer", async () => {
    const a = await proposed();
    for (const action of ["approve", "reject"]) {
      const res = await viewer.api.post(`${one(a.id)}/${action}`);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: "missing permission: files.write" });
    }
    expect((await listed(a.id)).status).toBe("pending_approval");
  });

  it("answer 400 naming reason when it is not a string", async () => {
    const a = await proposed();
    const res = await member.api.post(`${one(a.id)}/reject`, { reason: 5 });
    expect(res.status).toBe(400);
    expect(res.body.error).toStartWith("reason:");
  });
});

describe("GET .../automations", () => {
  it("lists every automation of the space, oldest first, and none of another space", async () => {
    const other = seen(await member.api.post(automations(otherSpaceId), { name: "Elsewhere", kind: "webhook" }));
    expect(other.status).toBe(201);
    expect(other.body.automation.space_id).toBe(otherSpaceId);
    const res = seen(await viewer.api.get(automations()));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["automations"]);
    const list = res.body.automations as any[];
    expect(list.length).toBeGreaterThan(10);
    for (const a of list) {
      expect(Object.keys(a).sort()).toEqual(AUTOMATION_KEYS);
      expect(a.space_id).toBe(spaceId);
    }
    expect(list.some((a) => a.id === other.body.automation.id)).toBe(false);
    const created = list.map((a) => Date.parse(a.created_at));
    expect(created).toEqual([...created].sort((x, y) => x - y));
    const statuses = new Set(list.map((a) => a.status));
    for (const status of [...SETTABLE, "rejected"]) expect(statuses.has(status)).toBe(true);
    const otherList = seen(await viewer.api.get(automations(otherSpaceId))).body.automations;
    expect(otherList.map((a: { id: string }) => a.id)).toEqual([other.body.automation.id]);
  });

  it("GET .../automations/{id} (an extension) answers one automation as the list shows it", async () => {
    const a = await proposed();
    const res = seen(await viewer.api.get(one(a.id)));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["automation"]);
    expect(res.body.automation).toEqual(await listed(a.id));
    for (const id of [crypto.randomUUID(), "not-a-uuid"]) {
      const missing = await viewer.api.get(one(id));
      expect({ status: missing.status, body: missing.body }).toEqual({
        status: 404,
        body: { error: "automation not found" },
      });
    }
    const elsewhere = await viewer.api.get(one(a.id, otherSpaceId));
    expect(elsewhere.status).toBe(404);
    const outside = await outsider.api.get(one(a.id, privateSpaceId));
    expect(outside.body).toEqual({ error: "space not found" });
  });

  it("is open to a service account (files.read)", async () => {
    const res = seen(await staff.api.get(automations()));
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body.automations)).toBe(true);
  });

  it("answers 401 without a token", async () => {
    const res = await org.anon.get(automations());
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
  });
});

describe("permissions and visibility", () => {
  it("a Viewer (files.read only) lists but gets 403 missing permission: files.write on every write", async () => {
    const a = await create();
    expect((await viewer.api.get(automations())).status).toBe(200);
    const writes = [
      await viewer.api.post(automations(), { name: "v", kind: "webhook" }),
      await viewer.api.patch(one(a.id), { name: "v" }),
      await viewer.api.delete(one(a.id)),
    ];
    for (const res of writes) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: "missing permission: files.write" });
    }
    expect(await listed(a.id)).toEqual(a);
  });

  it("a member without any file permission gets 403 missing permission: files.read on the list", async () => {
    const res = await org.owner.api.post(`/api/v1/organizations/${org.id}/roles`, {
      name: unique("Chat only"),
      permissions: ["chat.write"],
    });
    expect(res.status).toBe(201);
    const chatter = await addMember(org, []);
    const assign = await org.owner.api.put(`/api/v1/organizations/${org.id}/members/${chatter.id}/roles`, {
      role_ids: [res.body.role.id],
    });
    expect(assign.status).toBe(200);
    const list = await chatter.api.get(automations());
    expect(list.status).toBe(403);
    expect(list.body).toEqual({ error: "missing permission: files.read" });
  });

  it("a private space answers 404 space not found to someone who cannot see it, on every route", async () => {
    const mine = seen(await org.owner.api.post(automations(privateSpaceId), { name: "Hidden", kind: "webhook" }));
    expect(mine.status).toBe(201);
    const id = mine.body.automation.id;
    const calls = [
      await outsider.api.get(automations(privateSpaceId)),
      await outsider.api.post(automations(privateSpaceId), { name: "x", kind: "webhook" }),
      await outsider.api.patch(one(id, privateSpaceId), { name: "x" }),
      await outsider.api.delete(one(id, privateSpaceId)),
      await outsider.api.post(`${one(id, privateSpaceId)}/approve`),
      await outsider.api.post(`${one(id, privateSpaceId)}/reject`),
    ];
    for (const res of calls) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "space not found" });
    }
    expect(seen(await org.owner.api.get(automations(privateSpaceId))).body.automations).toHaveLength(1);
  });

  it("an unknown or malformed space id answers 404 space not found", async () => {
    for (const space of [NO_ID, "not-a-uuid"]) {
      const res = await member.api.get(automations(space));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "space not found" });
    }
  });
});

describe("unknown automations and DELETE", () => {
  it("answers 404 automation not found for a malformed, unknown or other space's id", async () => {
    const elsewhere = seen(await member.api.post(automations(otherSpaceId), { name: "Other", kind: "webhook" }));
    for (const id of ["not-a-uuid", NO_ID, "123", elsewhere.body.automation.id]) {
      const calls = [
        await member.api.patch(one(id), { name: "x" }),
        await member.api.delete(one(id)),
        await member.api.post(`${one(id)}/approve`),
        await member.api.post(`${one(id)}/reject`),
      ];
      for (const res of calls) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual(NOT_FOUND);
      }
    }
    expect(seen(await member.api.get(automations(otherSpaceId))).body.automations).toContainEqual(
      elsewhere.body.automation,
    );
  });

  it("DELETE answers 204 with no body, then the automation is gone (404 on every route)", async () => {
    const a = await proposed();
    const res = await member.api.delete(one(a.id));
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(await listed(a.id)).toBeUndefined();
    for (const again of [
      await member.api.delete(one(a.id)),
      await member.api.patch(one(a.id), { name: "x" }),
      await org.owner.api.post(`${one(a.id)}/approve`),
    ]) {
      expect(again.status).toBe(404);
      expect(again.body).toEqual(NOT_FOUND);
    }
  });

  it("a service account can withdraw its own pending proposal, and delete nothing else", async () => {
    const a = await proposed();
    expect((await staff.api.delete(one(a.id))).status).toBe(204);
    expect(await listed(a.id)).toBeUndefined();
    const refused = { error: "service accounts can only delete their own pending proposals" };
    const approved = await proposed();
    expect((await org.owner.api.post(`${one(approved.id)}/approve`)).status).toBe(200);
    const persons = await create({ status: "pending_approval" });
    const other = await addStaff(org);
    const others = await proposed();
    for (const [id, who] of [
      [approved.id, staff],
      [persons.id, staff],
      [others.id, other],
    ] as const) {
      const res = await who.api.delete(one(id));
      expect(res.status).toBe(403);
      expect(res.body).toEqual(refused);
      expect(await listed(id)).toBeDefined();
    }
  });
});

describe("live events automation.updated and automation.deleted", () => {
  it("is pushed on create, patch, approve and reject with the automation as payload", async () => {
    const created = seen(
      await staff.api.post(automations(), { name: unique("Live"), kind: "scheduled", description: "note" }),
    );
    const a = created.body.automation;
    const onCreate = await ownerLive.next(is(a.id, "pending_approval"));
    expect(onCreate).toEqual({
      type: "automation.updated",
      organization_id: org.id,
      space_id: spaceId,
      payload: a,
    });

    const patched = seen(await member.api.patch(one(a.id), { config: { cron: "* * * * *" } }));
    const onPatch = await ownerLive.next(
      (e) => is(a.id)(e) && e.payload.updated_at === patched.body.automation.updated_at,
    );
    expect(onPatch.payload).toEqual(patched.body.automation);

    await member.api.patch(one(a.id), { status: "pending_approval" });
    const approved = seen(await org.owner.api.post(`${one(a.id)}/approve`));
    const onApprove = await ownerLive.next(is(a.id, "active"));
    expect(onApprove.payload).toEqual(approved.body.automation);
    expect(onApprove.space_id).toBe(spaceId);

    const b = await proposed();
    const rejected = seen(await org.owner.api.post(`${one(b.id)}/reject`, { reason: "nope" }));
    const onReject = await ownerLive.next(is(b.id, "rejected"));
    expect(onReject.payload).toEqual(rejected.body.automation);
  });

  it("announces a deletion as automation.deleted with the id", async () => {
    const a = await create();
    expect((await member.api.delete(one(a.id))).status).toBe(204);
    const event = await ownerLive.next((e) => e.type === "automation.deleted" && e.payload?.id === a.id);
    expect(event).toEqual({
      type: "automation.deleted",
      organization_id: org.id,
      space_id: spaceId,
      payload: { id: a.id },
    });
  });

  it("reaches a member listening on the org socket too", async () => {
    const memberLive = await listen(server.url, org.id, member.token);
    try {
      const a = await create();
      const event = await memberLive.next(is(a.id));
      expect(event.payload).toEqual(a);
    } finally {
      memberLive.close();
    }
  });
});

describe("live events of a private space", () => {
  it("reach only those who can see the space", async () => {
    const outsiderLive = await listen(server.url, org.id, outsider.token);
    try {
      const hidden = seen(await org.owner.api.post(automations(privateSpaceId), { name: "Hush", kind: "webhook" }));
      expect(hidden.status).toBe(201);
      const onOwner = await ownerLive.next(is(hidden.body.automation.id));
      expect(onOwner.space_id).toBe(privateSpaceId);
      expect(onOwner.payload).toEqual(hidden.body.automation);
      // An ordering barrier: the outsider surely receives this one, sent after the hidden one.
      const visible = await create();
      await outsiderLive.next(is(visible.id));
      expect(outsiderLive.events.some((e) => e.space_id === privateSpaceId)).toBe(false);
    } finally {
      outsiderLive.close();
    }
  });
});

describe("secrecy of the OAuth token", () => {
  it("never appears in an answer, a live event or a log line", () => {
    expect(oauthTokens.length).toBeGreaterThan(2);
    const everything = [answers.join("\n"), JSON.stringify(ownerLive.events), server.logs.join("\n")].join("\n");
    expect(ownerLive.events.some((e) => e.payload?.has_oauth_token === true)).toBe(true);
    for (const token of oauthTokens) expect(everything).not.toContain(token);
  });
});
