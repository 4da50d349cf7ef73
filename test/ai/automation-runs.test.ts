/**
 * Automations that run (contract §8): scheduled ticks that post, ask staff and create tasks; Run now; social
 * posts through a loopback fake of the network, with retries and refusals; config checks; the run history and
 * its live events. A real server on a random port; the only fakes are outside services, as loopback servers.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, addStaff, type Org, type Person, setupOrg } from "../helpers/factories";
import { completion, type FakeProvider, startFakeProvider } from "../helpers/fake-providers";
import { TIMESTAMP, UUID } from "../helpers/http";
import { startTestServer, type TestServer } from "../helpers/server";
import { eventually, type Listener, listen } from "../helpers/sockets";

const RUN_KEYS = [
  "attempt",
  "automation_id",
  "created_at",
  "error",
  "finished_at",
  "id",
  "output",
  "started_at",
  "status",
  "trigger",
];

let server: TestServer;
let org: Org;
let member: Person;
let viewer: Person;
let staff: Awaited<ReturnType<typeof addStaff>>;
let social: FakeProvider;
let gateway: FakeProvider;
let live: Listener;
let spaceId: string;
let roomId: string;

const base = () => `/api/v1/organizations/${org.id}/spaces/${spaceId}`;
const automations = () => `${base()}/automations`;
const messages = () => `${base()}/chat-rooms/${roomId}/messages`;

let counter = 0;
async function create(body: Record<string, unknown>, as: Person = member) {
  const res = await as.api.post(automations(), { name: `Auto ${++counter}`, kind: "scheduled", ...body });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body.automation;
}

async function runs(id: string): Promise<any[]> {
  const res = await member.api.get(`${automations()}/${id}/runs`);
  expect(res.status).toBe(200);
  return res.body.runs;
}

/** Waits until the automation has `n` finished runs; returns them, newest first. */
async function finished(id: string, n = 1, timeoutMs = 8000): Promise<any[]> {
  let seen: any[] = [];
  const until = Date.now() + timeoutMs;
  for (;;) {
    seen = (await runs(id)).filter((r) => r.status === "succeeded" || r.status === "failed");
    if (seen.length >= n) return seen;
    if (Date.now() > until) throw new Error(`timed out waiting for ${n} finished runs of ${id}`);
    await Bun.sleep(50);
  }
}

async function roomMessages(): Promise<any[]> {
  return (await member.api.get(messages())).body.messages;
}

