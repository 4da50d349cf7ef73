/**
 * A board's columns (contract §11): adding, renaming, reordering and deleting them, positions kept dense, names
 * unique ignoring case, WIP limits that hold staff and not people, and the live events that carry each change.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, addStaff, type Org, type Person, setupOrg } from "../helpers/factories";
import { type Client, UUID } from "../helpers/http";
import { scenarios } from "../helpers/scenarios";
import { startTestServer, type TestServer } from "../helpers/server";
import { type Listener, listen } from "../helpers/sockets";

const UNKNOWN = "01a1fdb9-0000-7000-8000-000000000000";

interface Column {
  id: string;
  board_id: string;
  name: string;
  position: number;
  wip_limit: number | null;
}

let server: TestServer;
let org: Org;
let member: Person;
let viewer: Person;
let staff: { api: Client; token: string; account: { user_id: string } };
let live: Listener;
let base: string;

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server, "Acme Columns");
  base = `/api/v1/organizations/${org.id}/spaces`;
  member = await addMember(org, ["Member"], "Mia Member");
  viewer = await addMember(org, ["Viewer"], "Vic Viewer");
  staff = await addStaff(org, { name: "Ada" });
  live = await listen(server.url, org.id, viewer.token);
});
afterAll(async () => {
  live?.close();
  await server.stop();
});

/** A new space of `member`'s; its board's path and its columns in order. */
async function newSpace(name: string) {
  const res = await member.api.post(base, { name });
  expect(res.status).toBe(201);
  const id = res.body.id as string;
  return { id, columns: `${base}/${id}/board/columns`, tasks: `${base}/${id}/tasks`, board: `${base}/${id}/board` };
}

/** The board's columns as `[name, position]` pairs, in order. */
async function shape(board: string): Promise<[string, number][]> {
  const res = await viewer.api.get(board);
  expect(res.status).toBe(200);
  return res.body.columns.map((c: Column) => [c.name, c.position]);
}

async function columnNamed(board: string, name: string): Promise<Column> {
  const column = (await viewer.api.get(board)).body.columns.find((c: Column) => c.name === name);
  if (!column) throw new Error(`no column ${name}`);
  return column;
}

describe("POST .../board/columns", () => {
  it("adds a column last by default: 201 {column} with wip_limit null, listed by the board, announced live", async () => {
    const space = await newSpace("Add last");
    const res = await member.api.post(space.columns, { name: "  Blocked  " });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(["column"]);
    const column = res.body.column as Column;
    expect(Object.keys(column).sort()).toEqual(["board_id", "id", "name", "position", "wip_limit"]);
    expect(column).toMatchObject({ name: "Blocked", position: 4, wip_limit: null });
    expect(column.id).toMatch(UUID);
    const board = (await viewer.api.get(space.board)).body;
    expect(column.board_id).toBe(board.board.id);
    expect(board.columns.at(-1)).toEqual(column);
    const event = await live.next((e) => e.type === "board.column.created" && e.payload.id === column.id);
    expect(event).toEqual({
      type: "board.column.created",
      organization_id: org.id,
      space_id: space.id,
      payload: column,
    });
  });

  it("puts a column at `position`: the columns from there move one place on; past the end means last", async () => {
    const space = await newSpace("Add at");
    expect((await member.api.post(space.columns, { name: "Backlog", position: 0 })).body.column.position).toBe(0);
    expect((await member.api.post(space.columns, { name: "QA", position: 3 })).body.column.position).toBe(3);
    expect((await member.api.post(space.columns, { name: "Later", position: 99 })).body.column.position).toBe(6);
    expect(await shape(space.board)).toEqual([
      ["Backlog", 0],
      ["To do", 1],
      ["In progress", 2],
      ["QA", 3],
      ["Review", 4],
      ["Done", 5],
      ["Later", 6],
    ]);
  });

  it("takes a wip_limit (an extension) and tasks go into the new column", async () => {
    const space = await newSpace("Add limited");
    const column = (await member.api.post(space.columns, { name: "Doing", wip_limit: 2 })).body.column;
    expect(column.wip_limit).toBe(2);
    const task = await member.api.post(space.tasks, { title: "In the new column", column_id: column.id });
    expect(task.status).toBe(201);
    expect(task.body).toMatchObject({ column_id: column.id, position: 0 });
  });

  it("answers 409 name already exists for a name on the board, ignoring case in any script", async () => {
    const space = await newSpace("Names");
    expect((await member.api.post(space.columns, { name: "review" })).body).toEqual({ error: "name already exists" });
    expect((await member.api.post(space.columns, { name: "Élan" })).status).toBe(201);
    expect((await member.api.post(space.columns, { name: "ÉLAN" })).body).toEqual({ error: "name already exists" });
    expect((await member.api.post(space.columns, { name: "e\u0301lan" })).body).toEqual({
      error: "name already exists",
    });
    // Another board may have it.
    const other = await newSpace("Names elsewhere");
    expect((await member.api.post(other.columns, { name: "Élan" })).status).toBe(201);
  });
});

