/**
 * AI staff replies through the model gateway (docs/api.md "AI staff replies"; contract §4 mention rows, §6, §7
 * provider retries and live-event payloads; api-spec §8 MODELROUTER_* settings), end to end: a person mentions
 * a `modelrouter` staff member (or assigns it a task), the server calls a loopback fake of an OpenAI-compatible
 * gateway, runs the function tools the fake asks for, and posts the answer as the staff member. Everything is
 * observed over HTTP and the live-events socket: the room listing, the fake's recorded requests, the activity log.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it } from "bun:test";
import { ACTIVITY_KEYS } from "../helpers/activity";
import { addMember, addStaff, type Org, type Person, setupOrg } from "../helpers/factories";
import {
  completion,
  type FakeHandler,
  type FakeProvider,
  type SeenRequest,
  startFakeProvider,
} from "../helpers/fake-providers";
import { type Client, TIMESTAMP, UUID } from "../helpers/http";
import { startTestServer, type TestServer } from "../helpers/server";
import { eventually, type Listener, type LiveEvent, listen } from "../helpers/sockets";

const DEFAULT_PATH = "/api/v1/chat/completions";
const DEFAULT_MODEL = "meta-llama/llama-3.3-70b-instruct:free";
const FUNCTION_TOOLS = [
  "read_recent_chat",
  "list_space_files",
  "read_space_file",
  "propose_file_patch",
  "propose_automation",
  "list_tasks",
  "read_task",
  "create_task",
  "move_task",
  "comment_task",
];
/** Where the function tools end in a request's `tools`: the gateway's own tools follow. */
const N = FUNCTION_TOOLS.length;
const WEB_SEARCH_DEFAULT = {
  type: "openrouter:web_search",
  parameters: { engine: "auto", max_results: 5, max_total_results: 15 },
};
const DATETIME = { type: "openrouter:datetime" };
const THINKING = "💭";
const FAILURE_PREFIX = "Sorry, I couldn't answer:";
const OWNER_NAME = "Olivia Owner";
const SPEC_TEXT = "# Launch spec\n\nSPEC-BODY-7f3a: the launch moves to Tuesday 14:00 UTC.\n";
const NOTES_TEXT = "NOTES-BODY-91c2: never shown unless named.\n";

type Staff = Awaited<ReturnType<typeof addStaff>>;

/** One server with its own organization, a key, a space and its `general` room, and a fake gateway. */
interface World {
  server: TestServer;
  fake: FakeProvider;
  org: Org;
  key: string;
  spaceId: string;
  roomId: string;
  stop(): Promise<void>;
}

/** The staff member a gateway request is for, from its system message ("You are Ada, ..."). */
function staffNameOf(req: SeenRequest): string {
  const system = req.body?.messages?.[0]?.content ?? "";
  return /You are (.+?), an AI staff member/.exec(system)?.[1] ?? "?";
}

/** The default gateway: answers each staff member with a recognisable text. */
const answerByName: FakeHandler = (req) => completion(`Answer from ${staffNameOf(req)}.`);

async function startWorld(
  env: Record<string, string> = {},
  reply: { timeScale?: number; contextTimeoutMs?: number } = {},
): Promise<World> {
  const fake = startFakeProvider(answerByName);
  const server = await startTestServer({
    env: { MODELROUTER_API_BASE_URL: `${fake.origin}/api/v1`, ...env },
    jobs: { reply: { timeScale: 0.001, ...reply } },
  });
  const org = await setupOrg(server);
  const key = `sk-or-v1-test-${crypto.randomUUID().replaceAll("-", "")}`;
  const put = await org.owner.api.put(`/api/v1/organizations/${org.id}/integrations/modelrouter`, { api_key: key });
  if (put.status !== 200) throw new Error(`key not set: ${put.status} ${put.text}`);
  const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Launch" });
  if (space.status !== 201) throw new Error(`space create failed: ${space.status} ${space.text}`);
  const rooms = await org.owner.api.get(`/api/v1/organizations/${org.id}/spaces/${space.body.id}/chat-rooms`);
  return {
    server,
    fake,
    org,
    key,
    spaceId: space.body.id,
    roomId: rooms.body.chat_rooms[0].id,
    async stop() {
      await server.stop();
      fake.stop();
    },
  };
}

// Paths and small actions

const spacePath = (w: World, spaceId = w.spaceId) => `/api/v1/organizations/${w.org.id}/spaces/${spaceId}`;
const messagesPath = (w: World, roomId = w.roomId, spaceId = w.spaceId) =>
  `${spacePath(w, spaceId)}/chat-rooms/${roomId}/messages`;

async function say(
  w: World,
  content: string,
  options: { as?: Client; roomId?: string; spaceId?: string } = {},
): Promise<any> {
  const api = options.as ?? w.org.owner.api;
  const res = await api.post(messagesPath(w, options.roomId, options.spaceId), { content });
  if (res.status !== 201) throw new Error(`post failed: ${res.status} ${res.text}`);
  return res.body.message;
}

async function listing(
  w: World,
  roomId = w.roomId,
  spaceId = w.spaceId,
): Promise<{ messages: any[]; reactions: any[] }> {
  const res = await w.org.owner.api.get(`${messagesPath(w, roomId, spaceId)}?limit=200`);
  if (res.status !== 200) throw new Error(`listing failed: ${res.status} ${res.text}`);
  return res.body;
}

async function newRoom(w: World, name: string, spaceId = w.spaceId): Promise<string> {
  const res = await w.org.owner.api.post(`${spacePath(w, spaceId)}/chat-rooms`, { name });
  if (res.status !== 201) throw new Error(`room create failed: ${res.status} ${res.text}`);
  return res.body.id;
}

async function textFile(w: World, name: string, content: string, parentId?: string): Promise<any> {
  const res = await w.org.owner.api.post(`${spacePath(w)}/files/text`, { name, content, parent_id: parentId });
  if (res.status !== 201) throw new Error(`file create failed: ${res.status} ${res.text}`);
  return res.body.node;
}

async function activity(w: World, query = "", as: Client = w.org.owner.api): Promise<any[]> {
  const sep = query ? "&" : "";
  const res = await as.get(`/api/v1/organizations/${w.org.id}/staff-activity?limit=200${sep}${query}`);
  if (res.status !== 200) throw new Error(`activity failed: ${res.status} ${res.text}`);
  return res.body.activity;
}

/** Polls an async probe until it answers something truthy. */
async function until<T>(probe: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

const finished = (entry: any) => entry.status === "done" || entry.status === "failed";

/** Waits until `count` reply jobs asked by `key=value` (source_message_id, task_id) have ended; returns them. */
async function settled(w: World, field: "source_message_id" | "task_id", id: string, count = 1): Promise<any[]> {
  return until(async () => {
    const rows = (await activity(w)).filter((a) => a[field] === id);
    return rows.length === count && rows.every(finished) ? rows : undefined;
  }, `${count} finished reply job(s) for ${field} ${id}`);
}

/** The activity rows (any status) of one source message, right now. */
async function jobsFor(w: World, sourceMessageId: string): Promise<any[]> {
  return (await activity(w)).filter((a) => a.source_message_id === sourceMessageId);
}

/** A gateway answer asking for tool calls with raw (possibly invalid) argument strings. */
function toolCallAnswer(calls: { id: string; name: string; rawArguments: string }[], usage = { p: 100, c: 20 }) {
  return Response.json({
    id: "gen-tools",
    choices: [
      {
        index: 0,
        finish_reason: "tool_calls",
        message: {
          role: "assistant",
          content: null,
          tool_calls: calls.map((c) => ({
            id: c.id,
            type: "function",
            function: { name: c.name, arguments: c.rawArguments },
          })),
        },
      },
    ],
    usage: { prompt_tokens: usage.p, completion_tokens: usage.c, total_tokens: usage.p + usage.c },
  });
}

/** A plain text answer with the given usage. */
function textAnswer(content: string, usage: { p: number; c: number }) {
  return Response.json({
    id: "gen-text",
    choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }],
    usage: { prompt_tokens: usage.p, completion_tokens: usage.c, total_tokens: usage.p + usage.c },
  });
}

/** Answers with tool calls first, then (once a tool message came back) with text. */
function toolsThenText(calls: { name: string; arguments: unknown }[], text: string): FakeHandler {
  return (req) => {
    const last = req.body.messages.at(-1);
    return last.role === "tool" ? completion(text) : completion(null, calls);
  };
}

const functionToolsOf = (tools: any[]) => tools.filter((t) => t.type === "function");