beforeAll(async () => {
  social = startFakeProvider();
  gateway = startFakeProvider(() => completion("On it."));
  server = await startTestServer({
    env: { MODELROUTER_API_BASE_URL: `${gateway.origin}/api/v1` },
    jobs: { automationPauseScale: 0.01 },
  });
  org = await setupOrg(server);
  member = await addMember(org, ["Member"], "Mia Member");
  viewer = await addMember(org, ["Viewer"], "Vic Viewer");
  staff = await addStaff(org, { name: "Ada" });
  await org.owner.api.put(`/api/v1/organizations/${org.id}/integrations/modelrouter`, { api_key: "gw-key" });
  spaceId = (await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Launch" })).body.id;
  roomId = (await member.api.get(`${base()}/chat-rooms`)).body.chat_rooms[0].id;
  live = await listen(server.url, org.id, member.token);
});
afterAll(async () => {
  live?.close();
  await server.stop();
  social.stop();
  gateway.stop();
});

describe("a scheduled automation", () => {
  it("posts its message in the room at each tick, as itself, and records each run", async () => {
    const a = await create({
      status: "active",
      config: { cron: "* * * * * *", channel: "#General", message: "Stand-up in 5 minutes" },
    });
    expect(a.config_problem).toBeNull();
    expect(a.next_run_at).toMatch(TIMESTAMP);
    expect(Date.parse(a.next_run_at) - Date.now()).toBeLessThanOrEqual(1000);
    const done = await finished(a.id, 2);
    await member.api.patch(`${automations()}/${a.id}`, { status: "paused" });
    const run = done[done.length - 1];
    expect(Object.keys(run).sort()).toEqual(RUN_KEYS);
    expect(run).toMatchObject({
      automation_id: a.id,
      trigger: "schedule",
      status: "succeeded",
      attempt: 1,
      error: null,
    });
    expect(run.id).toMatch(UUID);
    for (const key of ["created_at", "started_at", "finished_at"]) expect(run[key]).toMatch(TIMESTAMP);
    const posted = (await roomMessages()).filter((m) => m.automation_id === a.id);
    expect(posted.length).toBeGreaterThanOrEqual(2);
    expect(posted[0]).toMatchObject({ author_user_id: null, content: "Stand-up in 5 minutes", automation_id: a.id });
    expect(run.output).toEqual({ chat_room_id: roomId, message_id: expect.stringMatching(UUID) });
    expect(posted.map((m) => m.id)).toContain(run.output.message_id);
  });

  it("stops the moment it is paused: no run after the pause commits", async () => {
    const a = await create({ status: "active", config: { cron: "* * * * * *", channel: "general", message: "tick" } });
    await finished(a.id, 1);
    const paused = await member.api.patch(`${automations()}/${a.id}`, { status: "paused" });
    expect(paused.body.automation.next_run_at).toBeNull();
    const count = (await runs(a.id)).length;
    await Bun.sleep(2200);
    const after = await runs(a.id);
    expect(after.length).toBe(count);
    expect(after.every((r) => r.status === "succeeded" || r.status === "failed")).toBe(true);
  });

  it("keeps last_run_at and last_error, and announces its runs live", async () => {
    const a = await create({ status: "active", config: { cron: "* * * * * *", channel: "general", message: "live" } });
    const [run] = await finished(a.id, 1);
    await member.api.patch(`${automations()}/${a.id}`, { status: "paused" });
    await eventually(
      () => live.events.some((e) => e.type === "automation.run.finished" && e.payload.id === run.id),
      "automation.run.finished",
    );
    const started = live.events.find((e) => e.type === "automation.run.started" && e.payload.id === run.id);
    expect(started?.payload).toMatchObject({ id: run.id, automation_id: a.id, status: "running", attempt: 1 });
    const now = (await member.api.get(`${automations()}/${a.id}`)).body.automation;
    expect(now.last_run_at).toMatch(TIMESTAMP);
    expect(now.last_error).toBeNull();
  });

  it("creates its task in the column named, and asks a staff member in the room", async () => {
    const a = await create({
      status: "active",
      config: {
        cron: "* * * * * *",
        channel: "general",
        staff_user_id: staff.account.user_id,
        staff_prompt: "summarise last week's board",
        task: { title: "Weekly review", column: "review" },
      },
    });
    const [run] = await finished(a.id, 1);
    await member.api.patch(`${automations()}/${a.id}`, { status: "paused" });
    expect(run.status).toBe("succeeded");
    // Checked field by field: toMatchObject with asymmetric matchers writes them into the object it checks.
    expect(run.output.staff_message_id).toMatch(UUID);
    expect(run.output.task_id).toMatch(UUID);
    const got = await member.api.get(`${base()}/tasks/${run.output.task_id}`);
    expect(got.status).toBe(200);
    const task = got.body;
    const board = (await member.api.get(`${base()}/board`)).body;
    expect(task.title).toBe("Weekly review");
    expect(task.column_id).toBe(board.columns.find((c: { name: string }) => c.name === "Review").id);
    const asked = (await roomMessages()).find((m) => m.id === run.output.staff_message_id);
    expect(asked).toMatchObject({ author_user_id: null, automation_id: a.id });
    expect(asked.content).toBe(`<@${staff.account.user_id}> summarise last week's board`);
    // The staff member answers in the room, as it would a person who asked.
    await eventually(() => gateway.requests.length > 0, "the model gateway asked");
    let replies: any[] = [];
    for (let i = 0; i < 100 && replies.length === 0; i++) {
      replies = (await roomMessages()).filter((m) => m.author_user_id === staff.account.user_id);
      if (replies.length === 0) await Bun.sleep(50);
    }
    expect(replies[0]?.content).toBe("On it.");
  });
});

describe("config checks", () => {
  it("answers 400 naming the key for a wrong type or value, and stores nothing", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ cron: "every monday" }, "config.cron: invalid cron expression"],
      [{ cron: "0 0 9 * * * 2027" }, "config.cron: invalid cron expression"],
      [{ cron: 5 }, "config.cron: must be a string"],
      [{ cron: "0 9 * * 1", timezone: "Mars/Olympus" }, "config.timezone: unknown time zone"],
      [{ channel: "#nowhere" }, "config.channel: no such chat room"],
      [{ staff_user_id: member.id }, "config.staff_user_id: not a staff member"],
      [{ task: "x" }, "config.task: must be an object"],
      [{ task: { title: "t", column: "Someday" } }, "config.task.column: no such column"],
    ];
    for (const [config, error] of cases) {
      const res = await member.api.post(automations(), { name: "bad", kind: "scheduled", config });
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error } });
    }
    const social = await member.api.post(automations(), {
      name: "bad",
      kind: "social_post",
      config: { endpoint: "ftp://x" },
    });
    expect(social.body).toEqual({ error: "config.endpoint: must be an http(s) URL" });
  });

  it("says what a config lacks as config_problem, and an automation with one never runs", async () => {
    const lacking: [string, Record<string, unknown>, string][] = [
      ["scheduled", {}, "config.cron: required"],
      ["scheduled", { cron: "0 9 * * 1" }, "config.message: required (or staff_prompt, or task)"],
      ["scheduled", { cron: "0 9 * * 1", message: "hi" }, "config.channel: required"],
      ["scheduled", { cron: "0 9 * * 1", channel: "general", staff_prompt: "hi" }, "config.staff_user_id: required"],
      ["webhook", {}, "config.channel: required (or task)"],
      ["social_post", { text: "hi" }, "oauth_token: required"],
    ];
    for (const [kind, config, problem] of lacking) {
      const res = await member.api.post(automations(), { name: "lacking", kind, config, status: "active" });
      expect(res.status).toBe(201);
      expect(res.body.automation).toMatchObject({ config_problem: problem, next_run_at: null, config });
    }
    const reverse = await create({ kind: "reverse_tunnel", status: "active" });
    expect(reverse.config_problem).toBeNull();
  });

  it("keeps keys a kind does not know", async () => {
    const a = await create({ config: { cron: "0 9 * * 1", channel: "general", message: "hi", proposal_note: "why" } });
    expect(a.config).toEqual({ cron: "0 9 * * 1", channel: "general", message: "hi", proposal_note: "why" });
    expect(a.config_problem).toBeNull();
  });

  it("a room deleted later becomes the problem, and the schedule stops", async () => {
    const room = (await member.api.post(`${base()}/chat-rooms`, { name: "temporary" })).body;
    const a = await create({ status: "active", config: { cron: "0 9 * * 1", channel: "temporary", message: "hi" } });
    expect(a.next_run_at).toMatch(TIMESTAMP);
    expect((await member.api.delete(`${base()}/chat-rooms/${room.id}`)).status).toBe(204);
    const after = (await member.api.get(`${automations()}/${a.id}`)).body.automation;
    expect(after).toMatchObject({ config_problem: "config.channel: no such chat room", next_run_at: null });
  });
});

