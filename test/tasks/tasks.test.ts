import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, addStaff, type Org, type Person, setupOrg } from "../helpers/factories";
import { TIMESTAMP, UUID } from "../helpers/http";
import { startTestServer, type TestServer } from "../helpers/server";

const UNKNOWN = "01a1fdb9-0000-7000-8000-000000000000";
const TASK_FIELDS = [
  "assignee_user_id",
  "board_id",
  "column_id",
  "comment_count",
  "created_at",
  "created_by",
  "deliverable_instructions",
  "deliverable_required",
  "description",
  "due_at",
  "id",
  "label_ids",
  "position",
  "priority",
  "space_id",
  "title",
  "updated_at",
  "version",
];

interface Task {
  id: string;
  space_id: string;
  board_id: string;
  column_id: string;
  title: string;
  description: string;
  assignee_user_id: string | null;
  due_at: string | null;
  deliverable_required: boolean;
  deliverable_instructions: string;
  position: number;
  label_ids: string[];
  priority: string;
  comment_count: number;
  version: number;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

interface Space {
  id: string;
  boardId: string;
  /** Column ids in board order: To do, In progress, Review, Done. */
  columns: [string, string, string, string];
  tasks: string;
}

let server: TestServer;
let org: Org;
let member: Person;
let viewer: Person;
let base: string;
let space: Space;
let otherSpace: Space;

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server, "Acme Tasks");
  base = `/api/v1/organizations/${org.id}`;
  member = await addMember(org, ["Member"], "Mia Member");
  viewer = await addMember(org, ["Viewer"], "Vic Viewer");
  space = await createSpace(member, "Tasks space");
  otherSpace = await createSpace(member, "Other space");
});
afterAll(() => server.stop());

async function createSpace(who: Person, name: string, extra: Record<string, unknown> = {}): Promise<Space> {
  const res = await who.api.post(`${base}/spaces`, { name, ...extra });
  expect(res.status).toBe(201);
  const board = await who.api.get(`${base}/spaces/${res.body.id}/board`);
  return {
    id: res.body.id,
    boardId: board.body.board.id,
    columns: board.body.columns.map((c: { id: string }) => c.id) as Space["columns"],
    tasks: `${base}/spaces/${res.body.id}/tasks`,
  };
}

async function createTask(s: Space, body: Record<string, unknown>, who: Person = member): Promise<Task> {
  const res = await who.api.post(s.tasks, { column_id: s.columns[0], ...body });
  if (res.status !== 201) throw new Error(`create task failed: ${res.status} ${res.text}`);
  return res.body;
}

async function listTasks(s: Space, who: Person = member): Promise<Task[]> {
  const res = await who.api.get(s.tasks);
  expect(res.status).toBe(200);
  return res.body.tasks;
}

/** Titles of a column's tasks in listing order, after checking their positions are exactly 0..n-1. */
async function columnTitles(s: Space, columnId: string): Promise<string[]> {
  const tasks = (await listTasks(s)).filter((t) => t.column_id === columnId);
  expect(tasks.map((t) => t.position)).toEqual(tasks.map((_, i) => i));
  return tasks.map((t) => t.title);
}

async function patch(s: Space, id: string, body: Record<string, unknown>, who: Person = member) {
  return who.api.patch(`${s.tasks}/${id}`, body);
}