describe("PATCH .../board/columns/{columnId}", () => {
  it("renames a column: 200 {column}, announced live with the same column", async () => {
    const space = await newSpace("Rename");
    const review = await columnNamed(space.board, "Review");
    const res = await member.api.patch(`${space.columns}/${review.id}`, { name: "QA" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ column: { ...review, name: "QA" } });
    const event = await live.next((e) => e.type === "board.column.updated" && e.payload.id === review.id);
    expect(event).toMatchObject({ space_id: space.id, payload: res.body.column });
    expect(await shape(space.board)).toEqual([
      ["To do", 0],
      ["In progress", 1],
      ["QA", 2],
      ["Done", 3],
    ]);
  });

  it("lets a column keep its own name in another case, not take another's", async () => {
    const space = await newSpace("Rename clash");
    const done = await columnNamed(space.board, "Done");
    expect((await member.api.patch(`${space.columns}/${done.id}`, { name: "DONE" })).body.column.name).toBe("DONE");
    expect((await member.api.patch(`${space.columns}/${done.id}`, { name: "to DO" })).body).toEqual({
      error: "name already exists",
    });
  });

  it("moves a column left and right: the columns between close up, past the end means last", async () => {
    const space = await newSpace("Reorder");
    const done = await columnNamed(space.board, "Done");
    expect((await member.api.patch(`${space.columns}/${done.id}`, { position: 0 })).body.column.position).toBe(0);
    expect(await shape(space.board)).toEqual([
      ["Done", 0],
      ["To do", 1],
      ["In progress", 2],
      ["Review", 3],
    ]);
    const todo = await columnNamed(space.board, "To do");
    expect((await member.api.patch(`${space.columns}/${todo.id}`, { position: 2 })).body.column.position).toBe(2);
    expect(await shape(space.board)).toEqual([
      ["Done", 0],
      ["In progress", 1],
      ["To do", 2],
      ["Review", 3],
    ]);
    expect((await member.api.patch(`${space.columns}/${done.id}`, { position: 40 })).body.column.position).toBe(3);
    expect(await shape(space.board)).toEqual([
      ["In progress", 0],
      ["To do", 1],
      ["Review", 2],
      ["Done", 3],
    ]);
    // Its tasks go with it.
    const task = await member.api.post(space.tasks, { title: "Stays put", column_id: todo.id });
    await member.api.patch(`${space.columns}/${todo.id}`, { position: 0 });
    expect((await member.api.get(`${space.tasks}/${task.body.id}`)).body.column_id).toBe(todo.id);
  });

  it("sets and clears the WIP limit; only the fields given change", async () => {
    const space = await newSpace("Limits");
    const review = await columnNamed(space.board, "Review");
    const set = await member.api.patch(`${space.columns}/${review.id}`, { wip_limit: 3 });
    expect(set.body.column).toEqual({ ...review, wip_limit: 3 });
    const renamed = await member.api.patch(`${space.columns}/${review.id}`, { name: "Check" });
    expect(renamed.body.column).toEqual({ ...review, name: "Check", wip_limit: 3 });
    const cleared = await member.api.patch(`${space.columns}/${review.id}`, { wip_limit: null });
    expect(cleared.body.column.wip_limit).toBeNull();
    expect((await member.api.patch(`${space.columns}/${review.id}`, {})).body.column).toEqual({
      ...review,
      name: "Check",
    });
  });
});