describe("POST .../automations/{id}/run", () => {
  it("runs an active automation now: 202 {run}, then it posts", async () => {
    const a = await create({ status: "active", config: { cron: "0 9 1 1 *", channel: "general", message: "now" } });
    const res = await member.api.post(`${automations()}/${a.id}/run`);
    expect(res.status).toBe(202);
    expect(Object.keys(res.body)).toEqual(["run"]);
    expect(res.body.run).toMatchObject({ automation_id: a.id, trigger: "manual", status: "queued", output: null });
    const [run] = await finished(a.id, 1);
    expect(run).toMatchObject({ id: res.body.run.id, status: "succeeded", trigger: "manual" });
  });

  it("refuses what cannot run: not active 409, a config problem 409 with it, a service account 403, a Viewer 403", async () => {
    const draft = await create({ config: { cron: "0 9 * * 1", channel: "general", message: "x" } });
    expect((await member.api.post(`${automations()}/${draft.id}/run`)).body).toEqual({
      error: "automation is not active",
    });
    const lacking = await create({ status: "active", config: { cron: "0 9 * * 1" } });
    const problem = await member.api.post(`${automations()}/${lacking.id}/run`, {});
    expect({ status: problem.status, body: problem.body }).toEqual({
      status: 409,
      body: { error: "config.message: required (or staff_prompt, or task)" },
    });
    const bySa = await staff.api.post(`${automations()}/${draft.id}/run`);
    expect({ status: bySa.status, body: bySa.body }).toEqual({
      status: 403,
      body: { error: "only a person can run an automation" },
    });
    const byViewer = await viewer.api.post(`${automations()}/${draft.id}/run`);
    expect({ status: byViewer.status, body: byViewer.body }).toEqual({
      status: 403,
      body: { error: "missing permission: files.write" },
    });
  });
});