/** Deterministic pseudo-random numbers (mulberry32), so a failing sequence can be replayed. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("POST /organizations/{orgId}/spaces/{spaceId}/tasks", () => {
  it("answers 201 with the Task unwrapped: every field, with its type and default", async () => {
    const s = await createSpace(member, "Create shape");
    const res = await member.api.post(s.tasks, { title: "First", column_id: s.columns[0] });
    expect(res.status).toBe(201);
    expect(res.body.task).toBeUndefined();
    const t = res.body as Task;
    expect(Object.keys(t).sort()).toEqual(TASK_FIELDS);
    expect(t.id).toMatch(UUID);
    expect(t).toMatchObject({
      space_id: s.id,
      board_id: s.boardId,
      column_id: s.columns[0],
      title: "First",
      description: "",
      assignee_user_id: null,
      due_at: null,
      deliverable_required: false,
      deliverable_instructions: "",
      position: 0,
      version: 1,
      created_by: member.id,
    });
    expect(t.created_at).toMatch(TIMESTAMP);
    expect(t.updated_at).toMatch(TIMESTAMP);
    expect(t.updated_at).toBe(t.created_at);
  });

  it("stores every optional field; due_at comes back in UTC with three fractional digits", async () => {
    const t = await createTask(space, {
      title: "  Full task  ",
      column_id: space.columns[2],
      description: "All the details",
      assignee_user_id: viewer.id,
      due_at: "2026-11-21T10:30:00+01:00",
      deliverable_required: false,
      deliverable_instructions: "Attach the PDF",
    });
    expect(t).toMatchObject({
      title: "Full task",
      column_id: space.columns[2],
      description: "All the details",
      assignee_user_id: viewer.id,
      due_at: "2026-11-21T09:30:00.000Z",
      deliverable_required: false,
      deliverable_instructions: "Attach the PDF",
      version: 1,
    });
    expect(t.due_at).toMatch(TIMESTAMP);
    const fractional = await createTask(space, { title: "Fractional", due_at: "2026-01-02T03:04:05.678Z" });
    expect(fractional.due_at).toBe("2026-01-02T03:04:05.678Z");
    await member.api.delete(`${space.tasks}/${t.id}`);
    await member.api.delete(`${space.tasks}/${fractional.id}`);
  });

  it("refuses a due_at whose instant falls outside years 0000-9999 in UTC, which it could not answer as written", async () => {
    for (const due_at of ["9999-12-31T23:30:00-01:00", "0000-01-01T00:00:00+01:00"]) {
      const res = await member.api.post(space.tasks, { title: "Edge", column_id: space.columns[0], due_at });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "due_at: must be an RFC 3339 timestamp" });
    }
    const last = await createTask(space, { title: "Last instant", due_at: "9999-12-31T23:59:59.999Z" });
    expect(last.due_at).toBe("9999-12-31T23:59:59.999Z");
    const first = await createTask(space, { title: "First instant", due_at: "0000-01-01T00:00:00Z" });
    expect(first.due_at).toBe("0000-01-01T00:00:00.000Z");
    await member.api.delete(`${space.tasks}/${last.id}`);
    await member.api.delete(`${space.tasks}/${first.id}`);
  });

  it("appends at the bottom of its column: positions 0, 1, 2 per column, version 1", async () => {
    const s = await createSpace(member, "Append");
    const a = await createTask(s, { title: "A" });
    const b = await createTask(s, { title: "B" });
    const x = await createTask(s, { title: "X", column_id: s.columns[1] });
    const c = await createTask(s, { title: "C" });
    expect([a.position, b.position, c.position]).toEqual([0, 1, 2]);
    expect(x.position).toBe(0);
    for (const t of [a, b, c, x]) expect(t.version).toBe(1);
    expect(await columnTitles(s, s.columns[0])).toEqual(["A", "B", "C"]);
  });

  it("gives concurrent creates in one column distinct, dense positions", async () => {
    const s = await createSpace(member, "Concurrent creates");
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) => createTask(s, { title: `c${String(i).padStart(2, "0")}` })),
    );
    expect(created.map((t) => t.position).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    const listed = (await listTasks(s)).map((t) => [t.title, t.position]);
    expect(listed).toEqual(
      [...created].sort((a, b) => a.position - b.position).map((t) => [t.title, t.position] as [string, number]),
    );
  });

  it("accepts a staff member as assignee", async () => {
    const staff = await addStaff(org);
    const t = await createTask(space, { title: "For the bot", assignee_user_id: staff.account.user_id });
    expect(t.assignee_user_id).toBe(staff.account.user_id);
    await member.api.delete(`${space.tasks}/${t.id}`);
  });

  it("answers 400 invalid column for a column of another space", async () => {
    const res = await member.api.post(space.tasks, { title: "Wrong board", column_id: otherSpace.columns[0] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid column" });
    expect((await listTasks(space)).some((t) => t.title === "Wrong board")).toBe(false);
    expect((await listTasks(otherSpace)).some((t) => t.title === "Wrong board")).toBe(false);
  });

  it("answers 400 invalid column for an unknown column", async () => {
    const res = await member.api.post(space.tasks, { title: "Nowhere", column_id: UNKNOWN });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid column" });
  });

  it("answers 400 naming column_id when it is missing or not a UUID", async () => {
    const missing = await member.api.post(space.tasks, { title: "No column" });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: "column_id: required" });
    const bad = await member.api.post(space.tasks, { title: "Bad column", column_id: "todo" });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: "column_id: must be a UUID" });
  });

  it("answers 400 invalid assignee for someone who is not a member of the organization", async () => {
    const res = await member.api.post(space.tasks, {
      title: "Stranger",
      column_id: space.columns[0],
      assignee_user_id: UNKNOWN,
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid assignee" });
  });

  it("answers 400 invalid assignee for a member who was removed from the organization", async () => {
    const leaver = await addMember(org, ["Member"]);
    expect((await org.owner.api.delete(`${base}/members/${leaver.id}`)).status).toBe(204);
    const res = await member.api.post(space.tasks, {
      title: "Leaver's",
      column_id: space.columns[0],
      assignee_user_id: leaver.id,
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid assignee" });
  });

  it("answers 400 invalid assignee in a private space for a member who cannot see it; its members and org.manage holders may be assigned", async () => {
    const hidden = await createSpace(member, "Private tasks", { private: true });
    const outsider = await addMember(org, ["Member"]);
    const insider = await addMember(org, ["Member"]);
    expect((await member.api.post(`${base}/spaces/${hidden.id}/members`, { user_id: insider.id })).status).toBe(201);
    const refused = await member.api.post(hidden.tasks, {
      title: "Not yours to see",
      column_id: hidden.columns[0],
      assignee_user_id: outsider.id,
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: "invalid assignee" });
    const made = await member.api.post(hidden.tasks, { title: "Ours", column_id: hidden.columns[0] });
    const patched = await member.api.patch(`${hidden.tasks}/${made.body.id}`, { assignee_user_id: outsider.id });
    expect(patched.status).toBe(400);
    expect(patched.body).toEqual({ error: "invalid assignee" });
    for (const who of [insider.id, member.id, org.owner.id]) {
      const ok = await member.api.patch(`${hidden.tasks}/${made.body.id}`, { assignee_user_id: who });
      expect(ok.status).toBe(200);
      expect(ok.body.assignee_user_id).toBe(who);
    }
  });

  it("answers 400 title: required without a title, and names title when it is blank", async () => {
    const missing = await member.api.post(space.tasks, { column_id: space.columns[0] });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: "title: required" });
    const blank = await member.api.post(space.tasks, { title: "   ", column_id: space.columns[0] });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ error: "title: must not be empty" });
    const invisible = await member.api.post(space.tasks, { title: "\u200b\u200b", column_id: space.columns[0] });
    expect(invisible.status).toBe(400);
    expect(invisible.body).toEqual({ error: "title: must contain a visible character" });
    const wrongType = await member.api.post(space.tasks, { title: 42, column_id: space.columns[0] });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toEqual({ error: "title: must be a string" });
  });

  it("takes a due_at written with a lower-case t and z, and answers it in the usual form", async () => {
    const res = await member.api.post(space.tasks, {
      title: "Lower-case due",
      column_id: space.columns[0],
      due_at: "2026-12-01t09:30:00.000z",
    });
    expect(res.status).toBe(201);
    expect(res.body.due_at).toBe("2026-12-01T09:30:00.000Z");
  });

  it("answers 400 naming due_at for a date that is not an RFC 3339 timestamp", async () => {
    for (const due_at of ["tomorrow", "2026-13-45T00:00:00Z", "2026-11-21", 1700000000000]) {
      const res = await member.api.post(space.tasks, { title: "Bad due", column_id: space.columns[0], due_at });
      expect(res.status).toBe(400);
      expect(res.body.error).toStartWith("due_at: ");
    }
    const res = await member.api.post(space.tasks, { title: "Bad due", column_id: space.columns[0], due_at: "soon" });
    expect(res.body).toEqual({ error: "due_at: must be an RFC 3339 timestamp" });
    expect((await listTasks(space)).some((t) => t.title === "Bad due")).toBe(false);
  });

  it("answers 400 naming deliverable_required when it is not a boolean", async () => {
    const res = await member.api.post(space.tasks, {
      title: "Bad flag",
      column_id: space.columns[0],
      deliverable_required: "yes",
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "deliverable_required: must be a boolean" });
  });

  it("needs tasks.write: a Viewer gets 403 missing permission: tasks.write", async () => {
    const res = await viewer.api.post(space.tasks, { title: "Viewer's", column_id: space.columns[0] });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: tasks.write" });
  });

  it("answers 401 without a token", async () => {
    const res = await org.anon.post(space.tasks, { title: "Anon", column_id: space.columns[0] });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
  });
});

describe("GET /organizations/{orgId}/spaces/{spaceId}/tasks", () => {
  it("answers {tasks} ordered by column in board order, then position", async () => {
    const s = await createSpace(member, "Ordering");
    const [todo, doing, review, done] = s.columns;
    // Created out of board order on purpose.
    await createTask(s, { title: "done-0", column_id: done });
    await createTask(s, { title: "review-0", column_id: review });
    await createTask(s, { title: "todo-0", column_id: todo });
    await createTask(s, { title: "done-1", column_id: done });
    await createTask(s, { title: "doing-0", column_id: doing });
    await createTask(s, { title: "todo-1", column_id: todo });
    const moved = await createTask(s, { title: "todo-2", column_id: todo });
    // A move puts it first: order follows position, not creation.
    expect((await patch(s, moved.id, { position: 0 })).status).toBe(200);
    const res = await viewer.api.get(s.tasks);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["tasks"]);
    const tasks = res.body.tasks as Task[];
    expect(tasks.map((t) => [t.title, t.position])).toEqual([
      ["todo-2", 0],
      ["todo-0", 1],
      ["todo-1", 2],
      ["doing-0", 0],
      ["review-0", 0],
      ["done-0", 0],
      ["done-1", 1],
    ]);
    for (const t of tasks) expect(Object.keys(t).sort()).toEqual(TASK_FIELDS);
  });

  it("answers {tasks: []} for a space without tasks", async () => {
    const s = await createSpace(member, "Empty");
    const res = await viewer.api.get(s.tasks);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ tasks: [] });
  });

  it("needs only access to the space: a Viewer can list", async () => {
    const t = await createTask(space, { title: "Visible to viewers" });
    const tasks = await listTasks(space, viewer);
    expect(tasks.find((x) => x.id === t.id)).toEqual(t);
  });
});

describe("GET /organizations/{orgId}/spaces/{spaceId}/tasks/{taskId} (an extension)", () => {
  it("answers the task as the list shows it, position included, to anyone who sees the space", async () => {
    await createTask(space, { title: "First of the column" });
    const t = await createTask(space, { title: "One task", description: "details" });
    const res = await viewer.api.get(`${space.tasks}/${t.id}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(TASK_FIELDS);
    expect(res.body).toEqual((await listTasks(space)).find((x) => x.id === t.id));
    expect(res.body.position).toBeGreaterThan(0);
  });

  it("answers 404 task not found for an unknown, malformed or other space's task", async () => {
    const t = await createTask(otherSpace, { title: "Elsewhere" });
    for (const id of [UNKNOWN, "not-a-uuid", t.id]) {
      const res = await member.api.get(`${space.tasks}/${id}`);
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: { error: "task not found" } });
    }
  });
});

describe("PATCH /organizations/{orgId}/spaces/{spaceId}/tasks/{taskId}", () => {
  let t: Task;

  beforeAll(async () => {
    t = await createTask(space, {
      title: "Patch me",
      description: "Original",
      assignee_user_id: member.id,
      due_at: "2026-05-01T12:00:00.000Z",
      deliverable_instructions: "Original instructions",
    });
  });

  /** Patches and checks that exactly `changed` differ from before, version +1 and updated_at not earlier. */
  async function expectPatch(body: Record<string, unknown>, changed: Partial<Task>) {
    const before = t;
    const res = await patch(space, t.id, body);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(TASK_FIELDS);
    expect(res.body).toEqual({
      ...before,
      ...changed,
      version: before.version + 1,
      updated_at: res.body.updated_at,
    });
    expect(res.body.updated_at).toMatch(TIMESTAMP);
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at));
    expect(res.body.created_at).toBe(before.created_at);
    t = res.body;
    // The listing agrees with the answer.
    expect((await listTasks(space)).find((x) => x.id === t.id)).toEqual(t);
  }

  it("changes the title alone, version +1", async () => {
    await expectPatch({ title: "Renamed" }, { title: "Renamed" });
  });

  it("changes the description alone", async () => {
    await expectPatch({ description: "New description" }, { description: "New description" });
  });

  it("changes the deliverable instructions alone", async () => {
    await expectPatch(
      { deliverable_instructions: "New instructions" },
      { deliverable_instructions: "New instructions" },
    );
  });

  it("changes deliverable_required alone, both ways", async () => {
    await expectPatch({ deliverable_required: true }, { deliverable_required: true });
    await expectPatch({ deliverable_required: false }, { deliverable_required: false });
  });

  it("changes the assignee, and assignee_user_id: null clears it", async () => {
    await expectPatch({ assignee_user_id: viewer.id }, { assignee_user_id: viewer.id });
    await expectPatch({ assignee_user_id: null }, { assignee_user_id: null });
    await expectPatch({ assignee_user_id: member.id }, { assignee_user_id: member.id });
  });

  it("changes due_at, normalised to UTC", async () => {
    await expectPatch({ due_at: "2026-06-01T08:00:00-02:00" }, { due_at: "2026-06-01T10:00:00.000Z" });
  });

  it("due_at: null clears the due date", async () => {
    await expectPatch({ due_at: null }, { due_at: null });
    await expectPatch({ due_at: "2026-07-01T00:00:00Z" }, { due_at: "2026-07-01T00:00:00.000Z" });
  });

  it("clear_due_at: true clears the due date and wins over due_at", async () => {
    await expectPatch({ clear_due_at: true, due_at: "2027-01-01T00:00:00Z" }, { due_at: null });
    await expectPatch({ due_at: "2026-08-01T00:00:00Z" }, { due_at: "2026-08-01T00:00:00.000Z" });
    await expectPatch({ clear_due_at: true }, { due_at: null });
    // Ignored means ignored: even a due_at that would be refused on its own.
    await expectPatch({ clear_due_at: true, due_at: "not a date" }, { due_at: null });
  });

  it("clear_due_at: false leaves the due date, and lets due_at apply", async () => {
    await expectPatch({ due_at: "2026-09-01T00:00:00Z", clear_due_at: false }, { due_at: "2026-09-01T00:00:00.000Z" });
    await expectPatch({ clear_due_at: false }, {});
  });

  it("reads UUIDs in upper case as the same ids, in the path and in the body", async () => {
    const task = await createTask(space, { title: "Upper" });
    const upper = (id: string) => id.toUpperCase();
    const path = `${base.replace(org.id, upper(org.id))}/spaces/${upper(space.id)}/tasks/${upper(task.id)}`;
    const res = await member.api.patch(path, {
      column_id: upper(space.columns[1]),
      assignee_user_id: upper(viewer.id),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: task.id, column_id: space.columns[1], assignee_user_id: viewer.id });
    const mine = await viewer.api.get(`/api/v1/me/tasks?org_id=${upper(org.id)}`);
    expect(mine.status).toBe(200);
    expect(mine.body.tasks.map((t: Task) => t.id)).toContain(task.id);
  });

  it("changes several fields at once and leaves the others", async () => {
    await expectPatch(
      { title: "Both", description: "Both changed", assignee_user_id: viewer.id },
      { title: "Both", description: "Both changed", assignee_user_id: viewer.id },
    );
  });

  it("grows version by one on every PATCH, even one that changes nothing", async () => {
    const start = t.version;
    await expectPatch({}, {});
    await expectPatch({ title: t.title }, {});
    expect(t.version).toBe(start + 2);
  });

  it("ignores unknown fields", async () => {
    await expectPatch({ status: "done", space_id: otherSpace.id, version_note: 1 }, {});
  });

  it("answers 409 version conflict with the current task as task when version is stale; nothing changes", async () => {
    const current = t;
    const res = await patch(space, t.id, { title: "Stale write", version: current.version - 1 });
    expect(res.status).toBe(409);
    expect(Object.keys(res.body).sort()).toEqual(["error", "task"]);
    expect(res.body.error).toBe("version conflict");
    expect(res.body.task).toEqual(current);
    const ahead = await patch(space, t.id, { title: "Future write", version: current.version + 5 });
    expect(ahead.status).toBe(409);
    expect(ahead.body).toEqual({ error: "version conflict", task: current });
    expect((await listTasks(space)).find((x) => x.id === t.id)).toEqual(current);
  });

  it("applies the update when version is current", async () => {
    await expectPatch({ title: "Conditional", version: t.version }, { title: "Conditional" });
  });

  it("lets exactly one of two writers holding the same version win", async () => {
    const v = t.version;
    const [a, b] = await Promise.all([
      patch(space, t.id, { title: "Writer A", version: v }),
      patch(space, t.id, { title: "Writer B", version: v }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const winner = a.status === 200 ? a : b;
    const loser = a.status === 200 ? b : a;
    expect(winner.body.version).toBe(v + 1);
    expect(loser.body).toEqual({ error: "version conflict", task: winner.body });
    t = winner.body;
  });

  it("answers 400 invalid assignee and changes nothing", async () => {
    const res = await patch(space, t.id, { title: "Nope", assignee_user_id: UNKNOWN });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid assignee" });
    expect((await listTasks(space)).find((x) => x.id === t.id)).toEqual(t);
  });

  it("answers 400 invalid column for a column of another space or an unknown one, and changes nothing", async () => {
    for (const column_id of [otherSpace.columns[1], UNKNOWN]) {
      const res = await patch(space, t.id, { title: "Nope", column_id });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "invalid column" });
    }
    expect((await listTasks(space)).find((x) => x.id === t.id)).toEqual(t);
  });

  it("answers 400 naming the field for a bad title, due_at, position or version", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ title: "" }, "title: must not be empty"],
      [{ title: null }, "title: must be a string"],
      [{ due_at: "next week" }, "due_at: must be an RFC 3339 timestamp"],
      [{ position: -1 }, "position: must be at least 0"],
      [{ position: 1.5 }, "position: must be an integer"],
      [{ position: "1" }, "position: must be a number"],
      [{ clear_due_at: "yes" }, "clear_due_at: must be a boolean"],
      [{ version: "1" }, "version: must be a number"],
    ];
    for (const [body, error] of cases) {
      const res = await patch(space, t.id, body);
      expect({ body, status: res.status, answer: res.body }).toEqual({ body, status: 400, answer: { error } });
    }
    expect((await listTasks(space)).find((x) => x.id === t.id)).toEqual(t);
  });

  it("answers 404 task not found for an unknown, malformed or other space's task", async () => {
    const elsewhere = await createTask(otherSpace, { title: "Elsewhere" });
    for (const id of [UNKNOWN, "nope", elsewhere.id]) {
      const res = await patch(space, id, { title: "x" });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "task not found" });
    }
  });

  it("needs tasks.write: a Viewer gets 403 missing permission: tasks.write", async () => {
    const res = await patch(space, t.id, { title: "Viewer was here" }, viewer);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: tasks.write" });
    expect((await listTasks(space)).find((x) => x.id === t.id)).toEqual(t);
  });
});

