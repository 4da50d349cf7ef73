/**
 * `agent` staff end to end (docs/api.md "AI staff replies" › "`agent` runs" and "Retries"; contract §6-7;
 * api-spec §5.7 and §8): a mention or an assigned task launches a cloud-agent run at
 * `{AGENT_AGENTS_BASE_URL or AGENT_API_BASE_URL}/v0/agents`, the staff member links it, polls it until a final
 * status and posts the assistant's text. Every `/v0/agents` call uses Basic auth (key as user name, empty
 * password) whatever `AGENT_HTTP_AUTH` says; the local bridge (an extension) answers through an
 * OpenAI-compatible completions path authenticated as `AGENT_HTTP_AUTH` says. The agent service is a loopback
 * fake; nothing of Tandem is stubbed.
 */

import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { ACTIVITY_KEYS } from "../helpers/activity";
import { addStaff, type Org, setupOrg } from "../helpers/factories";
import {
  completion,
  type FakeHandler,
  type FakeProvider,
  type SeenRequest,
  startFakeProvider,
} from "../helpers/fake-providers";
import { UUID } from "../helpers/http";
import { startTestServer, type TestServer } from "../helpers/server";
import { eventually, type Listener, type LiveEvent, listen } from "../helpers/sockets";

const KEY = "agent-key-7f3a9c";
const BASIC = `Basic ${Buffer.from(`${KEY}:`).toString("base64")}`;
const RUN = "bc_123";
const RUN_URL = "https://agents.example/bc_123";
const LAUNCH = "POST /v0/agents";
const POLL = `GET /v0/agents/${RUN}`;
const CONVERSATION = `GET /v0/agents/${RUN}/conversation`;
const ANSWER = "Part one\n\nPart two";
const SORRY = "Sorry, I couldn't answer:";
const REPO = "https://git.example.com/acme/app.git";
const REPO_ONLY = "https://git.example.com/acme/lib.git";
const LINKED_REPO = "https://git.example.com/acme/linked.git";
const LINKED_NO_REF = "https://git.example.com/acme/bare.git";

type Staff = Awaited<ReturnType<typeof addStaff>>;
interface Message {
  id: string;
  author_user_id: string;
  content: string;
  created_at: string;
}

/** A fake cloud-agent service: launches `bc_123`, answers RUNNING `running` times (or until released). */
class CloudAgent {
  launches = 0;
  polls = 0;
  /** When set, polls answer RUNNING until `finish` is called. */
  private held = false;
  private final: string;
  constructor(
    private readonly options: {
      running?: number;
      final?: string;
      hold?: boolean;
      /** Statuses of the first launch answers (then 200). */
      launchFailures?: number[];
      /** Every poll answers this status. */
      pollStatus?: number;
    } = {},
  ) {
    this.held = options.hold ?? false;
    this.final = options.final ?? "FINISHED";
  }

  finish(status = "FINISHED") {
    this.final = status;
    this.held = false;
    this.options.running = 0;
  }

  readonly handler: FakeHandler = (req) => {
    if (req.method === "POST" && req.path === "/v0/agents") {
      this.launches++;
      const failure = this.options.launchFailures?.[this.launches - 1];
      if (failure) return Response.json({ error: "busy" }, { status: failure });
      return Response.json({ id: RUN, status: "CREATING", target: { url: RUN_URL } });
    }
    if (req.method === "GET" && req.path === `/v0/agents/${RUN}`) {
      this.polls++;
      if (this.options.pollStatus) return Response.json({ error: "boom" }, { status: this.options.pollStatus });
      const running = this.held || this.polls <= (this.options.running ?? 2);
      return Response.json({ id: RUN, status: running ? "RUNNING" : this.final });
    }
    if (req.method === "GET" && req.path === `/v0/agents/${RUN}/conversation`) {
      return Response.json({
        id: RUN,
        messages: [
          { id: "m1", type: "user_message", text: "the prompt" },
          { id: "m2", type: "assistant_message", text: "Part one" },
          { id: "m3", type: "assistant_message", text: "Part two" },
        ],
      });
    }
    return Response.json({ error: "not found" }, { status: 404 });
  };
}

