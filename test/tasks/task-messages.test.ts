import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, addStaff, type Org, type Person, setupOrg } from "../helpers/factories";
import { TIMESTAMP, UUID } from "../helpers/http";
import { startTestServer, type TestServer } from "../helpers/server";

const UNKNOWN = "01a1fdb9-0000-7000-8000-000000000000";
const MESSAGE_FIELDS = ["author_user_id", "content", "created_at", "id", "task_id"];

interface Message {
  id: string;
  task_id: string;
  author_user_id: string | null;
  content: string;
  created_at: string;
}

let server: TestServer;
let org: Org;
let member: Person;
let viewer: Person;
let base: string;
let tasksPath: string;
let todo: string;

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server, "Acme Messages");
  base = `/api/v1/organizations/${org.id}`;
  member = await addMember(org, ["Member"], "Mia Member");
  viewer = await addMember(org, ["Viewer"], "Vic Viewer");
  const space = await member.api.post(`${base}/spaces`, { name: "Messages space" });
  tasksPath = `${base}/spaces/${space.body.id}/tasks`;
  const board = await member.api.get(`${base}/spaces/${space.body.id}/board`);
  todo = board.body.columns[0].id;
});
afterAll(() => server.stop());

/** A new task; returns the path of its messages. */
async function newTask(title = "Discuss"): Promise<string> {
  const res = await member.api.post(tasksPath, { title, column_id: todo });
  expect(res.status).toBe(201);
  return `${tasksPath}/${res.body.id}/messages`;
}

async function post(path: string, content: string, who: Person = member): Promise<Message> {
  const res = await who.api.post(path, { content });
  if (res.status !== 201) throw new Error(`post failed: ${res.status} ${res.text}`);
  return res.body;
}

/** Posts `n` messages `m0`..`m{n-1}`, `parallel` at a time, and answers them in the server's order. */
async function postMany(path: string, n: number, parallel = 1): Promise<Message[]> {
  const out: Message[] = [];
  for (let i = 0; i < n; i += parallel) {
    const batch = [];
    for (let j = i; j < Math.min(n, i + parallel); j++) batch.push(post(path, `m${j}`));
    out.push(...(await Promise.all(batch)));
  }
  return out.sort((a, b) =>
    a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1,
  );
}

async function list(path: string, query = "", who: Person = member) {
  return who.api.get(`${path}${query}`);
}

describe("POST .../tasks/{taskId}/messages", () => {
  it("answers 201 with the message unwrapped: {id, task_id, author_user_id, content, created_at}", async () => {
    const path = await newTask();
    const taskId = path.split("/").at(-2);
    const res = await member.api.post(path, { content: "Looks good to me" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(MESSAGE_FIELDS);
    expect(res.body).toMatchObject({ task_id: taskId, author_user_id: member.id, content: "Looks good to me" });
    expect(res.body.id).toMatch(UUID);
    expect(res.body.created_at).toMatch(TIMESTAMP);
  });

  it("keeps the content as sent, unicode and newlines included", async () => {
    const path = await newTask();
    const content = "Line one\nLine two — ✅ 👨‍👩‍👧";
    const m = await post(path, content);
    expect(m.content).toBe(content);
    expect((await list(path)).body.messages[0].content).toBe(content);
  });

  it("answers 400 for blank or missing content, naming the field", async () => {
    const path = await newTask();
    for (const content of ["", "   ", "\n\t", "\u200b", "\u2800\u200d"]) {
      const res = await member.api.post(path, { content });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "content: must not be empty" });
    }
    const missing = await member.api.post(path, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: "content: required" });
    const wrongType = await member.api.post(path, { content: 5 });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toEqual({ error: "content: must be a string" });
    expect((await list(path)).body).toEqual({ messages: [] });
  });

  it("needs tasks.write: a Viewer gets 403 missing permission: tasks.write", async () => {
    const path = await newTask();
    const res = await viewer.api.post(path, { content: "Viewer speaking" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: tasks.write" });
    expect((await list(path)).body).toEqual({ messages: [] });
  });

  it("lets a staff member (AI Staff holds tasks.write) comment as its own user", async () => {
    const staff = await addStaff(org);
    const path = await newTask();
    const res = await staff.api.post(path, { content: "On it" });
    expect(res.status).toBe(201);
    expect(res.body.author_user_id).toBe(staff.account.user_id);
  });

  it("answers 404 task not found for an unknown or malformed task", async () => {
    for (const id of [UNKNOWN, "nope"]) {
      const res = await member.api.post(`${tasksPath}/${id}/messages`, { content: "hello" });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "task not found" });
    }
  });
});

