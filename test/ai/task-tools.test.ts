/**
 * Staff task tools (contract §11 "Staff task tools"; docs/api.md "`modelrouter` requests"): a staff member asked in
 * chat reads the board (`list_tasks`, `read_task`) and, with `tasks.write` (its own and the asker's), creates,
 * moves and comments on tasks, as itself, through the same rules as REST. A loopback fake gateway asks for the
 * tools; what they did is checked over REST, the live-events socket, and the tool results the gateway was sent.
 */

import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, addStaff, type Org, type Person } from "../helpers/factories";
import { completion, type FakeHandler, type FakeProvider } from "../helpers/fake-providers";
import { type GatewayWorld, gatewayWorld } from "../helpers/gateway-world";
import type { Client } from "../helpers/http";
import { eventually, type Listener } from "../helpers/sockets";

const WRITING = ["create_task", "move_task", "comment_task"];

let fake: FakeProvider;
let org: Org;
let mia: Person;
let ada: Awaited<ReturnType<typeof addStaff>>;
let listener: Listener;
let spaceId: string;
let roomId: string;
let columns: { id: string; name: string }[];

const spacePath = () => `/api/v1/organizations/${org.id}/spaces/${spaceId}`;
const messagesPath = () => `${spacePath()}/chat-rooms/${roomId}/messages`;

/** One tool call, then (once its result came back) an answer quoting it. */
function callThenAnswer(name: string, args: unknown, answer: (result: string) => string): FakeHandler {
  return (req) => {
    const last = req.body.messages.at(-1);
    return last.role === "tool" ? completion(answer(last.content)) : completion(null, [{ name, arguments: args }]);
  };
}

/** Asks Ada in chat as `as`; waits for her reply and answers it with the gateway requests of this reply. */
async function ask(content: string, as: Client = org.owner.api) {
  const mark = fake.requests.length;
  const posted = await as.post(messagesPath(), { content });
  if (posted.status !== 201) throw new Error(`post failed: ${posted.status} ${posted.text}`);
  const source = posted.body.message;
  let reply: any;
  await eventually(() => {
    reply = listener.events.find(
      (e) =>
        e.type.startsWith("ai.reply.") && e.type !== "ai.reply.started" && e.payload.source_message_id === source.id,
    );
    return reply !== undefined;
  }, "the reply to end");
  const listing = await org.owner.api.get(`${messagesPath()}?limit=200`);
  const message = listing.body.messages.find((m: { id: string }) => m.id === reply.payload.reply_message_id);
  const requests = fake.requests.slice(mark);
  const toolResult = requests.at(-1)?.body.messages.find((m: { role: string }) => m.role === "tool")?.content;
  return { event: reply, message, requests, toolResult: toolResult as string | undefined };
}

async function tasks(): Promise<any[]> {
  return (await org.owner.api.get(`${spacePath()}/tasks`)).body.tasks;
}

async function newTask(body: Record<string, unknown>): Promise<any> {
  const res = await org.owner.api.post(`${spacePath()}/tasks`, body);
  if (res.status !== 201) throw new Error(`task create failed: ${res.status} ${res.text}`);
  return res.body;
}

const column = (name: string) => columns.find((c) => c.name === name)?.id as string;
const functionNames = (req: any): string[] =>
  (req.body.tools ?? []).filter((t: any) => t.type === "function").map((t: any) => t.function.name);

let world: GatewayWorld;

beforeAll(async () => {
  world = await gatewayWorld();
  ({ fake, org, spaceId, roomId, listener } = world);
  mia = await addMember(org, ["Member"], "Mia Member");
  ada = await addStaff(org, { name: "Ada" });
  columns = (await org.owner.api.get(`${spacePath()}/board`)).body.columns;
});
afterAll(() => world.stop());

describe("list_tasks", () => {
  it("gives the board, columns in order with their tasks, and the answer quotes it", async () => {
    const post = await newTask({
      title: "Write the launch post",
      column_id: column("To do"),
      assignee_user_id: mia.id,
      due_at: "2026-12-01T09:00:00Z",
    });
    const login = await newTask({ title: "Fix the login page", column_id: column("In progress") });
    fake.handle(callThenAnswer("list_tasks", {}, () => "Left: Write the launch post."));
    const { event, message, toolResult } = await ask("@Ada what is left on the board?");
    expect(event.type).toBe("ai.reply.finished");
    expect(message.content).toBe("Left: Write the launch post.");
    expect(toolResult).toBe(
      [
        'The board of the space "Launch": 4 columns, 2 tasks.',
        "",
        'Column "To do" (1 task):',
        `- "Write the launch post" (id ${post.id}; assignee Mia Member; due 2026-12-01T09:00:00.000Z; 0 comments)`,
        "",
        'Column "In progress" (1 task):',
        `- "Fix the login page" (id ${login.id}; 0 comments)`,
        "",
        'Column "Review" (0 tasks):',
        "(no tasks)",
        "",
        'Column "Done" (0 tasks):',
        "(no tasks)",
      ].join("\n"),
    );
  });
});