const line = (r: SeenRequest) => `${r.method} ${r.path}`;

/** A server over loopback fakes, its organization with the agent key set, a space, and a live-events socket. */
interface Harness {
  server: TestServer;
  fake: FakeProvider;
  org: Org;
  base: string;
  spaceId: string;
  rooms: string;
  events: Listener;
  stop(): Promise<void>;
}

async function harness(env: (fake: FakeProvider) => Record<string, string>): Promise<Harness> {
  const fake = startFakeProvider();
  const server = await startTestServer({ env: env(fake), jobs: { reply: { timeScale: 0.01 } } });
  const org = await setupOrg(server);
  const base = `/api/v1/organizations/${org.id}`;
  const key = await org.owner.api.put(`${base}/integrations/agent`, { api_key: KEY });
  if (key.status !== 200) throw new Error(`key put failed: ${key.status} ${key.text}`);
  const space = await newSpace({ org, base });
  const events = await listen(server.url, org.id, org.owner.token);
  return {
    server,
    fake,
    org,
    base,
    spaceId: space,
    rooms: `${base}/spaces/${space}/chat-rooms`,
    events,
    async stop() {
      events.close();
      await server.stop();
      fake.stop();
    },
  };
}

async function newSpace(h: Pick<Harness, "org" | "base">): Promise<string> {
  const res = await h.org.owner.api.post(`${h.base}/spaces`, { name: `Space ${crypto.randomUUID().slice(0, 8)}` });
  if (res.status !== 201) throw new Error(`space create failed: ${res.status} ${res.text}`);
  return res.body.id;
}

async function agentStaff(h: Harness, name: string, extra: Record<string, unknown> = {}): Promise<Staff> {
  const staff = await addStaff(h.org, { name, provider: "agent", ...extra });
  expect(staff.account.provider).toBe("agent");
  return staff;
}

/** A fresh room in `spaceId`; answers its id and messages path. */
async function newRoom(h: Harness, spaceId = h.spaceId): Promise<{ id: string; messages: string }> {
  const rooms = `${h.base}/spaces/${spaceId}/chat-rooms`;
  const res = await h.org.owner.api.post(rooms, { name: `room ${crypto.randomUUID().slice(0, 8)}` });
  if (res.status !== 201) throw new Error(`room create failed: ${res.status} ${res.text}`);
  return { id: res.body.id, messages: `${rooms}/${res.body.id}/messages` };
}

/** Starts recording afresh; the fake answers with `handler`. */
function reset(h: Harness, handler: FakeHandler) {
  h.fake.requests.length = 0;
  h.fake.handle(handler);
}

/** Posts `content` as the owner in a fresh room; answers the room and the message. */
async function ask(h: Harness, content: string, spaceId = h.spaceId) {
  const room = await newRoom(h, spaceId);
  const res = await h.org.owner.api.post(room.messages, { content });
  expect(res.status).toBe(201);
  return { room, message: res.body.message as Message };
}

/** The messages of `staff` in a room, oldest first. */
async function staffMessages(h: Harness, messages: string, staff: Staff): Promise<Message[]> {
  const res = await h.org.owner.api.get(`${messages}?limit=100`);
  expect(res.status).toBe(200);
  return (res.body.messages as Message[]).filter((m) => m.author_user_id === staff.account.user_id);
}

/** Waits for the end event of the reply to `sourceMessageId` (or of `taskId`), then answers it. */
async function ended(h: Harness, match: { source?: string; task?: string }): Promise<LiveEvent> {
  const isEnd = (e: LiveEvent) =>
    (e.type === "ai.reply.finished" || e.type === "ai.reply.failed") &&
    (match.source ? e.payload.source_message_id === match.source : e.payload.task_id === match.task);
  return h.events.next(isEnd, 5000);
}

/** Asks `staff` and waits for the end of its reply; answers the staff messages and the end event. */
async function askAndWait(h: Harness, staff: Staff, text: string, spaceId = h.spaceId) {
  const { room, message } = await ask(h, `@${staff.account.name} ${text}`, spaceId);
  const event = await ended(h, { source: message.id });
  return { room, message, event, replies: await staffMessages(h, room.messages, staff) };
}