describe("moving tasks with PATCH column_id / position", () => {
  let s: Space;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    s = await createSpace(member, "Moves");
    for (const title of ["A", "B", "C", "D", "E"]) ids[title] = (await createTask(s, { title })).id;
    for (const title of ["P", "Q"]) ids[title] = (await createTask(s, { title, column_id: s.columns[1] })).id;
  });

  it("moves up within a column; the others shift down and stay dense", async () => {
    const res = await patch(s, ids.D as string, { position: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ position: 1, column_id: s.columns[0], version: 2 });
    expect(await columnTitles(s, s.columns[0])).toEqual(["A", "D", "B", "C", "E"]);
  });

  it("moves down within a column", async () => {
    const res = await patch(s, ids.A as string, { position: 3 });
    expect(res.body.position).toBe(3);
    expect(await columnTitles(s, s.columns[0])).toEqual(["D", "B", "C", "A", "E"]);
  });

  it("moves to the top with position 0", async () => {
    const res = await patch(s, ids.E as string, { position: 0 });
    expect(res.body.position).toBe(0);
    expect(await columnTitles(s, s.columns[0])).toEqual(["E", "D", "B", "C", "A"]);
  });

  it("treats a position past the end as last", async () => {
    const res = await patch(s, ids.E as string, { position: 99 });
    expect(res.status).toBe(200);
    expect(res.body.position).toBe(4);
    expect(await columnTitles(s, s.columns[0])).toEqual(["D", "B", "C", "A", "E"]);
  });

  it("keeps the order when the position is the current one, and still grows version", async () => {
    const before = (await listTasks(s)).find((t) => t.id === ids.C) as Task;
    const res = await patch(s, ids.C as string, { position: before.position });
    expect(res.body.position).toBe(before.position);
    expect(res.body.version).toBe(before.version + 1);
    expect(await columnTitles(s, s.columns[0])).toEqual(["D", "B", "C", "A", "E"]);
  });

  it("moves to another column at the given position; both columns stay dense", async () => {
    const res = await patch(s, ids.B as string, { column_id: s.columns[1], position: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ column_id: s.columns[1], position: 1 });
    expect(await columnTitles(s, s.columns[0])).toEqual(["D", "C", "A", "E"]);
    expect(await columnTitles(s, s.columns[1])).toEqual(["P", "B", "Q"]);
  });

  it("moves to another column without a position: last", async () => {
    const res = await patch(s, ids.D as string, { column_id: s.columns[1] });
    expect(res.body).toMatchObject({ column_id: s.columns[1], position: 3 });
    expect(await columnTitles(s, s.columns[0])).toEqual(["C", "A", "E"]);
    expect(await columnTitles(s, s.columns[1])).toEqual(["P", "B", "Q", "D"]);
  });

  it("moves to another column with a position past the end: last", async () => {
    const res = await patch(s, ids.C as string, { column_id: s.columns[1], position: 50 });
    expect(res.body).toMatchObject({ column_id: s.columns[1], position: 4 });
    expect(await columnTitles(s, s.columns[0])).toEqual(["A", "E"]);
    expect(await columnTitles(s, s.columns[1])).toEqual(["P", "B", "Q", "D", "C"]);
  });

  it("moves to the top of another column, and into an empty column", async () => {
    const top = await patch(s, ids.A as string, { column_id: s.columns[1], position: 0 });
    expect(top.body).toMatchObject({ column_id: s.columns[1], position: 0 });
    const empty = await patch(s, ids.E as string, { column_id: s.columns[3], position: 7 });
    expect(empty.body).toMatchObject({ column_id: s.columns[3], position: 0 });
    expect(await columnTitles(s, s.columns[0])).toEqual([]);
    expect(await columnTitles(s, s.columns[1])).toEqual(["A", "P", "B", "Q", "D", "C"]);
    expect(await columnTitles(s, s.columns[3])).toEqual(["E"]);
  });

  it("moves and edits in one PATCH", async () => {
    const res = await patch(s, ids.Q as string, { column_id: s.columns[2], title: "Q2", description: "moved" });
    expect(res.body).toMatchObject({ column_id: s.columns[2], position: 0, title: "Q2", description: "moved" });
    expect(await columnTitles(s, s.columns[1])).toEqual(["A", "P", "B", "D", "C"]);
  });

  it("answers 400 for a negative position and moves nothing", async () => {
    const before = await listTasks(s);
    const res = await patch(s, ids.B as string, { position: -1 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "position: must be at least 0" });
    const other = await patch(s, ids.B as string, { column_id: s.columns[0], position: -3 });
    expect(other.status).toBe(400);
    expect(await listTasks(s)).toEqual(before);
  });

  it("a task created after moves still goes to the bottom", async () => {
    const t = await createTask(s, { title: "Z", column_id: s.columns[1] });
    expect(t.position).toBe(5);
    expect(await columnTitles(s, s.columns[1])).toEqual(["A", "P", "B", "D", "C", "Z"]);
  });

  it("keeps order through many moves into the same gap", async () => {
    // Always moving the last task to position 1 splits the same gap again and again.
    const g = await createSpace(member, "Same gap");
    const model: string[] = [];
    for (let i = 0; i < 6; i++) {
      const t = await createTask(g, { title: `T${i}` });
      model.push(t.title);
    }
    const byTitle = Object.fromEntries((await listTasks(g)).map((t) => [t.title, t.id]));
    for (let i = 0; i < 40; i++) {
      const last = model.pop() as string;
      model.splice(1, 0, last);
      const res = await patch(g, byTitle[last] as string, { position: 1 });
      expect(res.body.position).toBe(1);
      expect(await columnTitles(g, g.columns[0])).toEqual(model);
    }
    for (let i = 0; i < 40; i++) {
      const first = model.shift() as string;
      model.splice(model.length - 1, 0, first);
      const res = await patch(g, byTitle[first] as string, { position: model.length - 2 });
      expect(res.body.position).toBe(model.length - 2);
      expect(await columnTitles(g, g.columns[0])).toEqual(model);
    }
  });

  it("matches a reference array model over 200 random moves within a column", async () => {
    const r = await createSpace(member, "Random moves");
    const random = prng(20261121);
    const model: string[] = [];
    const byTitle: Record<string, string> = {};
    for (let i = 0; i < 12; i++) {
      const t = await createTask(r, { title: `R${i}` });
      model.push(t.title);
      byTitle[t.title] = t.id;
    }
    const column = r.columns[0] as string;
    for (let step = 0; step < 200; step++) {
      const title = model[Math.floor(random() * model.length)] as string;
      // Now and then a position past the end, which means last.
      const position = Math.floor(random() * (model.length + 3));
      const body = random() < 0.2 ? { column_id: column, position } : { position };
      const res = await patch(r, byTitle[title] as string, body);
      expect(res.status).toBe(200);
      model.splice(model.indexOf(title), 1);
      const target = Math.min(position, model.length);
      model.splice(target, 0, title);
      expect({ step, title, position, got: res.body.position }).toEqual({ step, title, position, got: target });
      const listed = await columnTitles(r, column);
      expect({ step, listed }).toEqual({ step, listed: model });
    }
  });

  it("matches a reference model over 100 random moves between two columns", async () => {
    const r = await createSpace(member, "Random cross moves");
    const random = prng(42);
    const cols = [r.columns[0] as string, r.columns[1] as string];
    const model: Record<string, string[]> = { [cols[0] as string]: [], [cols[1] as string]: [] };
    const byTitle: Record<string, string> = {};
    for (let i = 0; i < 10; i++) {
      const column = cols[i % 2] as string;
      const t = await createTask(r, { title: `X${i}`, column_id: column });
      (model[column] as string[]).push(t.title);
      byTitle[t.title] = t.id;
    }
    const where = (title: string) => cols.find((c) => (model[c] as string[]).includes(title)) as string;
    for (let step = 0; step < 100; step++) {
      const all = Object.keys(byTitle);
      const title = all[Math.floor(random() * all.length)] as string;
      const from = where(title);
      const to = cols[Math.floor(random() * 2)] as string;
      const withPosition = random() < 0.8;
      const position = Math.floor(random() * ((model[to] as string[]).length + 2));
      const body: Record<string, unknown> = { column_id: to };
      if (withPosition) body.position = position;
      const res = await patch(r, byTitle[title] as string, body);
      expect(res.status).toBe(200);
      const source = model[from] as string[];
      const before = source.indexOf(title);
      source.splice(before, 1);
      const dest = model[to] as string[];
      let target: number;
      if (from === to && !withPosition)
        target = before; // same column, no position: stays put
      else target = withPosition ? Math.min(position, dest.length) : dest.length;
      dest.splice(target, 0, title);
      expect({ step, column: res.body.column_id, position: res.body.position }).toEqual({
        step,
        column: to,
        position: target,
      });
      for (const c of cols) {
        const listed = await columnTitles(r, c);
        expect({ step, c, listed }).toEqual({ step, c, listed: model[c] as string[] });
      }
    }
  });
});

