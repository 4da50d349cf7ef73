import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, type Org, type Person, setupOrg } from "../helpers/factories";
import { TIMESTAMP } from "../helpers/http";
import { startTestServer, type TestServer } from "../helpers/server";

const UNKNOWN = "01a1fdb9-0000-7000-8000-000000000000";
const OUTSIDE = { error: "file must be under the Deliverables folder" };

interface FileNode {
  id: string;
  parent_id: string | null;
  kind: "file" | "folder";
  name: string;
  mime_type: string | null;
  size_bytes: number | null;
}

interface Space {
  id: string;
  todo: string;
  tasks: string;
  files: string;
}

let server: TestServer;
let org: Org;
let member: Person;
let viewer: Person;
let base: string;

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server, "Acme Deliverables");
  base = `/api/v1/organizations/${org.id}`;
  member = await addMember(org, ["Member"], "Mia Member");
  viewer = await addMember(org, ["Viewer"], "Vic Viewer");
});
afterAll(() => server.stop());

async function createSpace(name: string): Promise<Space> {
  const res = await member.api.post(`${base}/spaces`, { name });
  expect(res.status).toBe(201);
  const board = await member.api.get(`${base}/spaces/${res.body.id}/board`);
  return {
    id: res.body.id,
    todo: board.body.columns[0].id,
    tasks: `${base}/spaces/${res.body.id}/tasks`,
    files: `${base}/spaces/${res.body.id}/files`,
  };
}