const authOf = (requests: SeenRequest[]) => [...new Set(requests.map((r) => r.headers.authorization))];

describe("cloud-agent runs (AGENT_HTTP_AUTH default, bearer)", () => {
  let h: Harness;
  let cody: Staff;
  let remy: Staff;
  let gita: Staff;

  beforeAll(async () => {
    h = await harness((fake) => ({ AGENT_API_BASE_URL: fake.origin }));
    cody = await agentStaff(h, "Cody", { agent_default_repo_url: REPO, agent_default_ref: "main" });
    remy = await agentStaff(h, "Remy", { agent_default_repo_url: REPO_ONLY });
    gita = await agentStaff(h, "Gita");
  });
  afterAll(() => h.stop());

  it("a mention: 💭 at once, a message linking the run, then after FINISHED the assistant's texts", async () => {
    const agent = new CloudAgent({ hold: true });
    reset(h, agent.handler);
    const { room, message } = await ask(h, "@Cody what does the build script do?");
    const listing = await h.org.owner.api.get(room.messages);
    expect(listing.body.reactions).toEqual([
      { message_id: message.id, user_id: cody.account.user_id, emoji: "💭", created_at: expect.any(String) },
    ]);

    // The run is linked while it is still running.
    await eventually(() => agent.polls >= 2, "the run to be polled");
    const linked = await staffMessages(h, room.messages, cody);
    expect(linked).toHaveLength(1);
    expect(linked[0]?.content).toContain(RUN_URL);
    expect(
      h.events.events.some((e) => e.type === "ai.reply.finished" && e.payload.source_message_id === message.id),
    ).toBe(false);

    agent.finish();
    const event = await ended(h, { source: message.id });
    const replies = await staffMessages(h, room.messages, cody);
    expect(replies).toHaveLength(2);
    expect(replies[0]).toEqual(linked[0] as Message);
    expect(replies[1]?.content).toBe(ANSWER);
    expect(event.type).toBe("ai.reply.finished");
    expect(event.space_id).toBe(h.spaceId);
    expect(event.payload).toEqual({
      job_id: expect.stringMatching(UUID),
      staff_user_id: cody.account.user_id,
      chat_room_id: room.id,
      source_message_id: message.id,
      reply_message_id: replies[1]?.id,
      error: null,
      task_id: null,
      asked_by_user_id: h.org.owner.id,
    });
    const started = h.events.events.findIndex(
      (e) => e.type === "ai.reply.started" && e.payload.job_id === event.payload.job_id,
    );
    expect(started).toBeGreaterThanOrEqual(0);
    expect(started).toBeLessThan(h.events.events.indexOf(event));
  });

  it("sends exactly: one Basic-auth launch with the account's repo and ref, polls until FINISHED, reads the conversation once", async () => {
    const agent = new CloudAgent({ running: 3 });
    reset(h, agent.handler);
    const { message, replies } = await askAndWait(h, cody, "summarise the README please");
    expect(replies.map((m) => m.content)).toEqual([expect.stringContaining(RUN_URL), ANSWER]);

    const requests = h.fake.requests;
    expect(requests.map(line)).toEqual([LAUNCH, POLL, POLL, POLL, POLL, CONVERSATION]);
    expect(authOf(requests)).toEqual([BASIC]);
    const launch = requests[0] as SeenRequest;
    expect(launch.headers["content-type"]).toContain("application/json");
    expect(launch.body).toEqual({
      prompt: { text: expect.stringContaining(message.content) },
      source: { repository: REPO, ref: "main" },
    });
    for (const r of requests.slice(1)) expect(r.body).toBeUndefined();
  });

  it("gives the cloud agent what it may read in the prompt (recent chat, the files), and no tools it cannot call", async () => {
    reset(h, new CloudAgent().handler);
    const { message } = await askAndWait(h, cody, "what do we have so far?");
    const text: string = h.fake.to("/v0/agents")[0]?.body.prompt.text ?? "";
    expect(text).toContain("Recent conversation:");
    expect(text).toContain("Files of the space:");
    expect(text).toContain(message.content);
    expect(text).not.toContain("propose_file_patch");
  });

  it("starts the run's prompt with the staff member's instructions", async () => {
    const instructions = "You are our release manager; answer briefly.";
    const rita = await agentStaff(h, "Rita", { agent_default_repo_url: REPO, instructions });
    reset(h, new CloudAgent().handler);
    const { message } = await askAndWait(h, rita, "what ships next?");
    const text: string = h.fake.to("/v0/agents")[0]?.body.prompt.text ?? "";
    expect(text.startsWith(`${instructions}\n\nYou are Rita, an AI staff member`)).toBe(true);
    expect(text).toContain(message.content);
  });

  it("an account with only a repository sends source {repository} with no ref", async () => {
    reset(h, new CloudAgent().handler);
    const { message, replies } = await askAndWait(h, remy, "what changed lately?");
    expect(replies.map((m) => m.content)).toEqual([expect.stringContaining(RUN_URL), ANSWER]);
    const launches = h.fake.to("/v0/agents");
    expect(launches).toHaveLength(1);
    expect(launches[0]?.body).toEqual({
      prompt: { text: expect.stringContaining(message.content) },
      source: { repository: REPO_ONLY },
    });
    expect(authOf(h.fake.requests)).toEqual([BASIC]);
  });

  it("an account repository wins over the space's git link", async () => {
    const linked = await newSpace(h);
    const put = await h.org.owner.api.put(`${h.base}/spaces/${linked}/git-link`, {
      repo_url: LINKED_REPO,
      ref: "develop",
    });
    expect(put.status).toBe(200);
    reset(h, new CloudAgent().handler);
    await askAndWait(h, cody, "check the tests", linked);
    expect(h.fake.to("/v0/agents")[0]?.body.source).toEqual({ repository: REPO, ref: "main" });
  });

  it("without an account repository the space's git link (repo and ref) is the source", async () => {
    const linked = await newSpace(h);
    const put = await h.org.owner.api.put(`${h.base}/spaces/${linked}/git-link`, {
      repo_url: LINKED_REPO,
      ref: "develop",
    });
    expect(put.status).toBe(200);
    reset(h, new CloudAgent().handler);
    const { message, replies } = await askAndWait(h, gita, "check the tests", linked);
    expect(replies.map((m) => m.content)).toEqual([expect.stringContaining(RUN_URL), ANSWER]);
    expect(h.fake.to("/v0/agents")[0]?.body).toEqual({
      prompt: { text: expect.stringContaining(message.content) },
      source: { repository: LINKED_REPO, ref: "develop" },
    });
  });

  it("a git link without a ref sends source {repository} only", async () => {
    const linked = await newSpace(h);
    const put = await h.org.owner.api.put(`${h.base}/spaces/${linked}/git-link`, { repo_url: LINKED_NO_REF });
    expect(put.status).toBe(200);
    expect(put.body.git_link.ref).toBe("");
    reset(h, new CloudAgent().handler);
    await askAndWait(h, gita, "check the tests", linked);
    expect(h.fake.to("/v0/agents")[0]?.body.source).toEqual({ repository: LINKED_NO_REF });
  });

  it("with neither an account repository nor a git link the launch has no source", async () => {
    reset(h, new CloudAgent().handler);
    const { message, replies } = await askAndWait(h, gita, "any ideas for the roadmap?");
    expect(replies.map((m) => m.content)).toEqual([expect.stringContaining(RUN_URL), ANSWER]);
    const body = h.fake.to("/v0/agents")[0]?.body;
    expect(body).toEqual({ prompt: { text: expect.stringContaining(message.content) } });
    expect(Object.keys(body)).toEqual(["prompt"]);
  });

  for (const status of ["ERROR", "EXPIRED", "CANCELLED"]) {
    it(`a run ending ${status}: one failure reply naming the status and ai.reply.failed`, async () => {
      const agent = new CloudAgent({ running: 1, final: status });
      reset(h, agent.handler);
      const { room, message, event, replies } = await askAndWait(h, cody, "fix the flaky test");
      expect(replies).toHaveLength(2);
      expect(replies[0]?.content).toContain(RUN_URL);
      const failure = replies[1] as Message;
      expect(failure.content.startsWith(SORRY)).toBe(true);
      expect(failure.content).toContain(status);
      expect(failure.content.endsWith(".")).toBe(true);
      expect(h.fake.requests.map(line)).toEqual([LAUNCH, POLL, POLL]);
      expect(event.type).toBe("ai.reply.failed");
      expect(event.payload).toEqual({
        job_id: expect.stringMatching(UUID),
        staff_user_id: cody.account.user_id,
        chat_room_id: room.id,
        source_message_id: message.id,
        reply_message_id: failure.id,
        error: expect.stringContaining(status),
        task_id: null,
        asked_by_user_id: h.org.owner.id,
      });
    });
  }

  it("a launch answering 503 then 200 is retried: one run, linked once, answered once", async () => {
    const agent = new CloudAgent({ launchFailures: [503] });
    reset(h, agent.handler);
    const { event, replies } = await askAndWait(h, cody, "retry me");
    expect(event.type).toBe("ai.reply.finished");
    expect(h.fake.requests.map(line)).toEqual([LAUNCH, LAUNCH, POLL, POLL, POLL, CONVERSATION]);
    expect(authOf(h.fake.requests)).toEqual([BASIC]);
    expect(replies).toHaveLength(2);
    expect(replies.filter((m) => m.content.includes(RUN_URL))).toHaveLength(1);
    expect(replies[1]?.content).toBe(ANSWER);
  });

  it("a launch answering 429 with Retry-After: 0 is retried too", async () => {
    let launches = 0;
    const agent = new CloudAgent();
    reset(h, (req, nth) => {
      if (line(req) === LAUNCH && ++launches === 1)
        return Response.json({ error: "slow down" }, { status: 429, headers: { "retry-after": "0" } });
      return agent.handler(req, nth);
    });
    const { replies } = await askAndWait(h, cody, "again please");
    expect(h.fake.to("/v0/agents")).toHaveLength(2);
    expect(replies.map((m) => m.content)).toEqual([expect.stringContaining(RUN_URL), ANSWER]);
  });

  it("a launch answering 401 is final: one attempt, no link, one failure reply", async () => {
    reset(h, () => Response.json({ error: "invalid key" }, { status: 401 }));
    const { event, replies } = await askAndWait(h, cody, "hello?");
    expect(h.fake.requests.map(line)).toEqual([LAUNCH]);
    expect(replies).toHaveLength(1);
    expect(replies[0]?.content.startsWith(SORRY)).toBe(true);
    expect(replies[0]?.content).toContain("401");
    expect(event.type).toBe("ai.reply.failed");
  });

  it("a refusal echoing the Basic credential shows none of it: not the header, the key or its base64", async () => {
    reset(h, (req) =>
      Response.json({ error: `no run for ${req.headers.authorization} (${KEY}) ${btoa(`${KEY}:`)}` }, { status: 403 }),
    );
    const { replies } = await askAndWait(h, cody, "hello?");
    expect(replies.map((r) => r.content)).toEqual([
      `${SORRY} the agent service answered 403: no run for **** (****) ****.`,
    ]);
  });

  it("a poll answering 500 every time: 5 attempts, then one failure reply", async () => {
    const agent = new CloudAgent({ pollStatus: 500 });
    reset(h, agent.handler);
    const { event, replies } = await askAndWait(h, cody, "poll forever");
    expect(h.fake.requests.map(line)).toEqual([LAUNCH, POLL, POLL, POLL, POLL, POLL]);
    expect(authOf(h.fake.requests)).toEqual([BASIC]);
    expect(replies).toHaveLength(2);
    expect(replies[0]?.content).toContain(RUN_URL);
    expect(replies[1]?.content.startsWith(SORRY)).toBe(true);
    expect(replies[1]?.content).toContain("500");
    expect(event.type).toBe("ai.reply.failed");
    expect(event.payload.reply_message_id).toBe(replies[1]?.id);
  });

  it("without an agent key: one failure reply that takes the 💭 back, and no request to the agent service", async () => {
    const del = await h.org.owner.api.delete(`${h.base}/integrations/agent`);
    expect(del.status).toBe(204);
    try {
      reset(h, new CloudAgent().handler);
      const { room, message, event, replies } = await askAndWait(h, cody, "are you there?");
      expect(replies).toHaveLength(1);
      expect(replies[0]?.content.startsWith(SORRY)).toBe(true);
      expect(event.type).toBe("ai.reply.failed");
      expect(event.payload.reply_message_id).toBe(replies[0]?.id);
      const listing = await h.org.owner.api.get(room.messages);
      expect(listing.body.reactions.filter((r: { message_id: string }) => r.message_id === message.id)).toEqual([]);
      const removed = h.events.events.filter(
        (e) => e.type === "chat.reaction.removed" && e.payload.message_id === message.id,
      );
      expect(removed.map((e) => [e.payload.user_id, e.payload.emoji])).toEqual([[cody.account.user_id, "💭"]]);
      expect(h.fake.requests).toEqual([]);
    } finally {
      const put = await h.org.owner.api.put(`${h.base}/integrations/agent`, { api_key: KEY });
      expect(put.status).toBe(200);
    }
  });

  it("a task assigned to agent staff: the link and the result land in the task's messages", async () => {
    reset(h, new CloudAgent().handler);
    const space = `${h.base}/spaces/${h.spaceId}`;
    const board = await h.org.owner.api.get(`${space}/board`);
    expect(board.status).toBe(200);
    const task = await h.org.owner.api.post(`${space}/tasks`, {
      title: "Upgrade the bundler",
      description: "Move to the next major version.",
      column_id: board.body.columns[0].id,
      assignee_user_id: cody.account.user_id,
    });
    expect(task.status).toBe(201);
    const event = await ended(h, { task: task.body.id });
    expect(event.type).toBe("ai.reply.finished");
    const listed = await h.org.owner.api.get(`${space}/tasks/${task.body.id}/messages`);
    expect(listed.status).toBe(200);
    const mine = (listed.body.messages as Message[]).filter((m) => m.author_user_id === cody.account.user_id);
    expect(mine.map((m) => m.content)).toEqual([expect.stringContaining(RUN_URL), ANSWER]);
    expect(event.payload).toEqual({
      job_id: expect.stringMatching(UUID),
      staff_user_id: cody.account.user_id,
      chat_room_id: null,
      source_message_id: null,
      reply_message_id: mine[1]?.id,
      error: null,
      task_id: task.body.id,
      asked_by_user_id: h.org.owner.id,
    });
    const launch = h.fake.to("/v0/agents");
    expect(launch).toHaveLength(1);
    expect(launch[0]?.body.prompt.text).toContain("Upgrade the bundler");
    expect(launch[0]?.body.prompt.text).toContain("Move to the next major version.");
    expect(launch[0]?.body.source).toEqual({ repository: REPO, ref: "main" });
    expect(authOf(h.fake.requests)).toEqual([BASIC]);
  });

  it("staff-activity shows the run: provider agent, status done, one cloud_agent_run tool call", async () => {
    reset(h, new CloudAgent().handler);
    const { room, message, event, replies } = await askAndWait(h, cody, "log this run");
    const res = await h.org.owner.api.get(`${h.base}/staff-activity?staff_user_id=${cody.account.user_id}`);
    expect(res.status).toBe(200);
    const entry = res.body.activity.find((a: { job_id: string }) => a.job_id === event.payload.job_id);
    expect(entry).toBeDefined();
    expect(Object.keys(entry).sort()).toEqual(ACTIVITY_KEYS);
    expect(entry).toMatchObject({
      organization_id: h.org.id,
      space_id: h.spaceId,
      staff_user_id: cody.account.user_id,
      trigger: "chat",
      chat_room_id: room.id,
      task_id: null,
      source_message_id: message.id,
      reply_message_id: replies[1]?.id,
      provider: "agent",
      status: "done",
      error: null,
    });
    expect(entry.tool_calls).toHaveLength(1);
    expect(Object.keys(entry.tool_calls[0]).sort()).toEqual(["arguments", "duration_ms", "error", "name", "result"]);
    expect(entry.tool_calls[0]).toMatchObject({ name: "cloud_agent_run", error: null });
    expect(entry.finished_at).not.toBeNull();
  });

  it("staff-activity shows a failed run as failed, with its error", async () => {
    reset(h, new CloudAgent({ running: 0, final: "ERROR" }).handler);
    const { event } = await askAndWait(h, cody, "fail for the log");
    const res = await h.org.owner.api.get(`${h.base}/staff-activity?staff_user_id=${cody.account.user_id}`);
    const entry = res.body.activity.find((a: { job_id: string }) => a.job_id === event.payload.job_id);
    expect(entry).toMatchObject({ provider: "agent", status: "failed", error: expect.stringContaining("ERROR") });
    // The run was launched and linked: it shows as the staff member's one tool call, with how it ended.
    expect(entry.tool_calls).toEqual([
      {
        name: "cloud_agent_run",
        arguments: expect.any(String),
        result: "ERROR",
        duration_ms: expect.any(Number),
        error: "the agent run ended with status ERROR",
      },
    ]);
  });
});