describe("a social post", () => {
  const post = (config: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    create({
      kind: "social_post",
      status: "active",
      oauth_token: "oauth-secret-token",
      config: { endpoint: `${social.origin}/2/tweets`, ...config },
      ...extra,
    });

  it("posts the text with the stored token on Run now: succeeded with {status, id}", async () => {
    social.handle(() => Response.json({ data: { id: "1850", text: "Launched!" } }, { status: 201 }));
    const a = await post({});
    const res = await member.api.post(`${automations()}/${a.id}/run`, { text: "Launched!" });
    expect(res.status).toBe(202);
    const [run] = await finished(a.id, 1);
    expect(run).toMatchObject({ status: "succeeded", attempt: 1, output: { status: 201, id: "1850" } });
    const sent = social.to("/2/tweets").at(-1);
    expect(sent?.headers.authorization).toBe("Bearer oauth-secret-token");
    expect(sent?.body).toEqual({ text: "Launched!" });
    expect(JSON.stringify(await runs(a.id))).not.toContain("oauth-secret-token");
  });

  it("tries a 503 again as the same run, attempt counting, and honours Retry-After", async () => {
    let calls = 0;
    social.handle(() => {
      calls++;
      if (calls === 1) return new Response("busy", { status: 503 });
      if (calls === 2) return new Response("slow down", { status: 429, headers: { "retry-after": "1" } });
      return Response.json({ data: { id: "77" } });
    });
    const a = await post({ text: "Weekly update" });
    await member.api.post(`${automations()}/${a.id}/run`);
    const [run] = await finished(a.id, 1);
    expect(run).toMatchObject({ status: "succeeded", attempt: 3, output: { status: 200, id: "77" } });
    expect(calls).toBe(3);
  });

  it("a refused post says why, at once, without trying again", async () => {
    let calls = 0;
    social.handle(() => {
      calls++;
      return Response.json(
        { title: "Forbidden", detail: "You are not allowed to create a Tweet with duplicate content." },
        { status: 403 },
      );
    });
    const a = await post({ text: "Same again" });
    await member.api.post(`${automations()}/${a.id}/run`);
    const [run] = await finished(a.id, 1);
    expect(run).toMatchObject({
      status: "failed",
      attempt: 1,
      output: null,
      error: "the social network refused the post (403: You are not allowed to create a Tweet with duplicate content.)",
    });
    expect(calls).toBe(1);
    const now = (await member.api.get(`${automations()}/${a.id}`)).body.automation;
    expect(now.last_error).toBe(run.error);
  });

  it("fails after three attempts of 5xx", async () => {
    social.handle(() => new Response("down", { status: 502 }));
    const a = await post({ text: "x" });
    await member.api.post(`${automations()}/${a.id}/run`);
    const [run] = await finished(a.id, 1);
    expect(run).toMatchObject({ status: "failed", attempt: 3, error: "the social network refused the post (502)" });
  });

  it("needs its text: a Run now without one where the config has none is a 409 saying so", async () => {
    const a = await post({ cron: "0 9 * * 1" });
    expect(a.config_problem).toBe("config.text: required");
    const res = await member.api.post(`${automations()}/${a.id}/run`);
    expect({ status: res.status, body: res.body }).toEqual({ status: 409, body: { error: "config.text: required" } });
  });
});

describe("GET .../automations/{id}/runs", () => {
  it("lists newest first, pages with limit and before, and needs files.read", async () => {
    const a = await create({ status: "active", config: { cron: "0 9 1 1 *", channel: "general", message: "p" } });
    // Asked at once, so several are queued within one millisecond: paging by `before` must still lose none.
    await Promise.all(Array.from({ length: 6 }, () => member.api.post(`${automations()}/${a.id}/run`)));
    const all = await finished(a.id, 6);
    expect(new Set(all.map((r) => r.created_at)).size).toBe(6);
    expect(all.map((r) => r.created_at)).toEqual([...all.map((r) => r.created_at)].sort().reverse());
    const page = await member.api.get(`${automations()}/${a.id}/runs?limit=2`);
    expect(page.body.runs.map((r: { id: string }) => r.id)).toEqual(all.slice(0, 2).map((r) => r.id));
    const walked: string[] = [];
    for (let before = ""; ; ) {
      const res = await member.api.get(`${automations()}/${a.id}/runs?limit=2${before}`);
      if (res.body.runs.length === 0) break;
      walked.push(...res.body.runs.map((r: { id: string }) => r.id));
      before = `&before=${encodeURIComponent(res.body.runs.at(-1).created_at)}`;
    }
    expect(walked).toEqual(all.map((r) => r.id));
    expect((await viewer.api.get(`${automations()}/${a.id}/runs`)).status).toBe(200);
    const none = await member.api.get(`${automations()}/01a1fdb9-0000-7000-8000-0000000000aa/runs`);
    expect({ status: none.status, body: none.body }).toEqual({ status: 404, body: { error: "automation not found" } });
  });
});

describe("a staff member's proposal", () => {
  it("does not run while it waits for a person; once approved, it runs like any other, for the person who approved it", async () => {
    const proposed = await staff.api.post(automations(), {
      name: "Stand-up reminder",
      kind: "scheduled",
      description: "A daily nudge",
      config: { cron: "* * * * * *", channel: "general", message: "Proposed and approved" },
    });
    expect(proposed.status).toBe(201);
    const a = proposed.body.automation;
    expect(a).toMatchObject({ status: "pending_approval", config_problem: null, next_run_at: null });
    await Bun.sleep(1500);
    expect(await runs(a.id)).toEqual([]);
    const approved = await org.owner.api.post(`${automations()}/${a.id}/approve`);
    expect(approved.body.automation.next_run_at).not.toBeNull();
    const [run] = await finished(a.id, 1);
    await member.api.patch(`${automations()}/${a.id}`, { status: "paused" });
    expect(run).toMatchObject({ trigger: "schedule", status: "succeeded" });
    const posted = (await roomMessages()).find((m) => m.id === run.output.message_id);
    expect(posted).toMatchObject({ author_user_id: null, automation_id: a.id, content: "Proposed and approved" });
  });
});
