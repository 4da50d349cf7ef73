import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHash } from "node:crypto";
import { addMember, type Org, type Person, setupOrg } from "../helpers/factories";
import { TIMESTAMP, UUID } from "../helpers/http";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let org: Org;
let member: Person;
let viewer: Person;
let spaceId: string;
let files: string;

const NODE_KEYS = [
  "checksum_sha256",
  "created_at",
  "created_by",
  "deleted_at",
  "editable",
  "id",
  "kind",
  "mime_type",
  "name",
  "parent_id",
  "size_bytes",
  "space_id",
  "updated_at",
];
const UNKNOWN = "01a1fdb9-0000-7000-8000-000000000000";

interface Node {
  id: string;
  name: string;
  kind: string;
  parent_id: string | null;
  updated_at: string;
}

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server);
  member = await addMember(org, ["Member"], "Mia Member");
  viewer = await addMember(org, ["Viewer"], "Vic Viewer");
  const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Launch" });
  if (space.status !== 201) throw new Error(`space create failed: ${space.status} ${space.text}`);
  spaceId = space.body.id;
  files = `/api/v1/organizations/${org.id}/spaces/${spaceId}/files`;
});
afterAll(() => server.stop());

async function folder(name: string, parentId: string | null = null, as: Person = member): Promise<Node> {
  const res = await as.api.post(`${files}/folders`, { name, parent_id: parentId });
  if (res.status !== 201) throw new Error(`folder create failed: ${res.status} ${res.text}`);
  return res.body.node;
}

async function textFile(name: string, parentId: string | null = null, content = ""): Promise<Node> {
  const res = await member.api.post(`${files}/text`, { name, parent_id: parentId, content });
  if (res.status !== 201) throw new Error(`text create failed: ${res.status} ${res.text}`);
  return res.body.node;
}

let folderCounter = 0;
/** A fresh folder at the root, so each test works in its own corner of the tree. */
const sandbox = () => folder(`sandbox ${++folderCounter}`);

const names = (nodes: { name: string }[]) => nodes.map((n) => n.name);
const children = async (parentId: string, extra = "") =>
  (await member.api.get(`${files}?parentId=${parentId}${extra}`)).body.nodes as Node[];