describe("DELETE .../board/columns/{columnId}", () => {
  it("deletes an empty column: 204, the columns after it close up, announced as {id}", async () => {
    const space = await newSpace("Delete");
    const progress = await columnNamed(space.board, "In progress");
    const res = await member.api.delete(`${space.columns}/${progress.id}`);
    expect(res.status).toBe(204);
    expect(await shape(space.board)).toEqual([
      ["To do", 0],
      ["Review", 1],
      ["Done", 2],
    ]);
    const event = await live.next((e) => e.type === "board.column.deleted" && e.payload.id === progress.id);
    expect(event).toEqual({
      type: "board.column.deleted",
      organization_id: org.id,
      space_id: space.id,
      payload: { id: progress.id },
    });
    expect((await member.api.delete(`${space.columns}/${progress.id}`)).body).toEqual({ error: "column not found" });
    expect((await member.api.post(space.tasks, { title: "x", column_id: progress.id })).body).toEqual({
      error: "invalid column",
    });
  });

  it("answers 409 column is not empty while a task is in it; once it is moved out, the column goes", async () => {
    const space = await newSpace("Delete full");
    const review = await columnNamed(space.board, "Review");
    const todo = await columnNamed(space.board, "To do");
    const task = (await member.api.post(space.tasks, { title: "Blocking", column_id: review.id })).body;
    expect((await member.api.delete(`${space.columns}/${review.id}`)).body).toEqual({ error: "column is not empty" });
    expect(await shape(space.board)).toHaveLength(4);
    await member.api.patch(`${space.tasks}/${task.id}`, { column_id: todo.id });
    expect((await member.api.delete(`${space.columns}/${review.id}`)).status).toBe(204);
  });

  it("answers 409 a board needs a column for the last one, even with tasks in it", async () => {
    const space = await newSpace("Delete last");
    const columns = (await viewer.api.get(space.board)).body.columns as Column[];
    for (const column of columns.slice(1)) {
      expect((await member.api.delete(`${space.columns}/${column.id}`)).status).toBe(204);
    }
    const last = columns[0] as Column;
    expect((await member.api.delete(`${space.columns}/${last.id}`)).body).toEqual({ error: "a board needs a column" });
    await member.api.post(space.tasks, { title: "Alone", column_id: last.id });
    expect((await member.api.delete(`${space.columns}/${last.id}`)).body).toEqual({ error: "a board needs a column" });
    expect(await shape(space.board)).toEqual([["To do", 0]]);
  });
});