function expectFunctionTools(tools: any[]) {
  const fns = tools.slice(0, FUNCTION_TOOLS.length);
  expect(fns.map((t) => t.function.name)).toEqual(FUNCTION_TOOLS);
  for (const t of fns) {
    expect(Object.keys(t).sort()).toEqual(["function", "type"]);
    expect(t.type).toBe("function");
    expect(typeof t.function.description).toBe("string");
    expect(t.function.parameters.type).toBe("object");
  }
}

// The main server: default settings

describe("modelrouter staff replies (default settings)", () => {
  let w: World;
  let ada: Staff;
  let bob: Staff;
  let cleo: Staff;
  let listener: Listener;

  beforeAll(async () => {
    w = await startWorld();
    ada = await addStaff(w.org, { name: "Ada" });
    bob = await addStaff(w.org, { name: "Bob" });
    cleo = await addStaff(w.org, { name: "Cleo", modelrouter_model: "openai/gpt-4o-mini" });
    await textFile(w, "spec.md", SPEC_TEXT);
    listener = await listen(w.server.url, w.org.id, w.org.owner.token);
  });
  afterAll(async () => {
    listener.close();
    await w.stop();
  });
  afterEach(() => w.fake.handle(answerByName));

  describe("a mention", () => {
    it("gets the staff member's 💭 in the same request, one reply that takes it back, and the live events in order", async () => {
      // The gateway answers once the 💭 has been seen: the answer takes it back.
      const seen = Promise.withResolvers<void>();
      w.fake.handle(async () => {
        await seen.promise;
        return completion("Tuesday works for me.");
      });
      const roomId = await newRoom(w, "mention-basic");
      const source = await say(w, "@Ada can we ship on Tuesday?", { roomId });
      // The 💭 is committed with the message: the very next listing has it, whatever the worker does.
      const now = await listing(w, roomId);
      seen.resolve();
      expect(now.reactions.filter((r) => r.message_id === source.id)).toEqual([
        {
          message_id: source.id,
          user_id: ada.account.user_id,
          emoji: THINKING,
          created_at: expect.stringMatching(TIMESTAMP),
        },
      ]);

      const [job] = await settled(w, "source_message_id", source.id);
      const after = await listing(w, roomId);
      const replies = after.messages.filter((m) => m.author_user_id === ada.account.user_id);
      expect(replies).toHaveLength(1);
      expect(replies[0]).toMatchObject({
        chat_room_id: roomId,
        space_id: w.spaceId,
        content: "Tuesday works for me.",
        deleted_at: null,
      });
      expect(after.messages.map((m) => m.id)).toEqual([source.id, replies[0].id]);
      expect(job.reply_message_id).toBe(replies[0].id);
      // The answer took the 💭 back.
      expect(after.reactions.filter((r) => r.message_id === source.id)).toEqual([]);

      const mine = (e: LiveEvent) =>
        (e.type === "chat.message.created" && [source.id, replies[0].id].includes(e.payload.message?.id)) ||
        (e.type.startsWith("chat.reaction.") && e.payload.message_id === source.id) ||
        (e.type.startsWith("ai.reply.") && e.payload.source_message_id === source.id);
      await eventually(
        () => listener.events.some((e) => e.type === "ai.reply.finished" && mine(e)),
        "ai.reply.finished",
      );
      const events = listener.events.filter(mine);
      const types = events.map((e) => e.type);
      expect(types).toEqual([
        "chat.message.created",
        "chat.reaction.added",
        "ai.reply.started",
        "chat.message.created",
        "chat.reaction.removed",
        "ai.reply.finished",
      ]);
      expect(events[0]?.payload.message.id).toBe(source.id);
      expect(events[1]?.payload).toEqual(now.reactions.find((r) => r.message_id === source.id));
      expect(events[4]?.payload).toEqual(events[1]?.payload);
      const replyCreated = events.find((e) => e.type === "chat.message.created" && e.payload.message.id !== source.id);
      expect(replyCreated?.payload).toEqual({ message: replies[0], attachments: [] });

      const base = {
        job_id: job.job_id,
        staff_user_id: ada.account.user_id,
        chat_room_id: roomId,
        source_message_id: source.id,
        error: null,
        task_id: null,
        asked_by_user_id: w.org.owner.id,
      };
      const started = events.find((e) => e.type === "ai.reply.started") as LiveEvent;
      const done = events.find((e) => e.type === "ai.reply.finished") as LiveEvent;
      expect(started).toEqual({
        type: "ai.reply.started",
        organization_id: w.org.id,
        space_id: w.spaceId,
        payload: { ...base, reply_message_id: null },
      });
      expect(done).toEqual({
        type: "ai.reply.finished",
        organization_id: w.org.id,
        space_id: w.spaceId,
        payload: { ...base, reply_message_id: replies[0].id },
      });
      expect(job.job_id).toMatch(UUID);
    });
  });

  describe("the gateway request", () => {
    it("posts to {base}/chat/completions with the key, JSON, the default model and the default tools", async () => {
      const roomId = await newRoom(w, "request-shape");
      const mark = w.fake.requests.length;
      const source = await say(w, "@Ada hello there", { roomId });
      await settled(w, "source_message_id", source.id);
      const seen = w.fake.requests.slice(mark);
      expect(seen).toHaveLength(1);
      const req = seen[0] as SeenRequest;
      expect(req.method).toBe("POST");
      expect(req.path).toBe(DEFAULT_PATH);
      expect(req.headers.authorization).toBe(`Bearer ${w.key}`);
      expect(req.headers["content-type"]).toBe("application/json");
      expect(Object.keys(req.body).sort()).toEqual(["messages", "model", "tools"]);
      expect(req.body.model).toBe(DEFAULT_MODEL);
      expect(req.body.tools).toHaveLength(N + 2);
      expectFunctionTools(req.body.tools);
      expect(req.body.tools[N]).toEqual(WEB_SEARCH_DEFAULT);
      expect(req.body.tools[N + 1]).toEqual(DATETIME);
      expect(req.body.messages).toHaveLength(2);
      expect(req.body.messages[0].role).toBe("system");
      expect(req.body.messages[0].content).toContain("You are Ada");
      expect(req.body.messages[1]).toEqual({ role: "user", content: `${OWNER_NAME}: @Ada hello there` });
      expect((await listing(w, roomId)).messages.at(-1)?.content).toBe("Answer from Ada.");
    });

    it("uses the modelrouter_model the staff member was created with", async () => {
      expect(cleo.account.modelrouter_model).toBe("openai/gpt-4o-mini");
      expect(ada.account.modelrouter_model).toBe(DEFAULT_MODEL);
      const mark = w.fake.requests.length;
      const source = await say(w, "@Cleo which model are you?");
      await settled(w, "source_message_id", source.id);
      const seen = w.fake.requests.slice(mark);
      expect(seen.map((r) => r.body.model)).toEqual(["openai/gpt-4o-mini"]);
    });

    it("uses a changed model, provider setting or name at the next reply, at once", async () => {
      const dora = await addStaff(w.org, { name: "Dorothea", modelrouter_model: "model/one" });
      const first = await say(w, "@Dorothea which model?");
      await settled(w, "source_message_id", first.id);
      const path = `/api/v1/organizations/${w.org.id}/service-accounts/${dora.account.id}`;
      expect((await w.org.owner.api.patch(path, { modelrouter_model: "model/two" })).status).toBe(200);
      const mark = w.fake.requests.length;
      const second = await say(w, "@Dorothea and now?");
      const [job] = await settled(w, "source_message_id", second.id);
      expect(w.fake.requests.slice(mark).map((r) => r.body.model)).toEqual(["model/two"]);
      expect(job.model).toBe("model/two");
    });

    it("sends the staff member's instructions as the system message's first part, as they are at each reply", async () => {
      const instructions = "You are our release manager; answer briefly.\nDates in UTC.";
      const rel = await addStaff(w.org, { name: "Relma", instructions });
      const mark = w.fake.requests.length;
      const first = await say(w, "@Relma when do we ship?");
      await settled(w, "source_message_id", first.id);
      const system: string = w.fake.requests[mark]?.body.messages[0].content;
      expect(system.startsWith(`${instructions}\n\nYou are Relma, an AI staff member`)).toBe(true);
      // Changed, they apply from the next reply on; cleared, the system message starts with Tandem's own text.
      const path = `/api/v1/organizations/${w.org.id}/service-accounts/${rel.account.id}`;
      expect((await w.org.owner.api.patch(path, { instructions: "Answer in French." })).status).toBe(200);
      const again = await say(w, "@Relma and now?");
      await settled(w, "source_message_id", again.id);
      expect(w.fake.requests.at(-1)?.body.messages[0].content).toStartWith("Answer in French.\n\nYou are Relma,");
      expect((await w.org.owner.api.patch(path, { instructions: "" })).status).toBe(200);
      const plain = await say(w, "@Relma and without?");
      await settled(w, "source_message_id", plain.id);
      expect(w.fake.requests.at(-1)?.body.messages[0].content).toStartWith("You are Relma, an AI staff member");
    });

    it("pre-reads recent chat lines, the file paths and the text of a file the message names", async () => {
      const roomId = await newRoom(w, "preread");
      const folder = await w.org.owner.api.post(`${spacePath(w)}/files/folders`, { name: "docs" });
      expect(folder.status).toBe(201);
      await textFile(w, "notes.txt", NOTES_TEXT, folder.body.node.id);
      await say(w, "Earlier line PREREAD-LINE-1 about the launch", { roomId });
      const mark = w.fake.requests.length;
      const source = await say(w, "@Ada please summarise spec.md for us", { roomId });
      await settled(w, "source_message_id", source.id);
      const [req] = w.fake.requests.slice(mark);
      const system: string = req?.body.messages[0].content;
      expect(system).toContain("Recent conversation");
      expect(system).toContain(`${OWNER_NAME}: Earlier line PREREAD-LINE-1 about the launch`);
      expect(system).toContain("spec.md");
      expect(system).toContain("docs/");
      expect(system).toContain("docs/notes.txt");
      expect(system).toContain(SPEC_TEXT.trim());
      // Only files the message names are read in full.
      expect(system).not.toContain("NOTES-BODY-91c2");
    });
  });

  describe("function tools", () => {
    it("runs read_space_file and sends its result back as a tool message of the next request", async () => {
      w.fake.handle(
        toolsThenText([{ name: "read_space_file", arguments: { path: "spec.md" } }], "It moves to Tuesday."),
      );
      const roomId = await newRoom(w, "tool-read");
      const mark = w.fake.requests.length;
      const source = await say(w, "@Ada when is the launch?", { roomId });
      const [job] = await settled(w, "source_message_id", source.id);
      expect(job.status).toBe("done");
      const seen = w.fake.requests.slice(mark);
      expect(seen).toHaveLength(2);
      const second = seen[1]?.body;
      expect(second.messages).toHaveLength(4);
      expect(second.messages.slice(0, 2)).toEqual(seen[0]?.body.messages);
      expect(second.messages[2]).toEqual({
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_0_read_space_file",
            type: "function",
            function: { name: "read_space_file", arguments: JSON.stringify({ path: "spec.md" }) },
          },
        ],
      });
      expect(second.messages[3]).toEqual({ role: "tool", tool_call_id: "call_0_read_space_file", content: SPEC_TEXT });
      expect(second.tools).toEqual(seen[0]?.body.tools);
      const replies = (await listing(w, roomId)).messages.filter((m) => m.author_user_id === ada.account.user_id);
      expect(replies.map((m) => m.content)).toEqual(["It moves to Tuesday."]);
    });

    it("acts for the person who asked: without their files.read, no file in the pre-read and no file tools", async () => {
      // A role that may chat but not read files: the staff member may, the person asking may not.
      const role = await w.org.owner.api.post(`/api/v1/organizations/${w.org.id}/roles`, {
        name: "Chatter",
        permissions: ["chat.write", "tasks.write"],
      });
      expect(role.status).toBe(201);
      const chad = await addMember(w.org, ["Member"], "Chad Chatter");
      await w.org.owner.api.put(`/api/v1/organizations/${w.org.id}/members/${chad.id}/roles`, {
        role_ids: [role.body.role.id],
      });
      const roomId = await newRoom(w, "no-files-for-chad");
      const mark = w.fake.requests.length;
      const source = await say(w, "@Ada what does spec.md say?", { roomId, as: chad.api });
      await settled(w, "source_message_id", source.id);
      const request = w.fake.requests[mark]?.body;
      const system = request.messages[0].content as string;
      expect(system).not.toContain("Contents of spec.md");
      expect(system).not.toContain(SPEC_TEXT);
      expect(system).not.toContain("Files of the space");
      expect(system).toContain("Recent conversation:");
      expect(system).toContain("You cannot change the space's files or start automations");
      const names = request.tools.map((t: { type: string; function?: { name: string } }) => t.function?.name ?? t.type);
      expect(names).toEqual([
        "read_recent_chat",
        "list_tasks",
        "read_task",
        "create_task",
        "move_task",
        "comment_task",
        "openrouter:web_search",
        "openrouter:datetime",
      ]);
      // A Member (files.read and files.write) is offered every tool.
      const full = w.fake.requests.length;
      const again = await say(w, "@Ada and now?", { roomId });
      await settled(w, "source_message_id", again.id);
      expect(w.fake.requests[full]?.body.tools).toHaveLength(N + 2);
    });

    it("the pre-read and list_space_files see every file change since the last reply", async () => {
      w.fake.handle(toolsThenText([{ name: "list_space_files", arguments: {} }], "Listed."));
      /** What one reply saw: the files of its pre-read, and what the tool answered. */
      const seenFiles = async (question: string) => {
        const mark = w.fake.requests.length;
        const source = await say(w, `@Ada ${question}`);
        const [job] = await settled(w, "source_message_id", source.id);
        expect(job.status).toBe("done");
        const [first, second] = w.fake.requests.slice(mark);
        const preread = String(first?.body.messages[0].content).split("Files of the space:\n")[1] ?? "";
        return { preread: preread.split("\n\n")[0], tool: second?.body.messages.at(-1).content };
      };
      const before = await seenFiles("what files are there?");
      expect(before.tool).toBe(before.preread);
      expect(before.tool).toContain("spec.md");
      expect(before.tool).not.toContain("agenda.md");

      const agenda = await textFile(w, "agenda.md", "1. Launch\n");
      const created = await seenFiles("and now?");
      expect(created.tool.split("\n")).toEqual(
        [...before.tool.split("\n"), "agenda.md"].sort((a, b) => a.localeCompare(b)),
      );
      expect(created.preread).toBe(created.tool);

      const renamed = await w.org.owner.api.patch(`${spacePath(w)}/files/${agenda.id}`, { name: "minutes.md" });
      expect(renamed.status).toBe(200);
      const afterRename = await seenFiles("and after the rename?");
      expect(afterRename.tool).toContain("minutes.md");
      expect(afterRename.tool).not.toContain("agenda.md");

      expect((await w.org.owner.api.delete(`${spacePath(w)}/files/${agenda.id}`)).status).toBe(204);
      expect((await seenFiles("and after the delete?")).tool).toBe(before.tool);
    });

    it("propose_file_patch leaves a pending proposal by the staff member and the file unchanged", async () => {
      const plan = await textFile(w, "plan.md", "Plan v1\n");
      w.fake.handle(
        toolsThenText(
          [{ name: "propose_file_patch", arguments: { path: "plan.md", proposed_content: "Plan v2\n", note: "bump" } }],
          "I proposed a new plan.",
        ),
      );
      const source = await say(w, "@Ada please improve plan.md");
      const [job] = await settled(w, "source_message_id", source.id);
      expect(job.status).toBe("done");
      const proposals = await w.org.owner.api.get(`${spacePath(w)}/files/${plan.id}/proposals`);
      expect(proposals.status).toBe(200);
      expect(proposals.body.proposals).toHaveLength(1);
      expect(proposals.body.proposals[0]).toMatchObject({
        node_id: plan.id,
        space_id: w.spaceId,
        author_user_id: ada.account.user_id,
        proposed_content: "Plan v2\n",
        note: "bump",
        status: "pending",
        resolved_at: null,
        resolved_by: null,
      });
      const content = await w.org.owner.api.get(`${spacePath(w)}/files/${plan.id}/content`);
      expect(content.text).toBe("Plan v1\n");
      expect(job.tool_calls).toHaveLength(1);
      expect(job.tool_calls[0]).toMatchObject({ name: "propose_file_patch", error: null });
    });

    it("propose_automation creates an automation pending approval, by the staff account", async () => {
      const config = { cron: "0 9 * * 1", channel: "general" };
      w.fake.handle(
        toolsThenText(
          [
            {
              name: "propose_automation",
              arguments: { name: "Monday digest", kind: "scheduled", config, description: "A weekly summary" },
            },
          ],
          "I proposed an automation.",
        ),
      );
      const source = await say(w, "@Ada set up a weekly digest");
      const [job] = await settled(w, "source_message_id", source.id);
      expect(job.status).toBe("done");
      const list = await w.org.owner.api.get(`${spacePath(w)}/automations`);
      const made = list.body.automations.filter((a: any) => a.name === "Monday digest");
      expect(made).toHaveLength(1);
      expect(made[0]).toMatchObject({
        organization_id: w.org.id,
        space_id: w.spaceId,
        kind: "scheduled",
        status: "pending_approval",
        created_by_user_id: null,
        created_by_service_account_id: ada.account.id,
        reviewed_by_user_id: null,
      });
      expect(made[0].config).toEqual({ ...config, proposal_note: "A weekly summary" });
    });

    it("an unknown tool, bad JSON arguments and a failing tool give error results, not a failed reply", async () => {
      let n = 0;
      w.fake.handle(() =>
        ++n === 1
          ? toolCallAnswer([
              { id: "c1", name: "launch_rockets", rawArguments: "{}" },
              { id: "c2", name: "read_space_file", rawArguments: "{not json" },
              { id: "c3", name: "read_space_file", rawArguments: JSON.stringify({ path: "missing.md" }) },
            ])
          : completion("Recovered anyway."),
      );
      const roomId = await newRoom(w, "tool-errors");
      const mark = w.fake.requests.length;
      const source = await say(w, "@Ada try your tools", { roomId });
      const [job] = await settled(w, "source_message_id", source.id);
      expect(job.status).toBe("done");
      expect(job.error).toBeNull();
      const seen = w.fake.requests.slice(mark);
      expect(seen).toHaveLength(2);
      const toolMessages = seen[1]?.body.messages.filter((m: any) => m.role === "tool");
      expect(toolMessages.map((m: any) => m.tool_call_id)).toEqual(["c1", "c2", "c3"]);
      for (const m of toolMessages) expect(m.content.length).toBeGreaterThan(0);
      expect(toolMessages[0].content).toContain("launch_rockets");
      expect(toolMessages[2].content).toContain("missing.md");
      expect(job.tool_calls.map((c: any) => c.name)).toEqual(["launch_rockets", "read_space_file", "read_space_file"]);
      for (const c of job.tool_calls) expect(c.error).toEqual(expect.any(String));
      const replies = (await listing(w, roomId)).messages.filter((m) => m.author_user_id === ada.account.user_id);
      expect(replies.map((m) => m.content)).toEqual(["Recovered anyway."]);
    });
  });

  describe("retries and failure replies", () => {
    it("retries 503 twice, then answers: one reply, 3 requests", async () => {
      let n = 0;
      w.fake.handle(() => (++n <= 2 ? new Response("busy", { status: 503 }) : completion("Third time lucky.")));
      const roomId = await newRoom(w, "retry-503");
      const mark = w.fake.requests.length;
      const source = await say(w, "@Ada are you there?", { roomId });
      const [job] = await settled(w, "source_message_id", source.id);
      expect(job.status).toBe("done");
      expect(w.fake.requests.length - mark).toBe(3);
      const replies = (await listing(w, roomId)).messages.filter((m) => m.author_user_id === ada.account.user_id);
      expect(replies.map((m) => m.content)).toEqual(["Third time lucky."]);
    });

    it("honours a 429 with Retry-After, then answers", async () => {
      let n = 0;
      w.fake.handle(() =>
        ++n === 1
          ? Response.json({ error: { message: "slow down" } }, { status: 429, headers: { "retry-after": "1" } })
          : completion("After the pause."),
      );
      const roomId = await newRoom(w, "retry-429");
      const mark = w.fake.requests.length;
      const source = await say(w, "@Ada quick one", { roomId });
      const [job] = await settled(w, "source_message_id", source.id);
      expect(job.status).toBe("done");
      expect(w.fake.requests.length - mark).toBe(2);
      const replies = (await listing(w, roomId)).messages.filter((m) => m.author_user_id === ada.account.user_id);
      expect(replies.map((m) => m.content)).toEqual(["After the pause."]);
    });

    it("gives up after exactly 5 attempts on 500 with one failure reply and ai.reply.failed", async () => {
      w.fake.handle(() => Response.json({ error: { message: "upstream exploded" } }, { status: 500 }));
      const roomId = await newRoom(w, "retry-500");
      const mark = w.fake.requests.length;
      const source = await say(w, "@Ada this will fail", { roomId });
      const [job] = await settled(w, "source_message_id", source.id);
      expect(w.fake.requests.length - mark).toBe(5);
      expect(job.status).toBe("failed");
      expect(job.error).toEqual(expect.any(String));
      const replies = (await listing(w, roomId)).messages.filter((m) => m.author_user_id === ada.account.user_id);
      expect(replies).toHaveLength(1);
      expect(replies[0].content.startsWith(FAILURE_PREFIX)).toBe(true);
      expect(replies[0].content).toContain("500");
      expect(job.reply_message_id).toBe(replies[0].id);
      const failed = await listener.next(
        (e) => e.type === "ai.reply.failed" && e.payload.source_message_id === source.id,
      );
      expect(failed.payload).toEqual({
        job_id: job.job_id,
        staff_user_id: ada.account.user_id,
        chat_room_id: roomId,
        source_message_id: source.id,
        reply_message_id: replies[0].id,
        error: expect.any(String),
        task_id: null,
        asked_by_user_id: w.org.owner.id,
      });
      expect(failed.payload.error.length).toBeGreaterThan(0);
      expect(
        listener.events.some((e) => e.type === "ai.reply.finished" && e.payload.source_message_id === source.id),
      ).toBe(false);
    });

    it("reads an error inside a 200 answer as its status: a 502 is retried, a 400 is final with its message", async () => {
      let n = 0;
      w.fake.handle(() =>
        ++n === 1 ? Response.json({ error: { code: 502, message: "provider hiccup" } }) : completion("Recovered."),
      );
      const roomId = await newRoom(w, "error-in-200");
      const mark = w.fake.requests.length;
      const source = await say(w, "@Ada try this", { roomId });
      const [job] = await settled(w, "source_message_id", source.id);
      expect(job.status).toBe("done");
      expect(w.fake.requests.length - mark).toBe(2);
      w.fake.handle(() => Response.json({ error: { code: 400, message: "context too long" } }));
      const again = await say(w, "@Ada and this", { roomId });
      const [failed] = await settled(w, "source_message_id", again.id);
      expect(failed.status).toBe("failed");
      const replies = (await listing(w, roomId)).messages.filter((m) => m.author_user_id === ada.account.user_id);
      expect(replies.at(-1)?.content).toBe(
        "Sorry, I couldn't answer: the model gateway answered 400: context too long.",
      );
    });

    it("cuts an answer longer than a message may be at 40,000 characters, saying so", async () => {
      w.fake.handle(() => completion("😀".repeat(50_000)));
      const roomId = await newRoom(w, "long-answer");
      const source = await say(w, "@Ada write a lot", { roomId });
      const [job] = await settled(w, "source_message_id", source.id);
      expect(job.status).toBe("done");
      const reply = (await listing(w, roomId)).messages.find((m) => m.author_user_id === ada.account.user_id);
      expect([...reply.content]).toHaveLength(40_000);
      expect(reply.content).toStartWith("😀😀");
      expect(reply.content).toEndWith("… (cut: the answer was longer than a message may be)");
    });

    it("a message deleted while its reply is worked on gets no reply", async () => {
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      w.fake.handle(async () => {
        await held;
        return completion("Noted your secret.");
      });
      const roomId = await newRoom(w, "deleted-source");
      const source = await say(w, "@Ada my password is hunter22", { roomId });
      await until(async () => w.fake.requests.some((r) => JSON.stringify(r.body).includes("hunter22")), "the request");
      expect((await w.org.owner.api.delete(`${messagesPath(w, roomId)}/${source.id}`)).status).toBe(204);
      release();
      const [job] = await settled(w, "source_message_id", source.id);
      expect(job.status).toBe("failed");
      expect(job.error).toBe("nowhere to answer: the message was deleted");
      const replies = (await listing(w, roomId)).messages.filter((m) => m.author_user_id === ada.account.user_id);
      expect(replies).toEqual([]);
    });

    it("a staff member deleted while it works posts nothing and the reply fails at once", async () => {
      const gone = await addStaff(w.org, { name: "Gus" });
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      w.fake.handle(async () => {
        await held;
        return completion("Too late.");
      });
      const roomId = await newRoom(w, "deleted-staff");
      const source = await say(w, "@Gus are you there?", { roomId });
      await until(
        async () => w.fake.requests.some((r) => JSON.stringify(r.body).includes("are you there")),
        "the request",
      );
      const path = `/api/v1/organizations/${w.org.id}/service-accounts/${gone.account.id}`;
      expect((await w.org.owner.api.delete(path)).status).toBe(204);
      release();
      const failed = await listener.next(
        (e) => e.type === "ai.reply.failed" && e.payload.source_message_id === source.id,
      );
      expect(failed.payload.reply_message_id).toBeNull();
      expect((await listing(w, roomId)).messages.map((m) => m.content)).toEqual(["@Gus are you there?"]);
      // What it did stays on record after the account is gone.
      const [entry] = await settled(w, "source_message_id", source.id);
      expect(entry).toMatchObject({ staff_user_id: gone.account.user_id, status: "failed", reply_message_id: null });
    });

    it("a 401 is final: 1 request and a failure reply naming it", async () => {
      w.fake.handle(() => Response.json({ error: { message: "invalid key" } }, { status: 401 }));
      const roomId = await newRoom(w, "final-401");
      const mark = w.fake.requests.length;
      const source = await say(w, "@Ada with a bad key", { roomId });
      const [job] = await settled(w, "source_message_id", source.id);
      expect(w.fake.requests.length - mark).toBe(1);
      expect(job.status).toBe("failed");
      const replies = (await listing(w, roomId)).messages.filter((m) => m.author_user_id === ada.account.user_id);
      expect(replies.map((m) => m.content)).toEqual([
        "Sorry, I couldn't answer: the model gateway answered 401: invalid key.",
      ]);
    });

    it("never repeats the key a gateway echoes in its error, in the reply or the activity", async () => {
      // A proxy that quotes the request's Authorization header back in its refusal.
      w.fake.handle((req) =>
        Response.json({ error: { message: `bad key ${req.headers.authorization}` } }, { status: 401 }),
      );
      const roomId = await newRoom(w, "echoed-key");
      const source = await say(w, "@Ada behind a chatty proxy", { roomId });
      const [job] = await settled(w, "source_message_id", source.id);
      expect(job.error).toBe("the model gateway answered 401: bad key ****");
      const replies = (await listing(w, roomId)).messages.filter((m) => m.author_user_id === ada.account.user_id);
      expect(replies.map((m) => m.content)).toEqual([
        "Sorry, I couldn't answer: the model gateway answered 401: bad key ****.",
      ]);
      expect(JSON.stringify(job)).not.toContain(w.key);
    });

    it("without a key: a failure reply and no gateway request", async () => {
      const integration = `/api/v1/organizations/${w.org.id}/integrations/modelrouter`;
      expect((await w.org.owner.api.delete(integration)).status).toBe(204);
      try {
        const roomId = await newRoom(w, "no-key");
        const mark = w.fake.requests.length;
        const source = await say(w, "@Ada no key yet", { roomId });
        const [job] = await settled(w, "source_message_id", source.id);
        expect(w.fake.requests.length - mark).toBe(0);
        expect(job.status).toBe("failed");
        const replies = (await listing(w, roomId)).messages.filter((m) => m.author_user_id === ada.account.user_id);
        expect(replies).toHaveLength(1);
        expect(replies[0].content.startsWith(FAILURE_PREFIX)).toBe(true);
      } finally {
        expect((await w.org.owner.api.put(integration, { api_key: w.key })).status).toBe(200);
      }
    });
  });

  describe("who wakes whom", () => {
    let member: Person;
    let lovelace: Person;
    let viewer: Person;
    let dora: Staff;

    beforeAll(async () => {
      member = await addMember(w.org, ["Member"]);
      lovelace = await addMember(w.org, ["Member"]);
      const renamed = await lovelace.api.patch("/api/v1/me", { display_name: "Ada Lovelace" });
      expect(renamed.status).toBe(200);
      viewer = await addMember(w.org, ["Viewer"]);
      dora = await addStaff(w.org, { name: "Dora" });
    });

    /** Asserts the message queued nothing: no 💭 and no reply job (both would be in its own transaction). */
    async function expectNobodyWoken(source: any, roomId: string, spaceId = w.spaceId) {
      const now = await listing(w, roomId, spaceId);
      expect(now.reactions.filter((r) => r.message_id === source.id)).toEqual([]);
      expect(await jobsFor(w, source.id)).toEqual([]);
    }

    /**
     * Asserts the message woke exactly `staff`: one 💭 each (announced with the message: a reply may take it
     * back before a listing could show it), one finished job each.
     */
    async function expectWoken(source: any, staff: Staff[], roomId: string, spaceId = w.spaceId) {
      const acked = (e: LiveEvent) => e.type === "chat.reaction.added" && e.payload.message_id === source.id;
      await eventually(() => listener.events.filter(acked).length >= staff.length, "the 💭 of each staff member");
      const acks = listener.events.filter(acked).map((e) => e.payload);
      expect(acks.map((r) => r.user_id).sort()).toEqual(staff.map((s) => s.account.user_id).sort());
      for (const r of acks) expect(r.emoji).toBe(THINKING);
      const jobs = await settled(w, "source_message_id", source.id, staff.length);
      expect(jobs.map((j) => j.staff_user_id).sort()).toEqual(staff.map((s) => s.account.user_id).sort());
      // Each answer took its 💭 back.
      const after = await listing(w, roomId, spaceId);
      expect(after.reactions.filter((r) => r.message_id === source.id)).toEqual([]);
    }

    it("a message posted with a staff sa_ token wakes no other staff member, and sends no request", async () => {
      const roomId = await newRoom(w, "staff-to-staff");
      const mark = w.fake.requests.length;
      const bySa = await say(w, `@Bob could you take this? <@${bob.account.user_id}>`, { as: ada.api, roomId });
      expect(bySa.author_user_id).toBe(ada.account.user_id);
      await expectNobodyWoken(bySa, roomId);
      // A person's mention afterwards is answered; only its request reaches the gateway.
      const sentinel = await say(w, "@Dora ping", { roomId });
      await settled(w, "source_message_id", sentinel.id);
      const seen = w.fake.requests.slice(mark);
      expect(seen.map(staffNameOf)).toEqual(["Dora"]);
      const msgs = (await listing(w, roomId)).messages;
      expect(msgs.filter((m) => m.author_user_id === bob.account.user_id)).toEqual([]);
    });

    it("a staff reply naming another staff member wakes no one", async () => {
      w.fake.handle((req) =>
        completion(staffNameOf(req) === "Ada" ? `Let me ask @Bob about it, <@${bob.account.user_id}>.` : "ok"),
      );
      const roomId = await newRoom(w, "reply-mentions");
      const source = await say(w, "@Ada who knows?", { roomId });
      const [job] = await settled(w, "source_message_id", source.id);
      expect(job.status).toBe("done");
      const reply = (await listing(w, roomId)).messages.find((m) => m.id === job.reply_message_id);
      expect(reply.content).toContain("@Bob");
      await expectNobodyWoken(reply, roomId);
      expect(
        (await activity(w, `staff_user_id=${bob.account.user_id}`)).filter((a) => a.chat_room_id === roomId),
      ).toEqual([]);
    });

    it("two staff named in one message: two 💭 and two replies", async () => {
      const roomId = await newRoom(w, "two-staff");
      const source = await say(w, "@Ada and @Bob, thoughts?", { roomId });
      await expectWoken(source, [ada, bob], roomId);
      const msgs = (await listing(w, roomId)).messages;
      expect(msgs.filter((m) => m.author_user_id === ada.account.user_id).map((m) => m.content)).toEqual([
        "Answer from Ada.",
      ]);
      expect(msgs.filter((m) => m.author_user_id === bob.account.user_id).map((m) => m.content)).toEqual([
        "Answer from Bob.",
      ]);
    });

    it("the same staff member named three ways answers once", async () => {
      const roomId = await newRoom(w, "named-thrice");
      const source = await say(w, `@Ada hi @ADA again <@${ada.account.user_id}>`, { roomId });
      await expectWoken(source, [ada], roomId);
      const msgs = (await listing(w, roomId)).messages;
      expect(msgs.filter((m) => m.author_user_id === ada.account.user_id)).toHaveLength(1);
    });

    it("mention syntax: <@userId> and case-insensitive @name wake; @Adam, an email and a longer name do not", async () => {
      const roomId = await newRoom(w, "syntax");
      const byId = await say(w, `hey <@${ada.account.user_id}> look`, { roomId });
      await expectWoken(byId, [ada], roomId);
      const lower = await say(w, "@ada, lowercase works", { as: member.api, roomId });
      await expectWoken(lower, [ada], roomId);
      expect((await jobsFor(w, lower.id))[0]).toMatchObject({ status: "done", staff_user_id: ada.account.user_id });

      for (const content of [
        "@Adam is not Ada",
        "write to bob@ada.com please",
        "mail ada@Ada and dora@Dora",
        "@Ada Lovelace hi",
        "Ada without an at sign",
      ]) {
        const source = await say(w, content, { roomId });
        await expectNobodyWoken(source, roomId);
      }
    });

    it("a name that a person and a staff member share names the staff member", async () => {
      // The person first: among equally long names, the one listed first would otherwise win.
      await addMember(w.org, ["Member"], "Quinn");
      const quinn = await addStaff(w.org, { name: "Quinn" });
      const roomId = await newRoom(w, "twins");
      const source = await say(w, "@Quinn are you there?", { roomId });
      await expectWoken(source, [quinn], roomId);
    });

    it("a Viewer cannot post at all", async () => {
      const res = await viewer.api.post(messagesPath(w), { content: "@Ada hello" });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: "missing permission: chat.write" });
    });

    it("staff outside a private space are not woken there; added, then removed again", async () => {
      const made = await w.org.owner.api.post(`/api/v1/organizations/${w.org.id}/spaces`, {
        name: "Secret",
        private: true,
      });
      expect(made.status).toBe(201);
      const secret = made.body.id;
      const rooms = await w.org.owner.api.get(`${spacePath(w, secret)}/chat-rooms`);
      const roomId = rooms.body.chat_rooms[0].id;
      const opts = { roomId, spaceId: secret };

      const before = await say(w, "@Dora can you see this?", opts);
      await expectNobodyWoken(before, roomId, secret);

      const members = `${spacePath(w, secret)}/members`;
      expect((await w.org.owner.api.post(members, { user_id: dora.account.user_id })).status).toBe(201);
      const inside = await say(w, "@Dora now you can", opts);
      await expectWoken(inside, [dora], roomId, secret);

      expect((await w.org.owner.api.delete(`${members}/${dora.account.user_id}`)).status).toBe(204);
      const after = await say(w, "@Dora and now?", opts);
      await expectNobodyWoken(after, roomId, secret);
      const msgs = (await listing(w, roomId, secret)).messages;
      expect(msgs.filter((m) => m.author_user_id === dora.account.user_id)).toHaveLength(1);
    });
  });

  describe("task assignment", () => {
    let tess: Staff;
    let columnId: string;

    beforeAll(async () => {
      tess = await addStaff(w.org, { name: "Tess" });
      const board = await w.org.owner.api.get(`${spacePath(w)}/board`);
      columnId = board.body.columns[0].id;
    });

    async function taskMessages(taskId: string): Promise<any[]> {
      const res = await w.org.owner.api.get(`${spacePath(w)}/tasks/${taskId}/messages`);
      expect(res.status).toBe(200);
      return res.body.messages;
    }

    it("a task created for staff gets one reply in its messages, from its title; same assignee again queues nothing", async () => {
      w.fake.handle(() => completion("I'll draft it today."));
      const mark = w.fake.requests.length;
      const created = await w.org.owner.api.post(`${spacePath(w)}/tasks`, {
        title: "Draft the Q3 launch plan",
        description: "Two pages, with dates.",
        column_id: columnId,
        assignee_user_id: tess.account.user_id,
      });
      expect(created.status).toBe(201);
      const task = created.body;
      const [job] = await settled(w, "task_id", task.id);
      expect(job).toMatchObject({
        trigger: "task",
        status: "done",
        chat_room_id: null,
        source_message_id: null,
        staff_user_id: tess.account.user_id,
      });
      const messages = await taskMessages(task.id);
      expect(messages).toEqual([
        {
          id: job.reply_message_id,
          task_id: task.id,
          author_user_id: tess.account.user_id,
          content: "I'll draft it today.",
          created_at: expect.stringMatching(TIMESTAMP),
        },
      ]);
      const seen = w.fake.requests.slice(mark);
      expect(seen).toHaveLength(1);
      const user = seen[0]?.body.messages[1];
      expect(user.role).toBe("user");
      expect(user.content).toContain("Draft the Q3 launch plan");
      expect(user.content).toContain("Two pages, with dates.");

      const ofTask = (e: LiveEvent) =>
        ((e.type === "task.created" || e.type === "task.updated") && e.payload.id === task.id) ||
        (e.type === "task.message.created" && e.payload.task_id === task.id) ||
        (e.type.startsWith("ai.reply.") && e.payload.task_id === task.id);
      await eventually(() => listener.events.some((e) => e.type === "ai.reply.finished" && ofTask(e)), "finished");
      const types = listener.events.filter(ofTask).map((e) => e.type);
      expect(types[0]).toBe("task.created");
      expect(types.filter((t) => t !== "task.message.created")).toEqual([
        "task.created",
        "ai.reply.started",
        "ai.reply.finished",
      ]);
      const messageEvent = listener.events.find((e) => e.type === "task.message.created" && ofTask(e));
      expect(messageEvent?.payload).toEqual(messages[0]);
      expect(types.indexOf("task.message.created")).toBeGreaterThan(types.indexOf("ai.reply.started"));
      const done = listener.events.find((e) => e.type === "ai.reply.finished" && ofTask(e));
      expect(done?.payload).toEqual({
        job_id: job.job_id,
        staff_user_id: tess.account.user_id,
        chat_room_id: null,
        source_message_id: null,
        reply_message_id: job.reply_message_id,
        error: null,
        task_id: task.id,
        asked_by_user_id: w.org.owner.id,
      });

      const again = await w.org.owner.api.patch(`${spacePath(w)}/tasks/${task.id}`, {
        assignee_user_id: tess.account.user_id,
        title: "Draft the Q3 launch plan (v2)",
      });
      expect(again.status).toBe(200);
      expect((await activity(w)).filter((a) => a.task_id === task.id)).toHaveLength(1);
    });

    it("PATCHing a new staff assignee queues one reply; the same assignee again does not", async () => {
      const created = await w.org.owner.api.post(`${spacePath(w)}/tasks`, {
        title: "Review the pricing page",
        column_id: columnId,
      });
      expect(created.status).toBe(201);
      const task = created.body;
      expect((await activity(w)).filter((a) => a.task_id === task.id)).toEqual([]);
      const mark = w.fake.requests.length;
      const patched = await w.org.owner.api.patch(`${spacePath(w)}/tasks/${task.id}`, {
        assignee_user_id: tess.account.user_id,
      });
      expect(patched.status).toBe(200);
      await settled(w, "task_id", task.id);
      expect(w.fake.requests.slice(mark).map((r) => r.body.messages[1].content)).toEqual([
        expect.stringContaining("Review the pricing page"),
      ]);
      const messages = await taskMessages(task.id);
      expect(messages.map((m) => [m.author_user_id, m.content])).toEqual([[tess.account.user_id, "Answer from Tess."]]);

      const same = await w.org.owner.api.patch(`${spacePath(w)}/tasks/${task.id}`, {
        assignee_user_id: tess.account.user_id,
      });
      expect(same.status).toBe(200);
      expect((await activity(w)).filter((a) => a.task_id === task.id)).toHaveLength(1);
      expect(await taskMessages(task.id)).toHaveLength(1);
    });

    it("a person mentioning staff in a task's messages gets one reply there; staff mentioning staff wake no one", async () => {
      const created = await w.org.owner.api.post(`${spacePath(w)}/tasks`, {
        title: "Follow up on the launch",
        column_id: columnId,
      });
      const task = created.body;
      const asked = await w.org.owner.api.post(`${spacePath(w)}/tasks/${task.id}/messages`, {
        content: "@Tess can you elaborate on the dates?",
      });
      expect(asked.status).toBe(201);
      const [job] = await settled(w, "task_id", task.id);
      expect(job).toMatchObject({
        trigger: "task",
        status: "done",
        chat_room_id: null,
        source_message_id: asked.body.id,
        staff_user_id: tess.account.user_id,
      });
      const last = w.fake.requests.at(-1);
      expect(last?.body.messages[1]).toEqual({
        role: "user",
        content: `${OWNER_NAME}: @Tess can you elaborate on the dates?`,
      });
      expect(last?.body.messages[0].content).toContain("can you elaborate on the dates?");
      const messages = await taskMessages(task.id);
      expect(messages.map((m) => [m.author_user_id, m.content])).toEqual([
        [w.org.owner.id, "@Tess can you elaborate on the dates?"],
        [tess.account.user_id, "Answer from Tess."],
      ]);
      const mark = w.fake.requests.length;
      const byStaff = await bob.api.post(`${spacePath(w)}/tasks/${task.id}/messages`, { content: "@Tess over to you" });
      expect(byStaff.status).toBe(201);
      await Bun.sleep(200);
      expect(w.fake.requests.length).toBe(mark);
      expect((await activity(w)).filter((a) => a.task_id === task.id)).toHaveLength(1);
    });

    it("a task assigned to staff by another staff member queues nothing", async () => {
      const mark = w.fake.requests.length;
      const created = await bob.api.post(`${spacePath(w)}/tasks`, {
        title: "Handed over by Bob",
        column_id: columnId,
        assignee_user_id: tess.account.user_id,
      });
      expect(created.status).toBe(201);
      const other = await bob.api.post(`${spacePath(w)}/tasks`, { title: "Patched by Bob", column_id: columnId });
      expect(other.status).toBe(201);
      const patched = await bob.api.patch(`${spacePath(w)}/tasks/${other.body.id}`, {
        assignee_user_id: tess.account.user_id,
      });
      expect(patched.status).toBe(200);
      const rows = await activity(w);
      expect(rows.filter((a) => a.task_id === created.body.id || a.task_id === other.body.id)).toEqual([]);
      expect(w.fake.requests.length).toBe(mark);
    });
  });

  describe("GET .../staff-activity", () => {
    let ivy: Staff;
    let outsider: Person;
    const jobs: Record<string, any> = {};

    beforeAll(async () => {
      ivy = await addStaff(w.org, { name: "Ivy" });
      outsider = await addMember(w.org, ["Member"]);
    });

    it("records one entry per reply with every field, tool calls and summed tokens", async () => {
      let n = 0;
      w.fake.handle(() =>
        ++n === 1
          ? toolCallAnswer([{ id: "t1", name: "read_space_file", rawArguments: JSON.stringify({ path: "spec.md" }) }], {
              p: 111,
              c: 7,
            })
          : textAnswer("Read it.", { p: 222, c: 13 }),
      );
      const roomId = await newRoom(w, "activity");
      const source = await say(w, "@Ivy read the spec", { roomId });
      const [entry] = await settled(w, "source_message_id", source.id);
      jobs.tool = entry;
      expect(Object.keys(entry).sort()).toEqual(ACTIVITY_KEYS);
      expect(entry).toEqual({
        job_id: expect.stringMatching(UUID),
        organization_id: w.org.id,
        space_id: w.spaceId,
        staff_user_id: ivy.account.user_id,
        trigger: "chat",
        chat_room_id: roomId,
        task_id: null,
        source_message_id: source.id,
        reply_message_id: expect.stringMatching(UUID),
        provider: "modelrouter",
        model: DEFAULT_MODEL,
        status: "done",
        tool_calls: [
          {
            name: "read_space_file",
            arguments: JSON.stringify({ path: "spec.md" }),
            result: SPEC_TEXT,
            duration_ms: expect.any(Number),
            error: null,
          },
        ],
        prompt_tokens: 333,
        completion_tokens: 20,
        duration_ms: expect.any(Number),
        error: null,
        created_at: expect.stringMatching(TIMESTAMP),
        started_at: expect.stringMatching(TIMESTAMP),
        finished_at: expect.stringMatching(TIMESTAMP),
      });
      expect(entry.tool_calls[0].duration_ms).toBeGreaterThanOrEqual(0);
      expect(entry.duration_ms).toBeGreaterThanOrEqual(0);
      expect(entry.created_at <= entry.started_at && entry.started_at <= entry.finished_at).toBe(true);
      const reply = (await listing(w, roomId)).messages.find((m) => m.id === entry.reply_message_id);
      expect(reply).toMatchObject({ author_user_id: ivy.account.user_id, content: "Read it." });
    });

    it("shows what the tools were given and answered only to those who may read the space's files", async () => {
      const role = await w.org.owner.api.post(`/api/v1/organizations/${w.org.id}/roles`, {
        name: "Chat only",
        permissions: ["chat.write"],
      });
      const reader = await addMember(w.org, ["Member"], "Rita Reader");
      const chatter = await addMember(w.org, ["Member"], "Tom Talker");
      await w.org.owner.api.put(`/api/v1/organizations/${w.org.id}/members/${chatter.id}/roles`, {
        role_ids: [role.body.role.id],
      });
      const seen = (who: Person) =>
        activity(w, "", who.api).then((rows) => rows.find((r) => r.job_id === jobs.tool.job_id));
      expect((await seen(reader)).tool_calls).toEqual(jobs.tool.tool_calls);
      expect((await seen(chatter)).tool_calls).toEqual([
        { name: "read_space_file", arguments: "", result: "", duration_ms: expect.any(Number), error: null },
      ]);
      expect(JSON.stringify(await activity(w, "", chatter.api))).not.toContain(SPEC_TEXT);
    });

    it("records a failed reply with its error and no tokens", async () => {
      w.fake.handle(() => Response.json({ error: { message: "invalid key" } }, { status: 401 }));
      const source = await say(w, "@Ivy fail please");
      const [entry] = await settled(w, "source_message_id", source.id);
      jobs.failed = entry;
      expect(entry).toMatchObject({
        staff_user_id: ivy.account.user_id,
        status: "failed",
        error: "the model gateway answered 401: invalid key",
        tool_calls: [],
        prompt_tokens: 0,
        completion_tokens: 0,
      });
      // (Asserted apart: bun's toMatchObject writes asymmetric matchers into the object it checks.)
      expect(entry.reply_message_id).toMatch(UUID);
      const reply = (await listing(w)).messages.find((m) => m.id === entry.reply_message_id);
      expect(reply.content).toBe("Sorry, I couldn't answer: the model gateway answered 401: invalid key.");
    });

    it("lists newest first, filters by staff_user_id, honours limit", async () => {
      const source = await say(w, "@Ivy one more");
      const [entry] = await settled(w, "source_message_id", source.id);
      expect(entry).toMatchObject({ status: "done", prompt_tokens: 100, completion_tokens: 20, tool_calls: [] });
      jobs.plain = entry;

      const ivys = await activity(w, `staff_user_id=${ivy.account.user_id}`);
      expect(ivys.map((a) => a.job_id)).toEqual([jobs.plain.job_id, jobs.failed.job_id, jobs.tool.job_id]);
      expect(ivys.map((a) => a.status)).toEqual(["done", "failed", "done"]);

      const limited = await w.org.owner.api.get(
        `/api/v1/organizations/${w.org.id}/staff-activity?staff_user_id=${ivy.account.user_id}&limit=2`,
      );
      expect(limited.status).toBe(200);
      expect(limited.body.activity.map((a: any) => a.job_id)).toEqual([jobs.plain.job_id, jobs.failed.job_id]);

      const all = await activity(w);
      expect(all.length).toBeGreaterThan(3);
      const staffIds = new Set(all.map((a) => a.staff_user_id));
      expect(staffIds.has(ada.account.user_id) && staffIds.has(ivy.account.user_id)).toBe(true);
      for (let i = 1; i < all.length; i++) expect(all[i - 1].created_at >= all[i].created_at).toBe(true);
      expect(all.slice(0, 3).map((a) => a.job_id)).toEqual(ivys.map((a) => a.job_id));

      const one = await w.org.owner.api.get(`/api/v1/organizations/${w.org.id}/staff-activity?limit=1`);
      expect(one.body.activity.map((a: any) => a.job_id)).toEqual([jobs.plain.job_id]);

      const older = await activity(
        w,
        `staff_user_id=${ivy.account.user_id}&before=${encodeURIComponent(jobs.plain.created_at)}`,
      );
      expect(older.map((a) => a.job_id)).toEqual([jobs.failed.job_id, jobs.tool.job_id]);
    });

    it("a member who cannot see a private space does not get its entries", async () => {
      const made = await w.org.owner.api.post(`/api/v1/organizations/${w.org.id}/spaces`, {
        name: "Board room",
        private: true,
      });
      const hidden = made.body.id;
      expect(
        (await w.org.owner.api.post(`${spacePath(w, hidden)}/members`, { user_id: ivy.account.user_id })).status,
      ).toBe(201);
      const roomId = (await w.org.owner.api.get(`${spacePath(w, hidden)}/chat-rooms`)).body.chat_rooms[0].id;
      const source = await say(w, "@Ivy the secret numbers", { roomId, spaceId: hidden });
      const [entry] = await settled(w, "source_message_id", source.id);
      expect(entry.space_id).toBe(hidden);

      const seenByOwner = await activity(w, `staff_user_id=${ivy.account.user_id}`);
      expect(seenByOwner.map((a) => a.job_id)).toEqual([
        entry.job_id,
        jobs.plain.job_id,
        jobs.failed.job_id,
        jobs.tool.job_id,
      ]);
      const seenByOutsider = await activity(w, `staff_user_id=${ivy.account.user_id}`, outsider.api);
      expect(seenByOutsider.map((a) => a.job_id)).toEqual([jobs.plain.job_id, jobs.failed.job_id, jobs.tool.job_id]);
      const everything = await activity(w, "", outsider.api);
      expect(everything.some((a) => a.space_id === hidden)).toBe(false);
      expect(everything.length).toBeGreaterThan(0);
    });

    it("pages by before without skipping entries queued by one message: each has a time of its own", async () => {
      const kit = await addStaff(w.org, { name: "Kit" });
      const lou = await addStaff(w.org, { name: "Lou" });
      const source = await say(w, "@Kit and @Lou, both of you please");
      const both = await settled(w, "source_message_id", source.id, 2);
      expect(new Set(both.map((a) => a.staff_user_id))).toEqual(new Set([kit.account.user_id, lou.account.user_id]));
      expect(both[0].created_at).not.toBe(both[1].created_at);

      const page = async (query: string) => {
        const res = await w.org.owner.api.get(`/api/v1/organizations/${w.org.id}/staff-activity?limit=1${query}`);
        expect(res.status).toBe(200);
        return res.body.activity as any[];
      };
      const [newest] = await page("");
      const [next] = await page(`&before=${encodeURIComponent(newest.created_at)}`);
      expect([newest.job_id, next.job_id].sort()).toEqual(both.map((a) => a.job_id).sort());
    });
  });
});