describe("DELETE /organizations/{orgId}/spaces/{spaceId}/tasks/{taskId}", () => {
  it("answers 204 and deletes for good: then 404 task not found everywhere; the column stays dense", async () => {
    const s = await createSpace(member, "Deletes");
    const a = await createTask(s, { title: "A" });
    const b = await createTask(s, { title: "B" });
    await createTask(s, { title: "C" });
    const res = await member.api.delete(`${s.tasks}/${b.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(await columnTitles(s, s.columns[0])).toEqual(["A", "C"]);
    for (const call of [
      () => member.api.delete(`${s.tasks}/${b.id}`),
      () => patch(s, b.id, { title: "Ghost" }),
      () => member.api.get(`${s.tasks}/${b.id}/messages`),
      () => member.api.post(`${s.tasks}/${b.id}/messages`, { content: "hello?" }),
      () => member.api.get(`${s.tasks}/${b.id}/deliverables`),
    ]) {
      const gone = await call();
      expect(gone.status).toBe(404);
      expect(gone.body).toEqual({ error: "task not found" });
    }
    expect((await listTasks(s)).map((t) => t.id)).not.toContain(b.id);
    expect(a.id).toMatch(UUID);
  });

  it("answers 404 task not found for an unknown or malformed id", async () => {
    for (const id of [UNKNOWN, "nope"]) {
      const res = await member.api.delete(`${space.tasks}/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "task not found" });
    }
  });

  it("needs tasks.write: a Viewer gets 403 missing permission: tasks.write and the task stays", async () => {
    const t = await createTask(space, { title: "Keep me" });
    const res = await viewer.api.delete(`${space.tasks}/${t.id}`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: tasks.write" });
    expect((await listTasks(space)).map((x) => x.id)).toContain(t.id);
  });
});