describe("columns: who may, and what is refused", () => {
  let space: Awaited<ReturnType<typeof newSpace>>;
  let otherColumn: Column;
  let review: Column;
  beforeAll(async () => {
    space = await newSpace("Refusals");
    review = await columnNamed(space.board, "Review");
    otherColumn = await columnNamed((await newSpace("Refusals elsewhere")).board, "Review");
  });
  const long = "x".repeat(101);
  // biome-ignore format: a table reads in columns
  const lines = [
    { method: "POST",   url: "{columns}",               as: "viewer", body: { name: "New" },         status: 403, error: "missing permission: tasks.write" },
    { method: "PATCH",  url: "{columns}/{review}",      as: "viewer", body: { name: "New" },         status: 403, error: "missing permission: tasks.write" },
    { method: "DELETE", url: "{columns}/{review}",      as: "viewer",                                 status: 403, error: "missing permission: tasks.write" },
    { method: "POST",   url: "{columns}",               as: "member", body: {},                      status: 400, error: "name: required" },
    { method: "POST",   url: "{columns}",               as: "member", body: { name: "   " },         status: 400, error: "name: must not be empty" },
    { method: "POST",   url: "{columns}",               as: "member", body: { name: long },          status: 400, error: "name: must be at most 100 characters" },
    { method: "POST",   url: "{columns}",               as: "member", body: { name: "a\nb" },        status: 400, error: "name: must not contain control characters" },
    { method: "POST",   url: "{columns}",               as: "member", body: { name: "A", position: -1 },  status: 400, error: "position: must be at least 0" },
    { method: "POST",   url: "{columns}",               as: "member", body: { name: "A", position: 1.5 }, status: 400, error: "position: must be an integer" },
    { method: "POST",   url: "{columns}",               as: "member", body: { name: "A", wip_limit: 0 },  status: 400, error: "wip_limit: must be at least 1" },
    { method: "PATCH",  url: "{columns}/{review}",      as: "member", body: { wip_limit: -2 },       status: 400, error: "wip_limit: must be at least 1" },
    { method: "PATCH",  url: "{columns}/{review}",      as: "member", body: { wip_limit: 2.5 },      status: 400, error: "wip_limit: must be an integer" },
    { method: "PATCH",  url: "{columns}/{review}",      as: "member", body: { wip_limit: "3" },      status: 400, error: "wip_limit: must be a number" },
    { method: "PATCH",  url: "{columns}/{review}",      as: "member", body: { name: "" },            status: 400, error: "name: must not be empty" },
    { method: "PATCH",  url: "{columns}/{review}",      as: "member", body: { position: "1" },       status: 400, error: "position: must be a number" },
    { method: "PATCH",  url: "{columns}/{unknown}",     as: "member", body: { name: "New" },         status: 404, error: "column not found" },
    { method: "PATCH",  url: "{columns}/not-a-uuid",    as: "member", body: { name: "New" },         status: 404, error: "column not found" },
    { method: "PATCH",  url: "{columns}/{other}",       as: "member", body: { name: "New" },         status: 404, error: "column not found" },
    { method: "DELETE", url: "{columns}/{unknown}",     as: "member",                                 status: 404, error: "column not found" },
    { method: "DELETE", url: "{columns}/{other}",       as: "member",                                 status: 404, error: "column not found" },
    { method: "POST",   url: "{columns}",               as: "staff",  body: { name: "Staff made" },  status: 201 },
  ];
  scenarios(
    {
      url: () => server.url,
      tokens: () => ({ member: member.token, viewer: viewer.token, staff: staff.token }),
      params: () => ({ columns: space.columns, review: review.id, other: otherColumn.id, unknown: UNKNOWN }),
    },
    lines,
  );

  it("changes nothing when refused", async () => {
    expect((await viewer.api.get(space.board)).body.columns.find((c: Column) => c.id === review.id)).toEqual(review);
  });
});

