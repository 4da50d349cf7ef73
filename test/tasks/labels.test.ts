/**
 * A space's labels and a task's labels and priority (contract §11): the labels' routes, `label_ids` and
 * `priority` on create and PATCH, the task filters, a label's deletion leaving its tasks, and the live events.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, type Org, type Person, setupOrg } from "../helpers/factories";
import { TIMESTAMP, UUID } from "../helpers/http";
import { scenarios } from "../helpers/scenarios";
import { startTestServer, type TestServer } from "../helpers/server";
import { type Listener, listen } from "../helpers/sockets";

const UNKNOWN = "01a1fdb9-0000-7000-8000-000000000000";

interface Label {
  id: string;
  space_id: string;
  name: string;
  color: string;
  created_at: string;
}

interface Task {
  id: string;
  column_id: string;
  position: number;
  label_ids: string[];
  priority: string;
  version: number;
  updated_at: string;
}

interface Space {
  id: string;
  labels: string;
  tasks: string;
  /** Column ids in board order: To do, In progress, Review, Done. */
  columns: string[];
}

let server: TestServer;
let org: Org;
let member: Person;
let viewer: Person;
let live: Listener;
let base: string;
let space: Space;
let otherSpace: Space;

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server, "Acme Labels");
  base = `/api/v1/organizations/${org.id}/spaces`;
  member = await addMember(org, ["Member"], "Mia Member");
  viewer = await addMember(org, ["Viewer"], "Vic Viewer");
  live = await listen(server.url, org.id, viewer.token);
  space = await newSpace("Labelled");
  otherSpace = await newSpace("Labelled elsewhere");
});
afterAll(async () => {
  live?.close();
  await server.stop();
});

async function newSpace(name: string): Promise<Space> {
  const id = (await member.api.post(base, { name })).body.id as string;
  const board = await member.api.get(`${base}/${id}/board`);
  return {
    id,
    labels: `${base}/${id}/labels`,
    tasks: `${base}/${id}/tasks`,
    columns: board.body.columns.map((c: { id: string }) => c.id),
  };
}

async function label(where: Space, name: string, color = "#3B82F6"): Promise<Label> {
  const res = await member.api.post(where.labels, { name, color });
  if (res.status !== 201) throw new Error(`label create failed: ${res.status} ${res.text}`);
  return res.body.label;
}

async function task(where: Space, body: Record<string, unknown> = {}): Promise<Task> {
  const res = await member.api.post(where.tasks, { title: "A task", column_id: where.columns[0], ...body });
  if (res.status !== 201) throw new Error(`task create failed: ${res.status} ${res.text}`);
  return res.body;
}

const taskOf = async (where: Space, id: string): Promise<Task> => (await viewer.api.get(`${where.tasks}/${id}`)).body;