describe("POST .../files/folders", () => {
  it("answers 201 {node} with every field of a folder", async () => {
    const res = await member.api.post(`${files}/folders`, { name: "Designs" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(["node"]);
    const node = res.body.node;
    expect(Object.keys(node).sort()).toEqual(NODE_KEYS);
    expect(node.id).toMatch(UUID);
    expect(node).toMatchObject({
      space_id: spaceId,
      parent_id: null,
      kind: "folder",
      name: "Designs",
      mime_type: null,
      size_bytes: null,
      checksum_sha256: null,
      editable: false,
      created_by: member.id,
      deleted_at: null,
    });
    expect(node.created_at).toMatch(TIMESTAMP);
    expect(node.updated_at).toBe(node.created_at);
  });

  it("trims the name and nests under parent_id", async () => {
    const parent = await sandbox();
    const res = await member.api.post(`${files}/folders`, { name: "  Nested \t", parent_id: parent.id });
    expect(res.status).toBe(201);
    expect(res.body.node).toMatchObject({ name: "Nested", parent_id: parent.id });
  });

  it("puts a folder at the root for parent_id null or omitted", async () => {
    const a = await member.api.post(`${files}/folders`, { name: "root-null", parent_id: null });
    const b = await member.api.post(`${files}/folders`, { name: "root-omitted" });
    expect(a.body.node.parent_id).toBeNull();
    expect(b.body.node.parent_id).toBeNull();
  });

  it("refuses a name a live sibling has, ignoring case: 409 name already exists", async () => {
    const parent = await sandbox();
    await folder("Reports", parent.id);
    for (const name of ["Reports", "REPORTS", "  reports "]) {
      const res = await member.api.post(`${files}/folders`, { name, parent_id: parent.id });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: "name already exists" });
    }
    const file = await member.api.post(`${files}/text`, { name: "reports", parent_id: parent.id });
    expect(file.status).toBe(409);
    expect(file.body).toEqual({ error: "name already exists" });
  });

  it("compares names ignoring case beyond ASCII: Élan and élan are the same name", async () => {
    const parent = await sandbox();
    await folder("Élan", parent.id);
    const res = await member.api.post(`${files}/folders`, { name: "élan", parent_id: parent.id });
    // Ignoring case means in any script: "élan" beside "Élan" is the same name.
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "name already exists" });
  });

  it("allows the same name in another folder", async () => {
    const a = await sandbox();
    const b = await sandbox();
    await folder("Shared", a.id);
    const res = await member.api.post(`${files}/folders`, { name: "Shared", parent_id: b.id });
    expect(res.status).toBe(201);
  });

  it("allows the name again once the sibling that held it is deleted", async () => {
    const parent = await sandbox();
    const first = await folder("Archive", parent.id);
    expect((await member.api.delete(`${files}/${first.id}`)).status).toBe(204);
    const res = await member.api.post(`${files}/folders`, { name: "archive", parent_id: parent.id });
    expect(res.status).toBe(201);
    expect(res.body.node.id).not.toBe(first.id);
  });

  it("refuses names that break the rules with a 400 naming the rule", async () => {
    const parent = await sandbox();
    const cases: [string, string][] = [
      ["", "name: must be 1 to 255 characters"],
      ["   ", "name: must be 1 to 255 characters"],
      ["x".repeat(256), "name: must be 1 to 255 characters"],
      ["x".repeat(5000), "name: must be 1 to 255 characters"],
      ["tab\there", "name: must not contain control characters"],
      ["line\nbreak", "name: must not contain control characters"],
      ["line\u2028separator", "name: must not contain control characters"],
      ["para\u2029graph", "name: must not contain control characters"],
      ["invoice\u202etxt.exe", "name: must not contain control characters"],
      ["\u2066isolated\u2069.md", "name: must not contain control characters"],
      ["\u200b", "name: must contain a visible character"],
      [" \u2060\ufeff\u3164 ", "name: must contain a visible character"],
      ["a/b", "name: must not contain / or NUL"],
      ["/", "name: must not contain / or NUL"],
      [".", "name: must not be . or .."],
      ["..", "name: must not be . or .."],
      [" .. ", "name: must not be . or .."],
      ["nul\u0000byte", "name: must not contain NUL or unpaired surrogate characters"],
    ];
    for (const [name, error] of cases) {
      const res = await member.api.post(`${files}/folders`, { name, parent_id: parent.id });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error });
    }
    const missing = await member.api.post(`${files}/folders`, { parent_id: parent.id });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: "name: required" });
    expect(await children(parent.id)).toEqual([]);
  });

  it("accepts a name of exactly 255 characters, names with dots, and a right-to-left name with its direction mark", async () => {
    const parent = await sandbox();
    for (const name of ["y".repeat(255), "📄".repeat(255), "...", ".hidden", "v1.2", "דוח רבעוני\u200f.txt"]) {
      const res = await member.api.post(`${files}/folders`, { name, parent_id: parent.id });
      expect(res.status).toBe(201);
      expect(res.body.node.name).toBe(name);
    }
  });

  it("refuses a parent_id that is not a live folder of the space: 404 file not found as for any file, 400 for a file", async () => {
    const parent = await sandbox();
    const file = await textFile("leaf.txt", parent.id);
    const gone = await folder("gone", parent.id);
    await member.api.delete(`${files}/${gone.id}`);
    for (const [parentId, status, error] of [
      [UNKNOWN, 404, "file not found"],
      [gone.id, 404, "file not found"],
      [file.id, 400, "parent_id: not a folder"],
    ] as const) {
      const res = await member.api.post(`${files}/folders`, { name: "child", parent_id: parentId });
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ error });
    }
  });

  it("needs files.write: a Viewer gets 403 missing permission: files.write", async () => {
    const res = await viewer.api.post(`${files}/folders`, { name: "Viewer folder" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: files.write" });
    const text = await viewer.api.post(`${files}/text`, { name: "viewer.txt", content: "hi" });
    expect(text.status).toBe(403);
    expect(text.body).toEqual({ error: "missing permission: files.write" });
  });
});