describe("cloud-agent runs with AGENT_HTTP_AUTH=basic", () => {
  let h: Harness;
  let cody: Staff;

  beforeAll(async () => {
    h = await harness((fake) => ({ AGENT_API_BASE_URL: fake.origin, AGENT_HTTP_AUTH: "basic" }));
    cody = await agentStaff(h, "Cody");
  });
  afterAll(() => h.stop());

  it("every /v0/agents call still uses Basic auth with the key as user name", async () => {
    reset(h, new CloudAgent().handler);
    const { replies } = await askAndWait(h, cody, "hello there");
    expect(replies.map((m) => m.content)).toEqual([expect.stringContaining(RUN_URL), ANSWER]);
    expect(h.fake.requests.map(line)).toEqual([LAUNCH, POLL, POLL, POLL, CONVERSATION]);
    expect(authOf(h.fake.requests)).toEqual([BASIC]);
  });
});

describe("cloud-agent runs with AGENT_AGENTS_BASE_URL", () => {
  let h: Harness;
  let agents: FakeProvider;
  let cody: Staff;

  beforeAll(async () => {
    agents = startFakeProvider();
    h = await harness((fake) => ({
      AGENT_API_BASE_URL: fake.origin,
      AGENT_AGENTS_BASE_URL: agents.origin,
      AGENT_HTTP_AUTH: "bearer",
    }));
    cody = await agentStaff(h, "Cody");
  });
  afterAll(async () => {
    await h.stop();
    agents.stop();
  });

  it("sends every /v0 call to the agents origin, Basic-authenticated, and none to AGENT_API_BASE_URL", async () => {
    reset(h, new CloudAgent().handler);
    agents.requests.length = 0;
    agents.handle(new CloudAgent().handler);
    const { message, replies } = await askAndWait(h, cody, "where do you run?");
    expect(replies.map((m) => m.content)).toEqual([expect.stringContaining(RUN_URL), ANSWER]);
    expect(agents.requests.map(line)).toEqual([LAUNCH, POLL, POLL, POLL, CONVERSATION]);
    expect(authOf(agents.requests)).toEqual([BASIC]);
    expect(agents.requests[0]?.body).toEqual({ prompt: { text: expect.stringContaining(message.content) } });
    expect(h.fake.requests).toEqual([]);
  });
});