async function createTask(s: Space, body: Record<string, unknown> = {}): Promise<string> {
  const res = await member.api.post(s.tasks, { title: "Ship it", column_id: s.todo, ...body });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function folder(s: Space, name: string, parentId: string | null = null): Promise<FileNode> {
  const res = await member.api.post(`${s.files}/folders`, { name, parent_id: parentId });
  if (res.status !== 201) throw new Error(`folder failed: ${res.status} ${res.text}`);
  return res.body.node;
}

async function textFile(s: Space, name: string, parentId: string | null, content = "hello"): Promise<FileNode> {
  const res = await member.api.post(`${s.files}/text`, { name, parent_id: parentId, content });
  if (res.status !== 201) throw new Error(`text failed: ${res.status} ${res.text}`);
  return res.body.node;
}

async function tree(s: Space): Promise<FileNode[]> {
  const res = await member.api.get(`${s.files}/tree`);
  expect(res.status).toBe(200);
  return res.body.nodes;
}

/** Root folders of the space named like `Deliverables`, ignoring case. */
async function deliverableRoots(s: Space): Promise<FileNode[]> {
  return (await tree(s)).filter(
    (n) => n.parent_id === null && n.kind === "folder" && n.name.toLowerCase() === "deliverables",
  );
}

/** The Deliverables root folder, created through a task that requires a deliverable. */
async function deliverablesFolder(s: Space): Promise<FileNode> {
  await createTask(s, { title: "Needs a deliverable", deliverable_required: true });
  const [root] = await deliverableRoots(s);
  if (!root) throw new Error("no Deliverables folder");
  return root;
}

const link = (s: Space, taskId: string, fileNodeId: unknown, who: Person = member) =>
  who.api.post(`${s.tasks}/${taskId}/deliverables`, { file_node_id: fileNodeId });
const links = (s: Space, taskId: string, who: Person = member) => who.api.get(`${s.tasks}/${taskId}/deliverables`);
const unlink = (s: Space, taskId: string, fileNodeId: string, who: Person = member) =>
  who.api.delete(`${s.tasks}/${taskId}/deliverables/${fileNodeId}`);

describe("deliverable_required creates the Deliverables folder", () => {
  it("does not create it for a task that does not require a deliverable", async () => {
    const s = await createSpace("No deliverables");
    await createTask(s);
    await createTask(s, { deliverable_required: false });
    expect(await tree(s)).toEqual([]);
  });

  it("creates the root folder Deliverables on create with deliverable_required: true, once", async () => {
    const s = await createSpace("Create requires");
    const res = await member.api.post(s.tasks, { title: "Report", column_id: s.todo, deliverable_required: true });
    expect(res.status).toBe(201);
    expect(res.body.deliverable_required).toBe(true);
    const nodes = await tree(s);
    expect(nodes).toHaveLength(1);
    expect(nodes[0]).toMatchObject({ parent_id: null, kind: "folder", name: "Deliverables" });
    await createTask(s, { deliverable_required: true });
    expect(await tree(s)).toEqual(nodes);
  });

  it("creates it on PATCH with deliverable_required: true", async () => {
    const s = await createSpace("Patch requires");
    const taskId = await createTask(s);
    expect((await member.api.patch(`${s.tasks}/${taskId}`, { deliverable_required: false })).status).toBe(200);
    expect(await tree(s)).toEqual([]);
    const res = await member.api.patch(`${s.tasks}/${taskId}`, { deliverable_required: true });
    expect(res.status).toBe(200);
    expect(res.body.deliverable_required).toBe(true);
    const roots = await deliverableRoots(s);
    expect(roots).toHaveLength(1);
    expect(roots[0]).toMatchObject({ name: "Deliverables", kind: "folder", parent_id: null });
    await member.api.patch(`${s.tasks}/${taskId}`, { deliverable_required: true });
    expect(await deliverableRoots(s)).toHaveLength(1);
  });

  it("keeps an existing root folder whose name differs only in case", async () => {
    const s = await createSpace("Lower case");
    const existing = await folder(s, "deliverables");
    await createTask(s, { deliverable_required: true });
    const nodes = await tree(s);
    expect(nodes.map((n) => n.id)).toEqual([existing.id]);
    expect(nodes[0]?.name).toBe("deliverables");
  });

  it("does not count a Deliverables folder that is not at the root", async () => {
    const s = await createSpace("Nested name");
    const docs = await folder(s, "Docs");
    await folder(s, "Deliverables", docs.id);
    await createTask(s, { deliverable_required: true });
    const roots = await deliverableRoots(s);
    expect(roots).toHaveLength(1);
    expect(roots[0]?.name).toBe("Deliverables");
  });

  it("creates it again after the old one was deleted", async () => {
    const s = await createSpace("Recreated");
    const first = await deliverablesFolder(s);
    expect((await member.api.delete(`${s.files}/${first.id}`)).status).toBe(204);
    expect(await deliverableRoots(s)).toEqual([]);
    await createTask(s, { deliverable_required: true });
    const roots = await deliverableRoots(s);
    expect(roots).toHaveLength(1);
    expect(roots[0]?.id).not.toBe(first.id);
  });
});

describe("POST|GET .../tasks/{taskId}/deliverables", () => {
  let s: Space;
  let root: FileNode;
  let taskId: string;

  beforeAll(async () => {
    s = await createSpace("Linking");
    root = await deliverablesFolder(s);
    taskId = await createTask(s, { title: "Linked task" });
  });

  it("answers {deliverables: []} for a task without links, to a Viewer too", async () => {
    const res = await links(s, taskId, viewer);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deliverables: [] });
  });

  it("lists links oldest first, links of the same millisecond in the order they were made", async () => {
    const t = await createTask(s, { title: "Quick links" });
    const files: FileNode[] = [];
    for (let i = 0; i < 5; i++) files.push(await textFile(s, `quick-${i}.md`, root.id, `${i}`));
    // Linked newest file first (ids sort by creation), with no pause between the links.
    for (const file of files.toReversed()) expect((await link(s, t, file.id)).status).toBe(204);
    const listed = (await links(s, t, viewer)).body.deliverables as { file_name: string; created_at: string }[];
    expect(listed.map((d) => d.file_name)).toEqual(files.toReversed().map((f) => f.name));
  });

  it("links a file under Deliverables: 204, then listed with its file's name, type and size", async () => {
    const file = await textFile(s, "report.md", root.id, "# Report\nAll done.");
    const res = await link(s, taskId, file.id);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    const list = await links(s, taskId, viewer);
    expect(list.status).toBe(200);
    expect(Object.keys(list.body)).toEqual(["deliverables"]);
    expect(list.body.deliverables).toHaveLength(1);
    const d = list.body.deliverables[0];
    expect(Object.keys(d).sort()).toEqual([
      "added_by",
      "created_at",
      "file_name",
      "file_node_id",
      "mime_type",
      "size_bytes",
      "task_id",
    ]);
    expect(d).toMatchObject({
      task_id: taskId,
      file_node_id: file.id,
      added_by: member.id,
      file_name: "report.md",
      mime_type: file.mime_type,
      size_bytes: 18,
    });
    expect(typeof d.mime_type).toBe("string");
    expect(d.size_bytes).toBe(file.size_bytes);
    expect(d.created_at).toMatch(TIMESTAMP);
  });

  it("lists links oldest first, and linking twice is harmless", async () => {
    const t = await createTask(s, { title: "Two files" });
    const a = await textFile(s, "a.txt", root.id, "a");
    const b = await textFile(s, "b.txt", root.id, "bb");
    expect((await link(s, t, a.id)).status).toBe(204);
    await Bun.sleep(2);
    expect((await link(s, t, b.id)).status).toBe(204);
    expect((await link(s, t, a.id)).status).toBe(204);
    const list = (await links(s, t)).body.deliverables;
    expect(list.map((d: { file_name: string; size_bytes: number }) => [d.file_name, d.size_bytes])).toEqual([
      ["a.txt", 1],
      ["b.txt", 2],
    ]);
  });

  it("keeps links per task: the same file can deliver two tasks", async () => {
    const t1 = await createTask(s, { title: "One" });
    const t2 = await createTask(s, { title: "Two" });
    const shared = await textFile(s, "shared.txt", root.id);
    expect((await link(s, t1, shared.id)).status).toBe(204);
    expect((await link(s, t2, shared.id)).status).toBe(204);
    expect((await links(s, t1)).body.deliverables.map((d: { file_node_id: string }) => d.file_node_id)).toEqual([
      shared.id,
    ]);
    expect((await links(s, t2)).body.deliverables.map((d: { file_node_id: string }) => d.file_node_id)).toEqual([
      shared.id,
    ]);
  });

  it("accepts a file in a folder nested inside Deliverables", async () => {
    const t = await createTask(s, { title: "Nested" });
    const reports = await folder(s, "Reports", root.id);
    const q3 = await folder(s, "Q3", reports.id);
    const file = await textFile(s, "summary.txt", q3.id);
    expect((await link(s, t, file.id)).status).toBe(204);
    expect((await links(s, t)).body.deliverables[0].file_node_id).toBe(file.id);
  });

  it("accepts a file moved into Deliverables", async () => {
    const t = await createTask(s, { title: "Moved in" });
    const file = await textFile(s, "late.txt", null);
    expect((await link(s, t, file.id)).body).toEqual(OUTSIDE);
    const moved = await member.api.patch(`${s.files}/${file.id}`, { parent_id: root.id });
    expect(moved.status).toBe(200);
    expect((await link(s, t, file.id)).status).toBe(204);
  });

  it("answers 400 file must be under the Deliverables folder for a file at the root", async () => {
    const file = await textFile(s, "loose.txt", null);
    const res = await link(s, taskId, file.id);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(OUTSIDE);
  });

  it("answers 400 for a file in another root folder, or in a Deliverables folder that is not at the root", async () => {
    const docs = await folder(s, "Docs");
    const inDocs = await textFile(s, "notes.txt", docs.id);
    const fake = await folder(s, "Deliverables", docs.id);
    const inFake = await textFile(s, "fake.txt", fake.id);
    for (const file of [inDocs, inFake]) {
      const res = await link(s, taskId, file.id);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(OUTSIDE);
    }
  });

  it("answers 400 file_node_id: must be a file, not a folder for the Deliverables folder or one inside it", async () => {
    const inside = await folder(s, "Drafts", root.id);
    const elsewhere = await folder(s, "Elsewhere");
    for (const node of [root, inside, elsewhere]) {
      const res = await link(s, taskId, node.id);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "file_node_id: must be a file, not a folder" });
    }
  });

  it("matches the deliverables folder name ignoring case", async () => {
    const other = await createSpace("Case space");
    const lower = await folder(other, "dELIVERABLES");
    const t = await createTask(other);
    const file = await textFile(other, "x.txt", lower.id);
    expect((await link(other, t, file.id)).status).toBe(204);
    expect((await links(other, t)).body.deliverables[0].file_name).toBe("x.txt");
  });

  it("answers 404 file not found for an unknown file, a deleted one, or one of another space", async () => {
    const deleted = await textFile(s, "deleted.txt", root.id);
    expect((await member.api.delete(`${s.files}/${deleted.id}`)).status).toBe(204);
    const other = await createSpace("Other space");
    const otherRoot = await deliverablesFolder(other);
    const foreign = await textFile(other, "foreign.txt", otherRoot.id);
    for (const id of [UNKNOWN, deleted.id, foreign.id]) {
      const res = await link(s, taskId, id);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "file not found" });
    }
  });

  it("answers 400 naming file_node_id when it is missing or not a UUID", async () => {
    const missing = await member.api.post(`${s.tasks}/${taskId}/deliverables`, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: "file_node_id: required" });
    const bad = await link(s, taskId, "report.md");
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: "file_node_id: must be a UUID" });
  });

  it("no longer lists a link whose file was deleted later", async () => {
    const t = await createTask(s, { title: "Loses its file" });
    const keep = await textFile(s, "keep.txt", root.id);
    const drop = await textFile(s, "drop.txt", root.id);
    await link(s, t, keep.id);
    await link(s, t, drop.id);
    expect((await member.api.delete(`${s.files}/${drop.id}`)).status).toBe(204);
    const list = (await links(s, t)).body.deliverables;
    expect(list.map((d: { file_node_id: string }) => d.file_node_id)).toEqual([keep.id]);
  });

  it("needs tasks.write to link: a Viewer gets 403 missing permission: tasks.write", async () => {
    const file = await textFile(s, "viewer.txt", root.id);
    const res = await link(s, taskId, file.id, viewer);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: tasks.write" });
    const ids = (await links(s, taskId)).body.deliverables.map((d: { file_node_id: string }) => d.file_node_id);
    expect(ids).not.toContain(file.id);
  });

  it("answers 404 task not found for an unknown or malformed task", async () => {
    const file = await textFile(s, "orphan.txt", root.id);
    for (const id of [UNKNOWN, "nope"]) {
      const post = await link(s, id, file.id);
      expect(post.status).toBe(404);
      expect(post.body).toEqual({ error: "task not found" });
      const get = await links(s, id);
      expect(get.status).toBe(404);
      expect(get.body).toEqual({ error: "task not found" });
      const del = await unlink(s, id, file.id);
      expect(del.status).toBe(404);
      expect(del.body).toEqual({ error: "task not found" });
    }
  });
});