describe("WIP limits", () => {
  let space: Awaited<ReturnType<typeof newSpace>>;
  let todo: Column;
  let review: Column;
  beforeAll(async () => {
    space = await newSpace("Work in progress");
    todo = await columnNamed(space.board, "To do");
    review = await columnNamed(space.board, "Review");
    await member.api.patch(`${space.columns}/${review.id}`, { wip_limit: 2 });
  });
  const tasksIn = async (columnId: string) =>
    ((await viewer.api.get(space.tasks)).body.tasks as { column_id: string }[]).filter((t) => t.column_id === columnId)
      .length;

  it("lets staff fill a column up to its limit, then answers 409 column is at its limit and creates nothing", async () => {
    for (const title of ["One", "Two"]) {
      expect((await staff.api.post(space.tasks, { title, column_id: review.id })).status).toBe(201);
    }
    const refused = await staff.api.post(space.tasks, { title: "Three", column_id: review.id });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ error: "column is at its limit" });
    expect(await tasksIn(review.id)).toBe(2);
  });

  it("refuses staff a move into the full column, and leaves the task where it was", async () => {
    const task = (await staff.api.post(space.tasks, { title: "Waiting", column_id: todo.id })).body;
    const refused = await staff.api.patch(`${space.tasks}/${task.id}`, { column_id: review.id, position: 0 });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ error: "column is at its limit" });
    expect((await viewer.api.get(`${space.tasks}/${task.id}`)).body).toMatchObject({
      column_id: todo.id,
      version: task.version,
    });
  });

  it("lets staff move a task within the full column, and into it once there is room", async () => {
    const inReview = ((await viewer.api.get(space.tasks)).body.tasks as { id: string; column_id: string }[]).filter(
      (t) => t.column_id === review.id,
    );
    const last = inReview.at(-1) as { id: string };
    const moved = await staff.api.patch(`${space.tasks}/${last.id}`, { position: 0 });
    expect(moved.status).toBe(200);
    expect(moved.body.position).toBe(0);
    await staff.api.patch(`${space.tasks}/${last.id}`, { column_id: todo.id });
    const waiting = (await staff.api.post(space.tasks, { title: "Now there is room", column_id: todo.id })).body;
    expect((await staff.api.patch(`${space.tasks}/${waiting.id}`, { column_id: review.id })).status).toBe(200);
  });

  it("lets people go over the limit, creating and moving, and a limit may be set below what a column holds", async () => {
    const created = await member.api.post(space.tasks, { title: "Over by a person", column_id: review.id });
    expect(created.status).toBe(201);
    const task = (await member.api.post(space.tasks, { title: "Moved over", column_id: todo.id })).body;
    expect((await member.api.patch(`${space.tasks}/${task.id}`, { column_id: review.id })).status).toBe(200);
    expect(await tasksIn(review.id)).toBe(4);
    expect((await member.api.patch(`${space.columns}/${review.id}`, { wip_limit: 1 })).status).toBe(200);
    expect((await staff.api.post(space.tasks, { title: "Still refused", column_id: review.id })).body).toEqual({
      error: "column is at its limit",
    });
  });

  it("holds staff to no limit once it is cleared, nor in a column without one", async () => {
    await member.api.patch(`${space.columns}/${review.id}`, { wip_limit: null });
    expect((await staff.api.post(space.tasks, { title: "No limit now", column_id: review.id })).status).toBe(201);
    expect((await staff.api.post(space.tasks, { title: "Never limited", column_id: todo.id })).status).toBe(201);
  });

  it("checks the body before the limit: a bad field is still a 400", async () => {
    await member.api.patch(`${space.columns}/${review.id}`, { wip_limit: 1 });
    const res = await staff.api.post(space.tasks, { title: "x", column_id: review.id, label_ids: [UNKNOWN] });
    expect(res.body).toEqual({ error: "invalid label" });
  });
});

describe("automations naming a column", () => {
  it("get config.task.column: no such column when the column is renamed or deleted, and lose it when it is back", async () => {
    const space = await newSpace("Automated");
    const automations = `${base}/${space.id}/automations`;
    const created = await org.owner.api.post(automations, {
      name: "Weekly review task",
      kind: "scheduled",
      status: "active",
      config: { cron: "0 9 * * 1", task: { title: "Review the week", column: "review" } },
    });
    expect(created.status).toBe(201);
    expect(created.body.automation.config_problem).toBeNull();
    const id = created.body.automation.id;
    const problem = async () => (await member.api.get(`${automations}/${id}`)).body.automation;
    const review = await columnNamed(space.board, "Review");
    await member.api.patch(`${space.columns}/${review.id}`, { name: "QA" });
    expect(await problem()).toMatchObject({ config_problem: "config.task.column: no such column", next_run_at: null });
    await member.api.patch(`${space.columns}/${review.id}`, { name: "Review" });
    expect((await problem()).config_problem).toBeNull();
    expect((await problem()).next_run_at).not.toBeNull();
    await member.api.delete(`${space.columns}/${review.id}`);
    expect((await problem()).config_problem).toBe("config.task.column: no such column");
    await member.api.post(space.columns, { name: "REVIEW" });
    expect((await problem()).config_problem).toBeNull();
  });
});