describe("POST .../files/text", () => {
  it("answers 201 {node} with every field of a text file", async () => {
    const parent = await sandbox();
    const content = "# Plan\n\nShip it.\n";
    const res = await member.api.post(`${files}/text`, { name: " plan.md ", parent_id: parent.id, content });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(["node"]);
    const node = res.body.node;
    expect(Object.keys(node).sort()).toEqual(NODE_KEYS);
    expect(node).toMatchObject({
      space_id: spaceId,
      parent_id: parent.id,
      kind: "file",
      name: "plan.md",
      mime_type: "text/markdown",
      size_bytes: Buffer.byteLength(content),
      checksum_sha256: createHash("sha256").update(content).digest("hex"),
      editable: true,
      created_by: member.id,
      deleted_at: null,
    });
    expect(node.created_at).toMatch(TIMESTAMP);
    expect(node.updated_at).toMatch(TIMESTAMP);
  });

  it("creates an empty file when content is omitted", async () => {
    const res = await member.api.post(`${files}/text`, { name: `empty-${Date.now()}.txt` });
    expect(res.status).toBe(201);
    expect(res.body.node).toMatchObject({
      size_bytes: 0,
      checksum_sha256: createHash("sha256").update("").digest("hex"),
      mime_type: "text/plain",
      editable: true,
    });
  });
});