// Other settings, each on its own server

describe("MODELROUTER_* settings", () => {
  it("custom path, web search settings, no datetime, reasoning, max_tokens, plugins, no pre-read", async () => {
    const w = await startWorld({
      MODELROUTER_CHAT_COMPLETIONS_PATH: "/gateway/complete",
      MODELROUTER_WEB_SEARCH_ENGINE: "bing",
      MODELROUTER_WEB_SEARCH_MAX_RESULTS: "3",
      MODELROUTER_WEB_SEARCH_MAX_TOTAL_RESULTS: "9",
      MODELROUTER_DATETIME_TOOL: "false",
      MODELROUTER_CHAT_REASONING_JSON: '{"effort":"high","max_tokens":2000}',
      MODELROUTER_CHAT_MAX_TOKENS: "4000",
      MODELROUTER_PLUGINS_JSON: '[{"id":"web"}]',
      MODELROUTER_CHAT_SKIP_PREREAD: "true",
    });
    try {
      const ada = await addStaff(w.org, { name: "Ada" });
      await textFile(w, "spec.md", SPEC_TEXT);
      await say(w, "An earlier line SKIPPED-LINE-5");
      const source = await say(w, "@Ada summarise spec.md");
      const [job] = await settled(w, "source_message_id", source.id);
      expect(job.status).toBe("done");
      expect(w.fake.requests).toHaveLength(1);
      const req = w.fake.requests[0] as SeenRequest;
      expect(req.path).toBe("/api/v1/gateway/complete");
      expect(req.headers.authorization).toBe(`Bearer ${w.key}`);
      expect(Object.keys(req.body).sort()).toEqual([
        "max_tokens",
        "messages",
        "model",
        "plugins",
        "reasoning",
        "tools",
      ]);
      expect(req.body.reasoning).toEqual({ effort: "high", max_tokens: 2000 });
      expect(req.body.max_tokens).toBe(4000);
      expect(req.body.plugins).toEqual([{ id: "web" }]);
      expect(req.body.tools).toHaveLength(N + 1);
      expectFunctionTools(req.body.tools);
      expect(req.body.tools[N]).toEqual({
        type: "openrouter:web_search",
        parameters: { engine: "bing", max_results: 3, max_total_results: 9 },
      });
      const system: string = req.body.messages[0].content;
      expect(system).toContain("You are Ada");
      expect(system).not.toContain("Recent conversation");
      expect(system).not.toContain("SKIPPED-LINE-5");
      expect(system).not.toContain("SPEC-BODY-7f3a");
      expect(req.body.messages[1]).toEqual({ role: "user", content: `${OWNER_NAME}: @Ada summarise spec.md` });
      const replies = (await listing(w)).messages.filter((m) => m.author_user_id === ada.account.user_id);
      expect(replies.map((m) => m.content)).toEqual(["Answer from Ada."]);
    } finally {
      await w.stop();
    }
  });

  it("MODELROUTER_CHAT_TOOLS_ENABLED=false sends no tools key at all", async () => {
    const w = await startWorld({ MODELROUTER_CHAT_TOOLS_ENABLED: "false" });
    try {
      await addStaff(w.org, { name: "Ada" });
      const source = await say(w, "@Ada no tools");
      await settled(w, "source_message_id", source.id);
      expect(w.fake.requests).toHaveLength(1);
      expect(Object.keys(w.fake.requests[0]?.body).sort()).toEqual(["messages", "model"]);
      // Nor does the prompt tell the model to call tools it is not offered.
      const system = w.fake.requests[0]?.body.messages[0].content as string;
      expect(system).not.toContain("propose_");
      expect(system).toContain("You cannot change the space's files or start automations");
    } finally {
      await w.stop();
    }
  });

  it("MODELROUTER_WEB_SEARCH_TOOL=false leaves the web search entry out", async () => {
    const w = await startWorld({ MODELROUTER_WEB_SEARCH_TOOL: "false" });
    try {
      await addStaff(w.org, { name: "Ada" });
      const source = await say(w, "@Ada no search");
      await settled(w, "source_message_id", source.id);
      const tools = w.fake.requests[0]?.body.tools;
      expect(tools).toHaveLength(N + 1);
      expectFunctionTools(tools);
      expect(tools[N]).toEqual(DATETIME);
      expect(tools.some((t: any) => t.type === "openrouter:web_search")).toBe(false);
    } finally {
      await w.stop();
    }
  });

  it("MODELROUTER_CHAT_MAX_TOOL_ITERATIONS=2: two tool rounds, then one request without tools", async () => {
    const w = await startWorld({ MODELROUTER_CHAT_MAX_TOOL_ITERATIONS: "2" });
    try {
      w.fake.handle((req) =>
        req.body.tools
          ? completion(null, [{ name: "list_space_files", arguments: {} }])
          : completion("Enough tools, here is the answer."),
      );
      const ada = await addStaff(w.org, { name: "Ada" });
      const source = await say(w, "@Ada loop forever");
      const [job] = await settled(w, "source_message_id", source.id);
      expect(job.status).toBe("done");
      expect(w.fake.requests).toHaveLength(3);
      expect(w.fake.requests.map((r) => "tools" in r.body)).toEqual([true, true, false]);
      expect(functionToolsOf(w.fake.requests[0]?.body.tools)).toHaveLength(N);
      expect(w.fake.requests[2]?.body.messages.map((m: any) => m.role)).toEqual([
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
      ]);
      expect(job.tool_calls.map((c: any) => c.name)).toEqual(["list_space_files", "list_space_files"]);
      const replies = (await listing(w)).messages.filter((m) => m.author_user_id === ada.account.user_id);
      expect(replies.map((m) => m.content)).toEqual(["Enough tools, here is the answer."]);
    } finally {
      await w.stop();
    }
  });

  it("a gateway that never answers: a failure reply once the context timeout passes", async () => {
    const w = await startWorld({}, { contextTimeoutMs: 500 });
    try {
      w.fake.handle(() => new Promise<Response>(() => {}));
      const ada = await addStaff(w.org, { name: "Ada" });
      const listener = await listen(w.server.url, w.org.id, w.org.owner.token);
      const source = await say(w, "@Ada are you awake?");
      const [job] = await settled(w, "source_message_id", source.id);
      expect(job.status).toBe("failed");
      expect(w.fake.requests).toHaveLength(1);
      const replies = (await listing(w)).messages.filter((m) => m.author_user_id === ada.account.user_id);
      expect(replies).toHaveLength(1);
      expect(replies[0].content.startsWith(FAILURE_PREFIX)).toBe(true);
      const failed = await listener.next((e) => e.type === "ai.reply.failed");
      expect(failed.payload.reply_message_id).toBe(replies[0].id);
      expect(failed.payload.error).toEqual(expect.any(String));
      listener.close();
    } finally {
      await w.stop();
    }
  });
});