describe("GET .../tasks/{taskId}/messages", () => {
  it("answers {messages} in chronological order, only the task's own, to a Viewer too", async () => {
    const path = await newTask();
    const other = await newTask("Other");
    const a = await post(path, "first");
    await post(other, "elsewhere");
    const b = await post(path, "second", member);
    const c = await post(path, "third", org.owner);
    const res = await list(path, "", viewer);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["messages"]);
    expect(res.body.messages).toEqual([a, b, c]);
    for (const m of res.body.messages) expect(Object.keys(m).sort()).toEqual(MESSAGE_FIELDS);
  });

  it("answers {messages: []} for a task without messages", async () => {
    const path = await newTask();
    const res = await list(path);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ messages: [] });
  });

  it("answers 404 task not found for an unknown or malformed task", async () => {
    for (const id of [UNKNOWN, "nope"]) {
      const res = await member.api.get(`${tasksPath}/${id}/messages`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "task not found" });
    }
  });

  describe("limit", () => {
    let path: string;
    let all: Message[];

    beforeAll(async () => {
      path = await newTask("Chatty task");
      all = await postMany(path, 210, 10);
    });

    it("stamps the messages of a task with strictly increasing times", () => {
      for (let i = 1; i < all.length; i++) {
        expect((all[i - 1] as Message).created_at < (all[i] as Message).created_at).toBe(true);
      }
    });

    it("defaults to the newest 50, oldest first", async () => {
      const res = await list(path);
      expect(res.status).toBe(200);
      expect(res.body.messages).toEqual(all.slice(-50));
    });

    it("answers the newest limit messages, oldest first", async () => {
      expect((await list(path, "?limit=1")).body.messages).toEqual(all.slice(-1));
      expect((await list(path, "?limit=7")).body.messages).toEqual(all.slice(-7));
      expect((await list(path, "?limit=200")).body.messages).toEqual(all.slice(-200));
    });

    it("clamps a limit above 200 to 200", async () => {
      for (const limit of [201, 500, 1000000, "9007199254740993", "99999999999999999999999"]) {
        const res = await list(path, `?limit=${limit}`);
        expect(res.status).toBe(200);
        expect(res.body.messages).toHaveLength(200);
        expect(res.body.messages).toEqual(all.slice(-200));
      }
    });

    it("answers 400 invalid limit for 0, a negative number or something not a whole number", async () => {
      for (const limit of ["0", "-1", "abc", "1.5", "", "0x10", "1e2", "+5", "%2010", "300.0"]) {
        const res = await list(path, `?limit=${limit}`);
        expect({ limit, status: res.status, body: res.body }).toEqual({
          limit,
          status: 400,
          body: { error: "invalid limit" },
        });
      }
    });

    it("answers 400 invalid before for something that is not an RFC 3339 timestamp", async () => {
      for (const before of ["yesterday", "2026-13-01T00:00:00Z", "2026-01-01", "1700000000000"]) {
        const res = await list(path, `?before=${encodeURIComponent(before)}`);
        expect({ before, status: res.status, body: res.body }).toEqual({
          before,
          status: 400,
          body: { error: "invalid before" },
        });
      }
    });

    it("answers only messages created strictly before before", async () => {
      const pivot = all[100] as Message;
      const res = await list(path, `?limit=10&before=${encodeURIComponent(pivot.created_at)}`);
      expect(res.status).toBe(200);
      expect(res.body.messages).toEqual(all.slice(90, 100));
      const early = await list(path, `?before=${encodeURIComponent((all[0] as Message).created_at)}`);
      expect(early.body).toEqual({ messages: [] });
      const later = await list(path, `?limit=3&before=${encodeURIComponent("2999-01-01T00:00:00Z")}`);
      expect(later.body.messages).toEqual(all.slice(-3));
    });

    it("accepts before with an offset", async () => {
      const pivot = all[20] as Message;
      const ms = Date.parse(pivot.created_at);
      // The same instant written at +02:00.
      const shifted = new Date(ms + 2 * 3600 * 1000).toISOString().replace("Z", "+02:00");
      const res = await list(path, `?limit=5&before=${encodeURIComponent(shifted)}`);
      expect(res.status).toBe(200);
      expect(res.body.messages).toEqual(all.slice(15, 20));
    });
  });

  it("counts a message at the same millisecond as a sub-millisecond before as created before it", async () => {
    const path = await newTask("Sub-millisecond");
    const a = await post(path, "a");
    await Bun.sleep(3);
    const b = await post(path, "b");
    // b was created at b.created_at, which is strictly earlier than the same millisecond plus 999 µs.
    const before = b.created_at.replace("Z", "999Z");
    const res = await list(path, `?before=${encodeURIComponent(before)}`);
    expect(res.status).toBe(200);
    // b (…mmmZ) is strictly before …mmm999Z: a sub-millisecond `before` must still include b.
    expect(res.body.messages).toEqual([a, b]);
  });

  it("pages back with before = created_at of the oldest message: no gaps, no repeats", async () => {
    const path = await newTask("Paged task");
    // Many at once, so several arrive within the same millisecond.
    const posted = await postMany(path, 120, 12);
    const seen: Message[] = [];
    let query = "?limit=25";
    for (let pages = 0; pages < 20; pages++) {
      const res = await list(path, query);
      expect(res.status).toBe(200);
      const page = res.body.messages as Message[];
      if (page.length === 0) break;
      expect(page.length).toBeLessThanOrEqual(25);
      seen.unshift(...page);
      query = `?limit=25&before=${encodeURIComponent((page[0] as Message).created_at)}`;
    }
    expect(seen).toHaveLength(120);
    expect(new Set(seen.map((m) => m.id)).size).toBe(120);
    expect(seen).toEqual(posted);
    expect(new Set(seen.map((m) => m.content))).toEqual(new Set(posted.map((m) => m.content)));
  });

  it("pages back with the default limit too", async () => {
    const path = await newTask("Paged by default");
    const posted = await postMany(path, 110, 11);
    const first = (await list(path)).body.messages as Message[];
    const second = (await list(path, `?before=${encodeURIComponent((first[0] as Message).created_at)}`)).body
      .messages as Message[];
    const third = (await list(path, `?before=${encodeURIComponent((second[0] as Message).created_at)}`)).body
      .messages as Message[];
    expect([first.length, second.length, third.length]).toEqual([50, 50, 10]);
    expect([...third, ...second, ...first]).toEqual(posted);
  });
});