describe("GET .../files", () => {
  it("lists the live children of the root by default", async () => {
    const root = (await member.api.get(files)).body.nodes as Node[];
    expect(root.length).toBeGreaterThan(0);
    for (const n of root) expect(n.parent_id).toBeNull();
    expect(Object.keys(root[0] as object).sort()).toEqual(NODE_KEYS);
  });

  it("lists children with parentId: folders first, then by name ignoring case", async () => {
    const parent = await sandbox();
    for (const name of ["banana.txt", "Apple.txt", "cherry.txt"]) await textFile(name, parent.id);
    for (const name of ["zeta", "Alpha", "beta"]) await folder(name, parent.id);
    const nested = await folder("inner", (await children(parent.id)).find((n) => n.name === "beta")?.id ?? null);
    const res = await member.api.get(`${files}?parentId=${parent.id}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["nodes"]);
    expect(names(res.body.nodes)).toEqual(["Alpha", "beta", "zeta", "Apple.txt", "banana.txt", "cherry.txt"]);
    expect(names(res.body.nodes)).not.toContain(nested.name);
  });

  it("answers 404 file not found for an unknown or deleted parentId", async () => {
    const gone = await sandbox();
    await member.api.delete(`${files}/${gone.id}`);
    for (const id of [UNKNOWN, gone.id, "nope"]) {
      const res = await member.api.get(`${files}?parentId=${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "file not found" });
    }
  });

  it("answers 400 parentId: not a folder when parentId names a file", async () => {
    const file = await textFile("not-a-parent.txt", (await sandbox()).id);
    const res = await member.api.get(`${files}?parentId=${file.id}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "parentId: not a folder" });
  });

  it("searches names with q: case-insensitive substring among the parent's children", async () => {
    const parent = await sandbox();
    const sub = await folder("Quarterly", parent.id);
    await textFile("Q3 Report.md", parent.id);
    await textFile("annual-report.txt", parent.id);
    await textFile("notes.txt", parent.id);
    await textFile("report-deep.txt", sub.id);
    const res = await member.api.get(`${files}?parentId=${parent.id}&q=REPORT`);
    expect(res.status).toBe(200);
    expect(names(res.body.nodes)).toEqual(["annual-report.txt", "Q3 Report.md"]);
    const folders = await member.api.get(`${files}?parentId=${parent.id}&q=quart`);
    expect(names(folders.body.nodes)).toEqual(["Quarterly"]);
  });

  it("searches only the root's children with q and no parentId", async () => {
    const parent = await sandbox();
    await textFile("zebra-unique-root-search.txt", parent.id);
    const res = await member.api.get(`${files}?q=zebra-unique-root`);
    expect(res.status).toBe(200);
    expect(res.body.nodes).toEqual([]);
    await textFile("Zebra-Unique-Root-Search.md");
    const again = await member.api.get(`${files}?q=zebra-unique-root`);
    expect(names(again.body.nodes)).toEqual(["Zebra-Unique-Root-Search.md"]);
  });

  it("searches the whole space with q and scope=space, folders first", async () => {
    const parent = await sandbox();
    const deep = await folder("Level1", parent.id);
    const deeper = await folder("kiwi-Level2", deep.id);
    await textFile("kiwi-top.txt");
    await textFile("KIWI-deep.txt", deeper.id);
    await textFile("apple.txt", deeper.id);
    const res = await member.api.get(`${files}?q=kiwi&scope=space`);
    expect(res.status).toBe(200);
    expect(names(res.body.nodes)).toEqual(["kiwi-Level2", "KIWI-deep.txt", "kiwi-top.txt"]);
    const inParent = await member.api.get(`${files}?q=kiwi&scope=space&parentId=${parent.id}`);
    expect(names(inParent.body.nodes)).toEqual(["kiwi-Level2", "KIWI-deep.txt", "kiwi-top.txt"]);
  });

  it("matches q ignoring case beyond ASCII", async () => {
    const parent = await sandbox();
    await textFile("école-plan.md", parent.id);
    const res = await member.api.get(`${files}?parentId=${parent.id}&q=${encodeURIComponent("ÉCOLE")}`);
    expect(res.status).toBe(200);
    // `q` matches ignoring case in any script: ÉCOLE finds "école-plan.md".
    expect(names(res.body.nodes)).toEqual(["école-plan.md"]);
  });

  it("takes % and _ in q literally", async () => {
    const parent = await sandbox();
    for (const name of ["100% done.txt", "100 percent.txt", "a_b.txt", "axb.txt", "back\\slash.txt"]) {
      await textFile(name, parent.id);
    }
    const percent = await member.api.get(`${files}?parentId=${parent.id}&q=${encodeURIComponent("%")}`);
    expect(names(percent.body.nodes)).toEqual(["100% done.txt"]);
    const underscore = await member.api.get(`${files}?parentId=${parent.id}&q=_`);
    expect(names(underscore.body.nodes)).toEqual(["a_b.txt"]);
    const both = await member.api.get(`${files}?parentId=${parent.id}&q=${encodeURIComponent("0%")}`);
    expect(names(both.body.nodes)).toEqual(["100% done.txt"]);
    const backslash = await member.api.get(`${files}?parentId=${parent.id}&q=${encodeURIComponent("\\")}`);
    expect(names(backslash.body.nodes)).toEqual(["back\\slash.txt"]);
    const space = await member.api.get(`${files}?q=${encodeURIComponent("a_")}&scope=space`);
    expect(names(space.body.nodes)).toEqual(["a_b.txt"]);
  });

  it("leaves deleted nodes out of searches", async () => {
    const parent = await sandbox();
    const doomed = await textFile("mango-search.txt", parent.id);
    await member.api.delete(`${files}/${doomed.id}`);
    const res = await member.api.get(`${files}?q=mango-search&scope=space`);
    expect(res.body.nodes).toEqual([]);
  });

  it("is readable with files.read: a Viewer lists", async () => {
    const res = await viewer.api.get(files);
    expect(res.status).toBe(200);
  });
});

describe("GET .../files/tree", () => {
  it("answers every live node of the space, flat", async () => {
    const parent = await sandbox();
    const a = await folder("a", parent.id);
    const b = await folder("b", a.id);
    const leaf = await textFile("leaf.txt", b.id);
    const res = await member.api.get(`${files}/tree`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["nodes"]);
    const byId = new Map((res.body.nodes as Node[]).map((n) => [n.id, n]));
    for (const n of [parent, a, b, leaf]) expect(byId.get(n.id)).toEqual(n);
    expect(Object.keys(res.body.nodes[0]).sort()).toEqual(NODE_KEYS);
    const root = await member.api.get(files);
    for (const n of root.body.nodes as Node[]) expect(byId.has(n.id)).toBe(true);
    for (const n of res.body.nodes) expect(n.deleted_at).toBeNull();
  });

  it("answers only this space's nodes", async () => {
    const other = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Other" });
    const otherFiles = `/api/v1/organizations/${org.id}/spaces/${other.body.id}/files`;
    const mine = await sandbox();
    const res = await member.api.get(`${otherFiles}/tree`);
    expect(res.status).toBe(200);
    expect(res.body.nodes.map((n: Node) => n.id)).not.toContain(mine.id);
    for (const n of res.body.nodes) expect(n.space_id).toBe(other.body.id);
  });
});

describe("GET .../files/{nodeId}", () => {
  it("answers {node}", async () => {
    const parent = await sandbox();
    const res = await viewer.api.get(`${files}/${parent.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ node: parent });
  });

  it("answers 404 file not found for an unknown or malformed id, or a node of another space", async () => {
    const other = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Another" });
    const foreign = await member.api.post(`/api/v1/organizations/${org.id}/spaces/${other.body.id}/files/folders`, {
      name: "Foreign",
    });
    for (const id of [UNKNOWN, "nope", foreign.body.node.id]) {
      const res = await member.api.get(`${files}/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "file not found" });
    }
  });
});

describe("PATCH .../files/{nodeId}", () => {
  it("renames, trimming the name: 200 {node} with updated_at moved on", async () => {
    const parent = await sandbox();
    const node = await textFile("draft.txt", parent.id);
    await Bun.sleep(5);
    const res = await member.api.patch(`${files}/${node.id}`, { name: "  final.txt " });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["node"]);
    expect(Object.keys(res.body.node).sort()).toEqual(NODE_KEYS);
    expect(res.body.node).toMatchObject({ id: node.id, name: "final.txt", parent_id: parent.id });
    expect(Date.parse(res.body.node.updated_at)).toBeGreaterThan(Date.parse(node.updated_at));
    expect((await member.api.get(`${files}/${node.id}`)).body.node.name).toBe("final.txt");
  });

  it("renames to another case of its own name", async () => {
    const parent = await sandbox();
    const node = await textFile("readme.md", parent.id);
    const res = await member.api.patch(`${files}/${node.id}`, { name: "README.md" });
    expect(res.status).toBe(200);
    expect(res.body.node.name).toBe("README.md");
  });

  it("moves into a folder, and to the root with parent_id null", async () => {
    const parent = await sandbox();
    const target = await folder("target", parent.id);
    const node = await textFile("mover.txt", parent.id);
    const moved = await member.api.patch(`${files}/${node.id}`, { parent_id: target.id });
    expect(moved.status).toBe(200);
    expect(moved.body.node).toMatchObject({ parent_id: target.id, name: "mover.txt" });
    expect(names(await children(target.id))).toEqual(["mover.txt"]);
    expect(names(await children(parent.id))).toEqual(["target"]);

    const toRoot = await member.api.patch(`${files}/${node.id}`, { parent_id: null });
    expect(toRoot.status).toBe(200);
    expect(toRoot.body.node.parent_id).toBeNull();
    expect(names((await member.api.get(files)).body.nodes)).toContain("mover.txt");
    expect(await children(target.id)).toEqual([]);
  });

  it("renames and moves at once", async () => {
    const parent = await sandbox();
    const target = await folder("dest", parent.id);
    const node = await folder("src", parent.id);
    const res = await member.api.patch(`${files}/${node.id}`, { name: "renamed", parent_id: target.id });
    expect(res.status).toBe(200);
    expect(res.body.node).toMatchObject({ name: "renamed", parent_id: target.id });
  });

  it("keeps the parent when parent_id is omitted", async () => {
    const parent = await sandbox();
    const node = await folder("stay", parent.id);
    const res = await member.api.patch(`${files}/${node.id}`, { name: "stayed" });
    expect(res.body.node.parent_id).toBe(parent.id);
  });

  it("refuses a PATCH with neither field: 400 name or parent_id required", async () => {
    const node = await sandbox();
    const res = await member.api.patch(`${files}/${node.id}`, {});
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "name or parent_id required" });
  });

  it("refuses a name clash at the destination: 409 name already exists", async () => {
    const parent = await sandbox();
    const target = await folder("target", parent.id);
    await textFile("Same.txt", target.id);
    const node = await textFile("same.TXT", parent.id);
    const move = await member.api.patch(`${files}/${node.id}`, { parent_id: target.id });
    expect(move.status).toBe(409);
    expect(move.body).toEqual({ error: "name already exists" });
    const rename = await member.api.patch(`${files}/${node.id}`, { name: "TARGET" });
    expect(rename.status).toBe(409);
    expect(rename.body).toEqual({ error: "name already exists" });
    expect((await member.api.get(`${files}/${node.id}`)).body.node).toMatchObject({
      name: "same.TXT",
      parent_id: parent.id,
    });
  });

  it("refuses a bad new name with a 400", async () => {
    const node = await sandbox();
    for (const [name, error] of [
      ["", "name: must be 1 to 255 characters"],
      ["a/b", "name: must not contain / or NUL"],
      ["..", "name: must not be . or .."],
    ]) {
      const res = await member.api.patch(`${files}/${node.id}`, { name });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error });
    }
  });

  it("refuses moving a folder into itself or a descendant: 400 cannot move a folder into itself", async () => {
    const top = await sandbox();
    const mid = await folder("mid", top.id);
    const low = await folder("low", mid.id);
    for (const target of [top, mid, low]) {
      const res = await member.api.patch(`${files}/${top.id}`, { parent_id: target.id });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "cannot move a folder into itself" });
    }
    const self = await member.api.patch(`${files}/${mid.id}`, { parent_id: mid.id });
    expect(self.status).toBe(400);
    expect(self.body).toEqual({ error: "cannot move a folder into itself" });
    expect((await member.api.get(`${files}/${top.id}`)).body.node.parent_id).toBeNull();
    expect((await member.api.get(`${files}/${mid.id}`)).body.node.parent_id).toBe(top.id);
  });

  it("refuses a parent_id that is not a live folder", async () => {
    const parent = await sandbox();
    const file = await textFile("target.txt", parent.id);
    const node = await folder("n", parent.id);
    const res = await member.api.patch(`${files}/${node.id}`, { parent_id: file.id });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "parent_id: not a folder" });
    const unknown = await member.api.patch(`${files}/${node.id}`, { parent_id: UNKNOWN });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: "file not found" });
  });

  it("needs files.write: a Viewer gets 403 missing permission: files.write", async () => {
    const node = await sandbox();
    const res = await viewer.api.patch(`${files}/${node.id}`, { name: "mine now" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: files.write" });
  });
});

describe("DELETE .../files/{nodeId}", () => {
  it("soft-deletes the node and its whole subtree: 204, then 404 file not found everywhere", async () => {
    const top = await sandbox();
    const mid = await folder("mid", top.id);
    const leaf = await textFile("leaf.md", mid.id, "# gone");
    const sibling = await textFile("sibling.txt", null);

    const res = await member.api.delete(`${files}/${top.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");

    for (const node of [top, mid, leaf]) {
      const answers = [
        await member.api.get(`${files}/${node.id}`),
        await member.api.patch(`${files}/${node.id}`, { name: "zombie" }),
        await member.api.delete(`${files}/${node.id}`),
      ];
      for (const a of answers) {
        expect(a.status).toBe(404);
        expect(a.body).toEqual({ error: "file not found" });
      }
    }
    const content = await member.api.get(`${files}/${leaf.id}/content`);
    expect(content.status).toBe(404);
    expect(content.body).toEqual({ error: "file not found" });
    const list = await member.api.get(`${files}?parentId=${mid.id}`);
    expect(list.status).toBe(404);
    expect(list.body).toEqual({ error: "file not found" });

    const tree = (await member.api.get(`${files}/tree`)).body.nodes.map((n: Node) => n.id);
    for (const node of [top, mid, leaf]) expect(tree).not.toContain(node.id);
    expect(tree).toContain(sibling.id);
    const root = (await member.api.get(files)).body.nodes.map((n: Node) => n.id);
    expect(root).not.toContain(top.id);
  });

  it("a deleted node cannot be a move target", async () => {
    const a = await sandbox();
    const b = await sandbox();
    await member.api.delete(`${files}/${b.id}`);
    const res = await member.api.patch(`${files}/${a.id}`, { parent_id: b.id });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "file not found" });
  });

  it("needs files.write: a Viewer gets 403 missing permission: files.write", async () => {
    const node = await sandbox();
    const res = await viewer.api.delete(`${files}/${node.id}`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: files.write" });
    expect((await member.api.get(`${files}/${node.id}`)).status).toBe(200);
  });
});

describe("private spaces", () => {
  it("answer 404 space not found on every file route to a non-member", async () => {
    const hidden = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Vault", private: true });
    expect(hidden.status).toBe(201);
    const path = `/api/v1/organizations/${org.id}/spaces/${hidden.body.id}/files`;
    const secret = (await org.owner.api.post(`${path}/text`, { name: "secret.txt", content: "x" })).body.node;
    const answers = [
      await member.api.get(path),
      await member.api.get(`${path}/tree`),
      await member.api.get(`${path}/${secret.id}`),
      await member.api.get(`${path}/${secret.id}/content`),
      await member.api.post(`${path}/folders`, { name: "sneaky" }),
      await member.api.patch(`${path}/${secret.id}`, { name: "mine.txt" }),
      await member.api.delete(`${path}/${secret.id}`),
    ];
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "space not found" });
    }
  });
});

describe("files.read", () => {
  it("a member whose roles lack files.read gets 403 missing permission: files.read on every read", async () => {
    const base = `/api/v1/organizations/${org.id}`;
    const role = await org.owner.api.post(`${base}/roles`, { name: "Chat only", permissions: ["chat.write"] });
    expect(role.status).toBe(201);
    const chatty = await addMember(org, ["Viewer"], "Chad Chatonly");
    const set = await org.owner.api.put(`${base}/members/${chatty.id}/roles`, { role_ids: [role.body.role.id] });
    expect(set.status).toBe(200);
    const node = await textFile(`readable-${Date.now()}.txt`, null, "hello");
    for (const path of [files, `${files}/tree`, `${files}/${node.id}`, `${files}/${node.id}/content`, `${files}?q=x`]) {
      const res = await chatty.api.get(path);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: "missing permission: files.read" });
    }
    const write = await chatty.api.post(`${files}/folders`, { name: "nope" });
    expect(write.status).toBe(403);
    expect(write.body).toEqual({ error: "missing permission: files.write" });
  });
});