describe("local bridge (AGENT_LOCAL_BRIDGE=true), default path, model and auth", () => {
  let h: Harness;
  let agents: FakeProvider;
  let cody: Staff;

  beforeAll(async () => {
    agents = startFakeProvider();
    h = await harness((fake) => ({
      AGENT_LOCAL_BRIDGE: "true",
      AGENT_API_BASE_URL: fake.origin,
      AGENT_AGENTS_BASE_URL: agents.origin,
    }));
    cody = await agentStaff(h, "Cody", { agent_default_repo_url: REPO, agent_default_ref: "main" });
  });
  afterAll(async () => {
    await h.stop();
    agents.stop();
  });

  it("answers from POST /v1/chat/completions {model: auto, messages} with Bearer auth, and no /v0 call", async () => {
    reset(h, () => completion("Bridged answer"));
    agents.handle(new CloudAgent().handler);
    const { message, event, replies } = await askAndWait(h, cody, "bridge this");
    expect(event.type).toBe("ai.reply.finished");
    expect(replies.map((m) => m.content)).toEqual(["Bridged answer"]);
    expect(event.payload.reply_message_id).toBe(replies[0]?.id);
    expect(h.fake.requests.map(line)).toEqual(["POST /v1/chat/completions"]);
    const call = h.fake.requests[0] as SeenRequest;
    expect(call.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(Object.keys(call.body).sort()).toEqual(["messages", "model"]);
    expect(call.body.model).toBe("auto");
    expect(call.body.messages.length).toBeGreaterThan(0);
    expect(call.body.messages.at(-1)).toEqual({ role: "user", content: expect.stringContaining(message.content) });
    expect(agents.requests).toEqual([]);
    expect(h.fake.requests.filter((r) => r.path.startsWith("/v0"))).toEqual([]);
  });

  it("starts the bridge's system message with the staff member's instructions", async () => {
    const rita = await agentStaff(h, "Rita", { instructions: "Answer in French." });
    reset(h, () => completion("Bien sûr"));
    await askAndWait(h, rita, "bridge this too");
    const call = h.fake.requests[0] as SeenRequest;
    expect(call.body.messages[0].role).toBe("system");
    expect(call.body.messages[0].content).toStartWith("Answer in French.\n\nYou are Rita, an AI staff member");
  });

  it("a bridge answering 500 every time: 5 attempts, then one failure reply", async () => {
    reset(h, () => Response.json({ error: "down" }, { status: 500 }));
    const { event, replies } = await askAndWait(h, cody, "are you up?");
    expect(h.fake.requests.map(line)).toEqual(Array(5).fill("POST /v1/chat/completions"));
    expect(replies).toHaveLength(1);
    expect(replies[0]?.content.startsWith(SORRY)).toBe(true);
    expect(event.type).toBe("ai.reply.failed");
  });
});

describe("local bridge with AGENT_HTTP_AUTH=basic and a custom path and model", () => {
  let h: Harness;
  let cody: Staff;

  beforeAll(async () => {
    h = await harness((fake) => ({
      AGENT_LOCAL_BRIDGE: "true",
      AGENT_API_BASE_URL: fake.origin,
      AGENT_HTTP_AUTH: "basic",
      AGENT_CHAT_COMPLETIONS_PATH: "/bridge/complete",
      AGENT_COMPLETION_MODEL: "local-coder",
    }));
    cody = await agentStaff(h, "Cody");
  });
  afterAll(() => h.stop());

  it("posts to the custom path with the custom model and Basic auth", async () => {
    reset(h, () => completion("Custom bridge"));
    const { message, replies } = await askAndWait(h, cody, "custom please");
    expect(replies.map((m) => m.content)).toEqual(["Custom bridge"]);
    expect(h.fake.requests.map(line)).toEqual(["POST /bridge/complete"]);
    const call = h.fake.requests[0] as SeenRequest;
    expect(call.headers.authorization).toBe(BASIC);
    expect(call.body.model).toBe("local-coder");
    expect(call.body.messages.at(-1)).toEqual({ role: "user", content: expect.stringContaining(message.content) });
  });

  it("staff-activity of a bridged reply: provider agent, status done, no tool call", async () => {
    reset(h, () => completion("Logged bridge"));
    const { event } = await askAndWait(h, cody, "log me");
    const res = await h.org.owner.api.get(`${h.base}/staff-activity?staff_user_id=${cody.account.user_id}`);
    const entry = res.body.activity.find((a: { job_id: string }) => a.job_id === event.payload.job_id);
    expect(entry).toMatchObject({ provider: "agent", status: "done", tool_calls: [] });
  });
});