describe("GET|POST .../labels", () => {
  it("creates a label: 201 {label}, its colour in lower case, listed oldest first to readers, announced live", async () => {
    const fresh = await newSpace("Fresh labels");
    expect((await viewer.api.get(fresh.labels)).body).toEqual({ labels: [] });
    const res = await member.api.post(fresh.labels, { name: "  Bug  ", color: "#D73A4A" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(["label"]);
    const bug = res.body.label as Label;
    expect(Object.keys(bug).sort()).toEqual(["color", "created_at", "id", "name", "space_id"]);
    expect(bug).toMatchObject({ space_id: fresh.id, name: "Bug", color: "#d73a4a" });
    expect(bug.id).toMatch(UUID);
    expect(bug.created_at).toMatch(TIMESTAMP);
    const feature = await label(fresh, "Feature");
    const docs = await label(fresh, "Docs");
    expect((await viewer.api.get(fresh.labels)).body).toEqual({ labels: [bug, feature, docs] });
    const event = await live.next((e) => e.type === "label.created" && e.payload.id === bug.id);
    expect(event).toEqual({ type: "label.created", organization_id: org.id, space_id: fresh.id, payload: bug });
  });

  it("answers 409 name already exists for a name of the space, ignoring case; another space may have it", async () => {
    const fresh = await newSpace("Label names");
    await label(fresh, "Élan");
    expect((await member.api.post(fresh.labels, { name: "ÉLAN", color: "#000000" })).body).toEqual({
      error: "name already exists",
    });
    expect((await member.api.post(otherSpace.labels, { name: "élan", color: "#000000" })).status).toBe(201);
  });
});

describe("PATCH|DELETE .../labels/{labelId}", () => {
  it("renames and recolours a label: 200 {label}, only the fields given, announced live", async () => {
    const fresh = await newSpace("Relabel");
    const design = await label(fresh, "Design", "#00ff00");
    const renamed = await member.api.patch(`${fresh.labels}/${design.id}`, { name: "UX" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ label: { ...design, name: "UX" } });
    const recoloured = await member.api.patch(`${fresh.labels}/${design.id}`, { color: "#ABCDEF" });
    expect(recoloured.body).toEqual({ label: { ...design, name: "UX", color: "#abcdef" } });
    const event = await live.next((e) => e.type === "label.updated" && e.payload.color === "#abcdef");
    expect(event).toMatchObject({ space_id: fresh.id, payload: recoloured.body.label });
    // Its own name in another case is fine; another label's is not.
    await label(fresh, "Backend");
    expect((await member.api.patch(`${fresh.labels}/${design.id}`, { name: "ux" })).status).toBe(200);
    expect((await member.api.patch(`${fresh.labels}/${design.id}`, { name: "BACKEND" })).body).toEqual({
      error: "name already exists",
    });
  });

  it("deletes a label: 204; its tasks drop it, each as an update announced after label.deleted", async () => {
    const fresh = await newSpace("Unlabel");
    const doomed = await label(fresh, "Doomed");
    const kept = await label(fresh, "Kept");
    const both = await task(fresh, { label_ids: [doomed.id, kept.id] });
    const one = await task(fresh, { label_ids: [doomed.id] });
    const none = await task(fresh, { label_ids: [kept.id] });
    expect((await member.api.delete(`${fresh.labels}/${doomed.id}`)).status).toBe(204);
    expect((await viewer.api.get(fresh.labels)).body.labels).toEqual([kept]);
    expect(await taskOf(fresh, both.id)).toMatchObject({ label_ids: [kept.id], version: both.version + 1 });
    expect(await taskOf(fresh, one.id)).toMatchObject({ label_ids: [], version: one.version + 1 });
    expect(await taskOf(fresh, none.id)).toEqual(none);
    const deleted = await live.next((e) => e.type === "label.deleted" && e.payload.id === doomed.id);
    expect(deleted).toEqual({
      type: "label.deleted",
      organization_id: org.id,
      space_id: fresh.id,
      payload: { id: doomed.id },
    });
    for (const t of [both, one]) {
      const updated = await live.next((e) => e.type === "task.updated" && e.payload.id === t.id);
      expect(updated.payload).toEqual(await taskOf(fresh, t.id));
      expect(live.events.indexOf(updated)).toBeGreaterThan(live.events.indexOf(deleted));
    }
    expect((await member.api.delete(`${fresh.labels}/${doomed.id}`)).body).toEqual({ error: "label not found" });
  });
});

describe("labels: who may, and what is refused", () => {
  let bug: Label;
  let foreign: Label;
  beforeAll(async () => {
    bug = await label(space, "Refusals");
    foreign = await label(otherSpace, "Foreign");
  });
  // biome-ignore format: a table reads in columns
  const lines = [
    { method: "GET",    url: "{labels}",              as: "viewer",                                         status: 200 },
    { method: "POST",   url: "{labels}",              as: "viewer", body: { name: "N", color: "#000000" },  status: 403, error: "missing permission: tasks.write" },
    { method: "PATCH",  url: "{labels}/{bug}",        as: "viewer", body: { name: "N" },                    status: 403, error: "missing permission: tasks.write" },
    { method: "DELETE", url: "{labels}/{bug}",        as: "viewer",                                         status: 403, error: "missing permission: tasks.write" },
    { method: "POST",   url: "{labels}",              as: "member", body: { color: "#000000" },             status: 400, error: "name: required" },
    { method: "POST",   url: "{labels}",              as: "member", body: { name: " ", color: "#000000" },  status: 400, error: "name: must not be empty" },
    { method: "POST",   url: "{labels}",              as: "member", body: { name: "x".repeat(51), color: "#000000" }, status: 400, error: "name: must be at most 50 characters" },
    { method: "POST",   url: "{labels}",              as: "member", body: { name: "a\tb", color: "#000000" }, status: 400, error: "name: must not contain control characters" },
    { method: "POST",   url: "{labels}",              as: "member", body: { name: "N" },                    status: 400, error: "color: required" },
    { method: "POST",   url: "{labels}",              as: "member", body: { name: "N", color: "red" },      status: 400, error: "color: must be a #rrggbb color" },
    { method: "POST",   url: "{labels}",              as: "member", body: { name: "N", color: "#fff" },     status: 400, error: "color: must be a #rrggbb color" },
    { method: "POST",   url: "{labels}",              as: "member", body: { name: "N", color: "#12345g" },  status: 400, error: "color: must be a #rrggbb color" },
    { method: "POST",   url: "{labels}",              as: "member", body: { name: "N", color: "#1234567" }, status: 400, error: "color: must be a #rrggbb color" },
    { method: "POST",   url: "{labels}",              as: "member", body: { name: "N", color: 123456 },     status: 400, error: "color: must be a string" },
    { method: "PATCH",  url: "{labels}/{bug}",        as: "member", body: { color: "blue" },                status: 400, error: "color: must be a #rrggbb color" },
    { method: "PATCH",  url: "{labels}/{unknown}",    as: "member", body: { name: "N" },                    status: 404, error: "label not found" },
    { method: "PATCH",  url: "{labels}/not-a-uuid",   as: "member", body: { name: "N" },                    status: 404, error: "label not found" },
    { method: "PATCH",  url: "{labels}/{foreign}",    as: "member", body: { name: "N" },                    status: 404, error: "label not found" },
    { method: "DELETE", url: "{labels}/{foreign}",    as: "member",                                         status: 404, error: "label not found" },
    { method: "DELETE", url: "{labels}/{unknown}",    as: "member",                                         status: 404, error: "label not found" },
  ];
  scenarios(
    {
      url: () => server.url,
      tokens: () => ({ member: member.token, viewer: viewer.token }),
      params: () => ({ labels: space.labels, bug: bug.id, foreign: foreign.id, unknown: UNKNOWN }),
    },
    lines,
  );

  it("changes nothing when refused", async () => {
    expect((await viewer.api.get(space.labels)).body.labels).toContainEqual(bug);
    expect((await viewer.api.get(otherSpace.labels)).body.labels).toContainEqual(foreign);
  });
});

describe("a task's labels and priority", () => {
  let red: Label;
  let blue: Label;
  let green: Label;
  beforeAll(async () => {
    red = await label(space, "Red", "#ff0000");
    blue = await label(space, "Blue", "#0000ff");
    green = await label(space, "Green", "#00ff00");
  });

  it("starts with label_ids [] and priority none", async () => {
    const t = await task(space);
    expect(t).toMatchObject({ label_ids: [], priority: "none", comment_count: 0 });
  });

  it("takes label_ids and priority on create: repeats count once, ids in the order the labels were made", async () => {
    const t = await task(space, { label_ids: [green.id, red.id, green.id], priority: "urgent" });
    expect(t).toMatchObject({ label_ids: [red.id, green.id], priority: "urgent" });
    expect(await taskOf(space, t.id)).toEqual(t);
    const created = await live.next((e) => e.type === "task.created" && e.payload.id === t.id);
    expect(created.payload).toEqual(t);
  });

  it("replaces the labels on PATCH ([] removes them all) and changes the priority, announced live", async () => {
    const t = await task(space, { label_ids: [red.id] });
    const res = await member.api.patch(`${space.tasks}/${t.id}`, { label_ids: [blue.id, green.id], priority: "high" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ label_ids: [blue.id, green.id], priority: "high", version: t.version + 1 });
    const updated = await live.next((e) => e.type === "task.updated" && e.payload.id === t.id);
    expect(updated.payload).toEqual(res.body);
    const untouched = await member.api.patch(`${space.tasks}/${t.id}`, { title: "Renamed" });
    expect(untouched.body).toMatchObject({ label_ids: [blue.id, green.id], priority: "high" });
    const cleared = await member.api.patch(`${space.tasks}/${t.id}`, { label_ids: [], priority: "none" });
    expect(cleared.body).toMatchObject({ label_ids: [], priority: "none" });
    expect(await taskOf(space, t.id)).toEqual(cleared.body);
  });

  it("answers 400 invalid label for a label of another space, an unknown or a malformed id, and changes nothing", async () => {
    const foreign = await label(otherSpace, "Elsewhere");
    const t = await task(space, { label_ids: [red.id] });
    for (const ids of [[foreign.id], [red.id, UNKNOWN], ["not-a-uuid"]]) {
      expect(
        (await member.api.post(space.tasks, { title: "x", column_id: space.columns[0], label_ids: ids })).body,
      ).toEqual({ error: "invalid label" });
      expect((await member.api.patch(`${space.tasks}/${t.id}`, { label_ids: ids })).body).toEqual({
        error: "invalid label",
      });
    }
    expect(await taskOf(space, t.id)).toEqual(t);
  });

  it("answers 400 naming the field for a bad priority or label_ids", async () => {
    const t = await task(space);
    const cases: [Record<string, unknown>, string][] = [
      [{ priority: "critical" }, 'priority: must be one of "none", "low", "medium", "high", "urgent"'],
      [{ priority: null }, 'priority: must be one of "none", "low", "medium", "high", "urgent"'],
      [{ label_ids: red.id }, "label_ids: must be an array"],
      [{ label_ids: [1] }, "label_ids[0]: must be a string"],
      [{ label_ids: Array.from({ length: 51 }, () => red.id) }, "label_ids: must have at most 50 items"],
    ];
    for (const [body, error] of cases) {
      const created = await member.api.post(space.tasks, { title: "x", column_id: space.columns[0], ...body });
      expect({ body, answer: created.body }).toEqual({ body, answer: { error } });
      const patched = await member.api.patch(`${space.tasks}/${t.id}`, body);
      expect({ body, answer: patched.body }).toEqual({ body, answer: { error } });
    }
  });
});

describe("GET .../tasks?label_id=&priority=", () => {
  let filtered: Space;
  let a: Label;
  let b: Label;
  const titles = async (query: string) => {
    const res = await viewer.api.get(`${filtered.tasks}?${query}`);
    expect(res.status).toBe(200);
    return (res.body.tasks as (Task & { title: string })[]).map((t) => `${t.title}@${t.position}`);
  };
  beforeAll(async () => {
    filtered = await newSpace("Filtered");
    a = await label(filtered, "A");
    b = await label(filtered, "B");
    await task(filtered, { title: "plain" });
    await task(filtered, { title: "a-high", label_ids: [a.id], priority: "high" });
    await task(filtered, { title: "ab-low", label_ids: [a.id, b.id], priority: "low" });
    await task(filtered, { title: "b-high", label_ids: [b.id], priority: "high", column_id: filtered.columns[2] });
  });

  it("keeps the tasks carrying the label, their positions in the whole column", async () => {
    expect(await titles(`label_id=${a.id}`)).toEqual(["a-high@1", "ab-low@2"]);
    expect(await titles(`label_id=${b.id.toUpperCase()}`)).toEqual(["ab-low@2", "b-high@0"]);
  });

  it("keeps the tasks of the priority, and both filters together narrow further", async () => {
    expect(await titles("priority=high")).toEqual(["a-high@1", "b-high@0"]);
    expect(await titles("priority=none")).toEqual(["plain@0"]);
    expect(await titles(`priority=high&label_id=${a.id}`)).toEqual(["a-high@1"]);
    expect(await titles(`priority=urgent&label_id=${a.id}`)).toEqual([]);
  });

  it("filters nothing with empty values", async () => {
    expect(await titles("label_id=&priority=")).toHaveLength(4);
  });

  it("answers 400 invalid label for a label of another space or an unknown one, and 400 for another priority", async () => {
    const foreign = await label(otherSpace, "Not here");
    for (const id of [foreign.id, UNKNOWN, "nope"]) {
      expect((await viewer.api.get(`${filtered.tasks}?label_id=${id}`)).body).toEqual({ error: "invalid label" });
    }
    expect((await viewer.api.get(`${filtered.tasks}?priority=asap`)).body).toEqual({
      error: 'priority: must be one of "none", "low", "medium", "high", "urgent"',
    });
  });

  it("shows the fields in /me/tasks too", async () => {
    const mine = await task(filtered, {
      title: "mine",
      label_ids: [b.id],
      priority: "medium",
      assignee_user_id: member.id,
    });
    const listed = (await member.api.get(`/api/v1/me/tasks?org_id=${org.id}`)).body.tasks.find(
      (t: Task) => t.id === mine.id,
    );
    expect(listed).toMatchObject({ label_ids: [b.id], priority: "medium", comment_count: 0 });
  });
});