describe("DELETE .../tasks/{taskId}/deliverables/{fileNodeId}", () => {
  let s: Space;
  let root: FileNode;

  beforeAll(async () => {
    s = await createSpace("Unlinking");
    root = await deliverablesFolder(s);
  });

  it("answers 204 and removes the link only: the file stays", async () => {
    const t = await createTask(s);
    const file = await textFile(s, "final.txt", root.id, "final");
    await link(s, t, file.id);
    const res = await unlink(s, t, file.id);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect((await links(s, t)).body).toEqual({ deliverables: [] });
    const node = await member.api.get(`${s.files}/${file.id}`);
    expect(node.status).toBe(200);
    expect(node.body.node).toMatchObject({ id: file.id, name: "final.txt", deleted_at: null });
    expect((await tree(s)).map((n) => n.id)).toContain(file.id);
    const content = await member.api.get(`${s.files}/${file.id}/content`);
    expect(content.text).toBe("final");
  });

  it("answers 404 deliverable not found for a link that does not exist (never linked, already removed, unknown, malformed)", async () => {
    const t = await createTask(s);
    const file = await textFile(s, "never.txt", root.id);
    const linked = await textFile(s, "once.txt", root.id);
    await link(s, t, linked.id);
    expect((await unlink(s, t, linked.id)).status).toBe(204);
    for (const id of [file.id, linked.id, UNKNOWN, "nope"]) {
      const res = await unlink(s, t, id);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "deliverable not found" });
    }
  });

  it("removes only the link of that task", async () => {
    const t1 = await createTask(s);
    const t2 = await createTask(s);
    const file = await textFile(s, "both.txt", root.id);
    await link(s, t1, file.id);
    await link(s, t2, file.id);
    expect((await unlink(s, t1, file.id)).status).toBe(204);
    expect((await links(s, t1)).body.deliverables).toEqual([]);
    expect((await links(s, t2)).body.deliverables).toHaveLength(1);
  });

  it("needs tasks.write: a Viewer gets 403 missing permission: tasks.write and the link stays", async () => {
    const t = await createTask(s);
    const file = await textFile(s, "guarded.txt", root.id);
    await link(s, t, file.id);
    const res = await unlink(s, t, file.id, viewer);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: tasks.write" });
    expect((await links(s, t)).body.deliverables).toHaveLength(1);
  });
});