describe("read_task", () => {
  it("reads a task by its title: fields, description and comments oldest first", async () => {
    const task = await newTask({
      title: "Draft the changelog",
      column_id: column("Review"),
      description: "Everything since 1.2, grouped by area.",
    });
    const comments = `${spacePath()}/tasks/${task.id}/messages`;
    await org.owner.api.post(comments, { content: "First pass done" });
    await mia.api.post(comments, { content: "Please add the API changes" });
    fake.handle(callThenAnswer("read_task", { task: "draft the CHANGELOG" }, () => "It needs the API changes."));
    const { event, toolResult } = await ask("@Ada where is the changelog at?");
    expect(event.type).toBe("ai.reply.finished");
    const result = toolResult as string;
    expect(result).toStartWith(`Task "Draft the changelog" in column "Review"\nid ${task.id}\n`);
    expect(result).toContain(`Link: /spaces/${spaceId}/board?task=${task.id}`);
    expect(result).toContain("Description:\nEverything since 1.2, grouped by area.");
    const lines = result.split("Comments (2):\n")[1]?.split("\n") ?? [];
    expect(lines.map((l) => l.replace(/^\[[^\]]+\] /, ""))).toEqual([
      "Olivia Owner: First pass done",
      "Mia Member: Please add the API changes",
    ]);
  });

  it("an unknown task is the tool's result, told to the model, and the reply still answers", async () => {
    fake.handle(callThenAnswer("read_task", { task: "No such thing" }, (r) => `Tool said: ${r}`));
    const { event, message } = await ask("@Ada read the missing task");
    expect(event.type).toBe("ai.reply.finished");
    expect(message.content).toBe('Tool said: no task "No such thing" on this board');
  });
});

describe("create_task, move_task, comment_task", () => {
  it("create_task makes a task as the staff member, in the column named, and the reply links it", async () => {
    fake.handle(
      callThenAnswer(
        "create_task",
        { title: "Book the venue", column: "review", assignee: "mia member", due_at: "2026-12-24", description: "x" },
        () => "Done: I created it.",
      ),
    );
    const { event, message, toolResult } = await ask("@Ada please add a task to book the venue");
    expect(event.type).toBe("ai.reply.finished");
    const created = (await tasks()).find((t) => t.title === "Book the venue");
    expect(created).toMatchObject({
      column_id: column("Review"),
      assignee_user_id: mia.id,
      due_at: "2026-12-24T00:00:00.000Z",
      description: "x",
      created_by: ada.account.user_id,
    });
    const link = `[Task “Book the venue”](/spaces/${spaceId}/board?task=${created.id})`;
    expect(toolResult).toBe(`Created ${link} (id ${created.id}) in column "Review".`);
    // The answer did not link it: the reply does.
    expect(message.content).toBe(`Done: I created it.\n\n→ ${link}`);
    const announced = listener.events.find((e) => e.type === "task.created" && e.payload.id === created.id);
    expect(announced?.payload).toEqual(created);
  });

  it("create_task and move_task into a column at its WIP limit are refused, and the model is told why", async () => {
    const board = `${spacePath()}/board/columns`;
    const full = await org.owner.api.post(board, { name: "Focus", wip_limit: 1 });
    expect(full.status).toBe(201);
    await newTask({ title: "Already focused", column_id: full.body.column.id });
    const waiting = await newTask({ title: "Waiting its turn", column_id: column("To do") });
    fake.handle(callThenAnswer("create_task", { title: "One more focus", column: "Focus" }, (r) => `Told: ${r}`));
    const created = await ask("@Ada add a task to Focus");
    expect(created.event.type).toBe("ai.reply.finished");
    expect(created.toolResult).toContain("column is at its limit");
    expect((await tasks()).some((t) => t.title === "One more focus")).toBe(false);
    fake.handle(callThenAnswer("move_task", { task: "Waiting its turn", column: "Focus" }, (r) => `Told: ${r}`));
    const moved = await ask("@Ada move Waiting its turn to Focus");
    expect(moved.toolResult).toContain("column is at its limit");
    expect((await tasks()).find((t) => t.id === waiting.id)?.column_id).toBe(column("To do"));
    // A person may go over it.
    expect(
      (await org.owner.api.patch(`${spacePath()}/tasks/${waiting.id}`, { column_id: full.body.column.id })).status,
    ).toBe(200);
    for (const t of (await tasks()).filter((t) => t.column_id === full.body.column.id))
      expect((await org.owner.api.delete(`${spacePath()}/tasks/${t.id}`)).status).toBe(204);
    expect((await org.owner.api.delete(`${board}/${full.body.column.id}`)).status).toBe(204);
  });

  it("a reply that links what it made already gets no second link", async () => {
    fake.handle((req) => {
      const last = req.body.messages.at(-1);
      if (last.role !== "tool") return completion(null, [{ name: "create_task", arguments: { title: "Order pizza" } }]);
      return completion(`Here it is: ${/\[[^\]]+\]\([^)]+\)/.exec(last.content)?.[0]}`);
    });
    const { message } = await ask("@Ada add a task to order pizza");
    const created = (await tasks()).find((t) => t.title === "Order pizza");
    expect(created.column_id).toBe(column("To do"));
    expect(message.content).toBe(`Here it is: [Task “Order pizza”](/spaces/${spaceId}/board?task=${created.id})`);
  });

  it("move_task moves a task by title to a column by name, at a position, as an update", async () => {
    await newTask({ title: "Ship it", column_id: column("To do") });
    await newTask({ title: "Already done", column_id: column("Done") });
    fake.handle(callThenAnswer("move_task", { task: "Ship it", column: "Done", position: 0 }, () => "Moved."));
    const { event, toolResult } = await ask("@Ada move Ship it to Done, on top");
    expect(event.type).toBe("ai.reply.finished");
    const done = (await tasks()).filter((t) => t.column_id === column("Done"));
    expect(done.map((t) => t.title)).toEqual(["Ship it", "Already done"]);
    const moved = done[0];
    expect(moved.version).toBe(2);
    expect(toolResult).toBe(
      `Moved [Task “Ship it”](/spaces/${spaceId}/board?task=${moved.id}) to column "Done", position 0.`,
    );
    expect(listener.events.some((e) => e.type === "task.updated" && e.payload.id === moved.id)).toBe(true);
  });

  it("move_task to a column that does not exist tells the model the columns there are", async () => {
    fake.handle(callThenAnswer("move_task", { task: "Ship it", column: "Backlog" }, (r) => r));
    const { event, message } = await ask("@Ada move Ship it to the backlog");
    expect(event.type).toBe("ai.reply.finished");
    expect(message.content).toBe(
      'no column "Backlog" on this board; its columns are "To do", "In progress", "Review", "Done"',
    );
  });

  it("comment_task posts on the task as the staff member, and wakes no staff", async () => {
    const task = await newTask({ title: "Plan the demo", column_id: column("To do") });
    fake.handle(
      callThenAnswer("comment_task", { task: task.id, content: "I can run the demo, @Ada included." }, () => "Noted."),
    );
    const mark = fake.requests.length;
    const { event } = await ask("@Ada note on the demo task that you can run it");
    expect(event.type).toBe("ai.reply.finished");
    const comments = (await org.owner.api.get(`${spacePath()}/tasks/${task.id}/messages`)).body.messages;
    expect(comments).toHaveLength(1);
    expect(comments[0]).toMatchObject({
      author_user_id: ada.account.user_id,
      content: "I can run the demo, @Ada included.",
    });
    await Bun.sleep(200);
    // Two gateway requests (the call, the answer): the comment naming Ada queued no reply of hers.
    expect(fake.requests.length - mark).toBe(2);
  });

  it("comment_task refuses an empty comment with the API's message", async () => {
    fake.handle(callThenAnswer("comment_task", { task: "Plan the demo", content: "  " }, (r) => r));
    const { message } = await ask("@Ada comment nothing");
    expect(message.content).toBe("content: must not be empty");
  });
});