describe("GET /api/v1/me/tasks", () => {
  const mine = (who: Person, orgId = org.id) => who.api.get(`/api/v1/me/tasks?org_id=${orgId}`);

  it("answers {tasks: [Task + organization_id + space_name]} with only the caller's tasks, newest update first", async () => {
    const me = await addMember(org, ["Member"], "Tess Tasker");
    const s = await createSpace(member, "My tasks space");
    const first = await createTask(s, { title: "Mine 1", assignee_user_id: me.id });
    await Bun.sleep(3);
    const second = await createTask(s, { title: "Mine 2", assignee_user_id: me.id, column_id: s.columns[2] });
    await Bun.sleep(3);
    await createTask(s, { title: "Not mine", assignee_user_id: member.id });
    await createTask(s, { title: "Nobody's" });
    await Bun.sleep(3);
    const third = await createTask(space, { title: "Mine 3", assignee_user_id: me.id });

    const res = await mine(me);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["tasks"]);
    const tasks = res.body.tasks;
    expect(tasks.map((t: Task) => t.title)).toEqual(["Mine 3", "Mine 2", "Mine 1"]);
    expect(Object.keys(tasks[0]).sort()).toEqual([...TASK_FIELDS, "organization_id", "space_name"].sort());
    expect(tasks[0]).toEqual({ ...third, organization_id: org.id, space_name: "Tasks space" });
    expect(tasks[1]).toEqual({ ...second, organization_id: org.id, space_name: "My tasks space" });

    // Updating the oldest one brings it to the top.
    await Bun.sleep(3);
    const updated = await patch(s, first.id, { description: "touched" });
    const after = (await mine(me)).body.tasks;
    expect(after.map((t: Task) => t.title)).toEqual(["Mine 1", "Mine 3", "Mine 2"]);
    expect(after[0]).toEqual({ ...updated.body, organization_id: org.id, space_name: "My tasks space" });

    // Unassigning removes it.
    await patch(s, first.id, { assignee_user_id: null });
    expect((await mine(me)).body.tasks.map((t: Task) => t.title)).toEqual(["Mine 3", "Mine 2"]);
  });

  it("lists writes of the same millisecond in the order they were made", async () => {
    const me = await addMember(org, ["Member"], "Quick Quinn");
    const s = await createSpace(member, "Quick tasks space");
    const made: Task[] = [];
    for (let i = 0; i < 6; i++) made.push(await createTask(s, { title: `Quick ${i}`, assignee_user_id: me.id }));
    // Touched with no pause, out of creation (and id) order: the last write leads.
    const order = [3, 0, 5, 1, 4, 2];
    for (const i of order) await patch(s, (made[i] as Task).id, { description: `touched ${i}` });
    const tasks: Task[] = (await mine(me)).body.tasks;
    expect(tasks.map((t) => t.title)).toEqual(order.toReversed().map((i) => `Quick ${i}`));
    const stamps = tasks.map((t) => Date.parse(t.updated_at));
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]).toBeLessThan(stamps[i - 1] as number);
  });

  it("answers {tasks: []} to someone with no tasks", async () => {
    const idle = await addMember(org, ["Viewer"]);
    const res = await mine(idle);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ tasks: [] });
  });

  it("leaves out tasks in private spaces the caller cannot see (any more)", async () => {
    const me = await addMember(org, ["Member"]);
    const hidden = await createSpace(org.owner, "Owner's private", { private: true });
    const members = `${base}/spaces/${hidden.id}/members`;
    await org.owner.api.post(members, { user_id: me.id });
    const secret = await createTask(hidden, { title: "Secret", assignee_user_id: me.id }, org.owner);
    const open = await createTask(space, { title: "Open", assignee_user_id: me.id });
    expect((await mine(me)).body.tasks.map((t: Task) => t.id).sort()).toEqual([open.id, secret.id].sort());

    // Taken out of the space, the task stays assigned but no longer shows; back in, it does.
    expect((await org.owner.api.delete(`${members}/${me.id}`)).status).toBe(204);
    expect((await mine(me)).body.tasks.map((t: Task) => t.id)).toEqual([open.id]);
    await org.owner.api.post(members, { user_id: me.id });
    expect((await mine(me)).body.tasks.map((t: Task) => t.id).sort()).toEqual([open.id, secret.id].sort());
  });

  it("includes tasks in private spaces for org.manage holders who are not members of them", async () => {
    const hidden = await createSpace(member, "Member's private", { private: true });
    const t = await createTask(hidden, { title: "For the owner", assignee_user_id: org.owner.id });
    const ids = (await mine(org.owner)).body.tasks.map((x: Task) => x.id);
    expect(ids).toContain(t.id);
  });

  it("answers at most 200 tasks, the most recently updated", async () => {
    const busy = await addMember(org, ["Member"], "Busy Bee");
    const s = await createSpace(member, "Busy space");
    const oldest: string[] = [];
    for (let i = 0; i < 5; i++) oldest.push((await createTask(s, { title: `old ${i}`, assignee_user_id: busy.id })).id);
    await Bun.sleep(5);
    for (let i = 0; i < 200; i++) await createTask(s, { title: `new ${i}`, assignee_user_id: busy.id });
    const res = await mine(busy);
    expect(res.status).toBe(200);
    const tasks = res.body.tasks as Task[];
    expect(tasks).toHaveLength(200);
    expect(new Set(tasks.map((t) => t.id)).size).toBe(200);
    for (const id of oldest) expect(tasks.map((t) => t.id)).not.toContain(id);
    for (let i = 1; i < tasks.length; i++) {
      expect(Date.parse((tasks[i - 1] as Task).updated_at)).toBeGreaterThanOrEqual(
        Date.parse((tasks[i] as Task).updated_at),
      );
    }
    // Touching an old one brings it back into the 200.
    await Bun.sleep(3);
    await patch(s, oldest[0] as string, { title: "old 0, touched" });
    const again = (await mine(busy)).body.tasks as Task[];
    expect(again).toHaveLength(200);
    expect(again[0]?.id).toBe(oldest[0]);
  });

  it("answers 404 organization not found for another organization or a malformed org_id", async () => {
    for (const id of [UNKNOWN, "nope"]) {
      const res = await mine(member, id);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "organization not found" });
    }
  });

  it("answers 404 organization not found to a member removed from the organization", async () => {
    const leaver = await addMember(org, ["Member"]);
    await createTask(space, { title: "Leaver's task", assignee_user_id: leaver.id });
    await org.owner.api.delete(`${base}/members/${leaver.id}`);
    const res = await mine(leaver);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "organization not found" });
  });

  it("answers 400 when org_id is missing", async () => {
    const res = await member.api.get("/api/v1/me/tasks");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "org_id: required" });
  });

  it("answers 401 without a token", async () => {
    const res = await org.anon.get(`/api/v1/me/tasks?org_id=${org.id}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
  });
});