describe("a root file named Deliverables", () => {
  it("does not keep a task that requires deliverables from being saved, and linking waits for the folder", async () => {
    const s = await createSpace("file in the way");
    const blocker = await textFile(s, "deliverables", null);
    const res = await member.api.post(s.tasks, {
      title: "needs output",
      column_id: s.todo,
      deliverable_required: true,
    });
    expect(res.status).toBe(201);
    expect(res.body.deliverable_required).toBe(true);
    expect(await deliverableRoots(s)).toEqual([]);
    expect((await tree(s)).map((n) => n.name)).toEqual(["deliverables"]);
    const attempt = await link(s, res.body.id, blocker.id);
    expect(attempt.status).toBe(400);
    expect(attempt.body).toEqual(OUTSIDE);
  });
});

/** POST .../deliverables/upload, as a browser sends a form with one file. */
async function uploadDeliverable(
  s: Space,
  taskId: string,
  file: { bytes: Uint8Array | string; name: string; type?: string } | null,
  who: Person = member,
) {
  const form = new FormData();
  if (file) {
    const blob = new Blob([file.bytes as BlobPart], file.type === undefined ? {} : { type: file.type });
    form.append("file", blob, file.name);
  } else form.append("note", "no file here");
  const res = await fetch(`${server.url}${s.tasks}/${taskId}/deliverables/upload`, {
    method: "POST",
    headers: { authorization: `Bearer ${who.token}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe("POST .../tasks/{taskId}/deliverables/upload", () => {
  const pdf = {
    bytes: new Uint8Array([0x25, 0x50, 0x44, 0x46, 0, 1, 2, 3]),
    name: "report.pdf",
    type: "application/pdf",
  };

  it("creates the Deliverables folder, stores the file there and links it: 201 {node, deliverable}", async () => {
    const s = await createSpace("upload one step");
    const t = await createTask(s);
    expect(await deliverableRoots(s)).toEqual([]);
    const res = await uploadDeliverable(s, t, pdf);
    expect(res.status).toBe(201);
    const [root] = await deliverableRoots(s);
    expect(root?.name).toBe("Deliverables");
    expect(res.body.node).toMatchObject({
      parent_id: root?.id,
      kind: "file",
      name: "report.pdf",
      mime_type: "application/pdf",
      size_bytes: 8,
    });
    expect(res.body.deliverable).toEqual({
      task_id: t,
      file_node_id: res.body.node.id,
      added_by: member.id,
      created_at: expect.stringMatching(TIMESTAMP),
      file_name: "report.pdf",
      mime_type: "application/pdf",
      size_bytes: 8,
    });
    expect((await links(s, t)).body.deliverables).toEqual([res.body.deliverable]);
    const content = await fetch(`${server.url}${s.files}/${res.body.node.id}/content`, {
      headers: { authorization: `Bearer ${member.token}` },
    });
    expect(new Uint8Array(await content.arrayBuffer())).toEqual(pdf.bytes);
  });

  it("uses the existing Deliverables folder (any case), and a small text file becomes an editable text file", async () => {
    const s = await createSpace("upload existing folder");
    const existing = await folder(s, "deliverables");
    const t = await createTask(s);
    const res = await uploadDeliverable(s, t, { bytes: "# Notes\n", name: "notes.md", type: "text/markdown" });
    expect(res.status).toBe(201);
    expect(res.body.node.parent_id).toBe(existing.id);
    expect(res.body.node.storage ?? "text").toBe("text");
    expect(await deliverableRoots(s)).toHaveLength(1);
  });

  it("answers 409 name already exists when the folder holds a file of that name, and links nothing", async () => {
    const s = await createSpace("upload clash");
    const t = await createTask(s);
    expect((await uploadDeliverable(s, t, pdf)).status).toBe(201);
    const other = await createTask(s);
    const res = await uploadDeliverable(s, other, pdf);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "name already exists" });
    expect((await links(s, other)).body.deliverables).toEqual([]);
  });

  it("answers 409 a file named Deliverables is in the way for a root file of that name", async () => {
    const s = await createSpace("upload blocked");
    await textFile(s, "Deliverables", null);
    const t = await createTask(s);
    const res = await uploadDeliverable(s, t, pdf);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "a file named Deliverables is in the way" });
    expect((await tree(s)).map((n) => n.name)).toEqual(["Deliverables"]);
  });

  it("answers 404 task not found for an unknown or malformed task, 400 without a file", async () => {
    const s = await createSpace("upload errors");
    for (const id of [UNKNOWN, "not-a-uuid"]) {
      const res = await uploadDeliverable(s, id, pdf);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "task not found" });
    }
    const t = await createTask(s);
    const res = await uploadDeliverable(s, t, null);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "file: required" });
    expect(await deliverableRoots(s)).toEqual([]);
  });

  it("needs tasks.write and files.write: a Viewer gets 403 missing permission: tasks.write", async () => {
    const s = await createSpace("upload guarded");
    const t = await createTask(s);
    const res = await uploadDeliverable(s, t, pdf, viewer);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: tasks.write" });
    const role = await org.owner.api.post(`${base}/roles`, { name: "Task writer", permissions: ["tasks.write"] });
    const writer = await addMember(org, [], "Tess Taskwriter");
    await org.owner.api.put(`${base}/members/${writer.id}/roles`, { role_ids: [role.body.role.id] });
    const denied = await uploadDeliverable(s, t, pdf, writer);
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: "missing permission: files.write" });
    expect(await deliverableRoots(s)).toEqual([]);
  });
});