describe("who may write", () => {
  it("offers the writing tools only when the staff member and the person who asked hold tasks.write", async () => {
    fake.handle(() => completion("ok"));
    const everything = await ask("@Ada hello");
    expect(functionNames(everything.requests[0])).toEqual(
      expect.arrayContaining(["list_tasks", "read_task", ...WRITING]),
    );

    // A person who may chat but not write tasks: Ada reads the board for them, and writes nothing.
    const role = await org.owner.api.post(`/api/v1/organizations/${org.id}/roles`, {
      name: "Chat only",
      permissions: ["chat.write", "files.read"],
    });
    const chatty = await addMember(org, ["Member"], "Cal Chatty");
    await org.owner.api.put(`/api/v1/organizations/${org.id}/members/${chatty.id}/roles`, {
      role_ids: [role.body.role.id],
    });
    const forChatty = await ask("@Ada hello from me", chatty.api);
    const offered = functionNames(forChatty.requests[0]);
    expect(offered).toEqual(expect.arrayContaining(["list_tasks", "read_task"]));
    for (const name of WRITING) expect(offered).not.toContain(name);
    expect(forChatty.requests[0]?.body.messages[0].content).toContain(
      "call list_tasks, and read_task for one task; you cannot change it",
    );
    expect(everything.requests[0]?.body.messages[0].content).toContain(
      "create_task, move_task and comment_task change it",
    );

    // A staff member without tasks.write reads the board only, whoever asks.
    const reader = await addStaff(org, { name: "Rhea", role_ids: [role.body.role.id] });
    const mark = fake.requests.length;
    const posted = await org.owner.api.post(messagesPath(), { content: "@Rhea hello" });
    expect(posted.status).toBe(201);
    await eventually(() => fake.requests.length > mark, "Rhea's request");
    const byReader = functionNames(fake.requests[mark]);
    expect(byReader).toEqual(expect.arrayContaining(["list_tasks", "read_task"]));
    for (const name of WRITING) expect(byReader).not.toContain(name);
    expect(reader.account.user_id).toBeDefined();
  });
});
