/**
 * The access matrix of a private space (contract §2–3, docs/api.md "Spaces"), as a table: one line per route
 * registered below `/spaces/:spaceId`, with the permission it declares and the answer each kind of caller who
 * can see the space gets (2xx, 403 `missing permission: <perm>`, or the refusal of a rule that is more than a
 * permission). A test walks the app's routes and fails on a route without its line, so a new route is a new
 * line. Someone who cannot see the private space gets exactly 404 `space not found` everywhere below it, the
 * same answer as for a space that does not exist. Every line runs for every caller, each its own test.
 * Listings never carry the private space's rows to those who cannot see it, and losing membership (of the
 * organization, or of the space) takes effect on the next request.
 *
 * Write routes run for real: a caller who will get through acts on rows made for that one call (a fresh task,
 * room, message, file), so the matrix does not eat the rows the other callers need.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { join } from "node:path";
import { buildApp } from "../../src/app";
import { loadConfig } from "../../src/config";
import { openDatabase } from "../../src/db/client";
import { migrate } from "../../src/db/migrate";
import { createLogger } from "../../src/lib/log";
import { createServices } from "../../src/services";
import { addMember, addStaff, type Org, setupOrg } from "../helpers/factories";
import { type Client, type Reply, request } from "../helpers/http";
import { type Answer, type Scenario, type Sent, scenarios } from "../helpers/scenarios";
import { startTestServer, type TestServer, tempDir } from "../helpers/server";

const SPACE_ROUTE = "/api/v1/organizations/:orgId/spaces/:spaceId";
/** A well-formed id of no space at all. */
const NO_SPACE = "01a1fdb9-0000-7000-8000-0000000000ff";

const ROLE_PERMISSIONS = {
  Owner: [
    "org.manage",
    "org.members.manage",
    "spaces.create",
    "tasks.write",
    "chat.write",
    "files.read",
    "files.write",
  ],
  Member: ["spaces.create", "tasks.write", "chat.write", "files.read", "files.write"],
  Viewer: ["files.read"],
  "AI Staff": ["tasks.write", "chat.write", "files.read", "files.write"],
  /** A custom role holding only org.manage: it sees every space, and may do nothing else in one. */
  Manager: ["org.manage"],
} as const;
type RoleName = keyof typeof ROLE_PERMISSIONS;

type Route = { method: string; path: string; hooks: { detail?: Record<string, unknown> } };

/**
 * The refusals a cell of the table names, beside `2xx` and `403` (`missing permission: ` the route's permission):
 * rules that are more than a permission, met by callers who hold it.
 */
const REFUSALS = {
  /** The plain-GET twins of the collab socket. */
  ws: { status: 400, error: "websocket upgrade required" },
  owners: { status: 403, error: "only a space owner can manage its members" },
  author: { status: 403, error: "only the author can edit this message" },
  chat: { status: 403, error: "missing permission: chat.write" },
  /** Staff add files and propose changes; changing an existing file is for people (docs/api.md, Files). */
  propose: { status: 403, error: "service accounts cannot change existing files: propose a patch instead" },
  /** Staff propose, people decide. */
  review: { status: 403, error: "only a person can accept or reject a proposal" },
  approve: { status: 403, error: "only a person can approve or reject an automation" },
  /** A person made it: staff withdraw only their own pending proposals. */
  withdraw: { status: 403, error: "service accounts can only delete their own pending proposals" },
  /** Running an automation now, and a webhook's secret, are for people (contract §8). */
  run: { status: 403, error: "only a person can run an automation" },
  secret: { status: 403, error: "only a person can change a webhook's secret" },
  /** The repository agent staff work on is chosen by people. */
  gitLink: { status: 403, error: "only a person can change the space's git link" },
  /** A room goes with everything said in it: its creator, the space's owners or org.manage decide. */
  room: { status: 403, error: "only the room's creator or a space owner can delete this room" },
  /** Retrying is for a staff reply that failed, by a person: a plain message is not one. */
  notFailed: { status: 400, error: "message is not a failed reply" },
  retryPerson: { status: 403, error: "only a person can retry a reply" },
  /** Restoring a version is a person's decision, as accepting a proposal is. */
  restore: { status: 403, error: "only a person can restore a version" },
} as const;

type Cell = "2xx" | "403" | keyof typeof REFUSALS;

/** The kinds of caller who see the space, one column each. */
const COLUMNS = ["owner", "spaceOwner", "member", "viewer", "staff", "manager"] as const;
type Column = (typeof COLUMNS)[number];

/**
 * Every route below a space: `METHOD suffix` (`/` is the space itself), the permission it declares (`member`:
 * anyone who sees the space), and what each caller who sees the space gets. The org owner and the manager (a
 * custom role holding only `org.manage`) see S without being in it; the space owner is the Member who made S.
 */
// biome-ignore format: a table reads in columns
const ACCESS: readonly (readonly [route: string, need: string, ...cells: [Cell, Cell, Cell, Cell, Cell, Cell]])[] = [
  //                                                           permission     org owner space owner Member    Viewer    Staff       Manager
  ["GET /",                                                    "member",      "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "2xx"],
  ["GET /board",                                               "member",      "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "2xx"],
  ["GET /members",                                             "member",      "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "2xx"],
  ["POST /members",                                            "member",      "2xx",    "2xx",      "owners", "owners", "owners",   "2xx"],
  ["DELETE /members/:userId",                                  "member",      "2xx",    "2xx",      "owners", "owners", "owners",   "2xx"],
  ["GET /git-link",                                            "member",      "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "2xx"],
  ["PUT /git-link",                                            "files.write", "2xx",    "2xx",      "2xx",    "403",    "gitLink",  "403"],
  ["DELETE /git-link",                                         "files.write", "2xx",    "2xx",      "2xx",    "403",    "gitLink",  "403"],

  ["WS /files/collab/ws/:fileId",                              "files.read",  "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "403"],
  ["WS /files/collab/ws",                                      "files.read",  "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "403"],
  ["GET /files/collab/ws/:fileId",                             "files.read",  "ws",     "ws",       "ws",     "ws",     "ws",       "403"],
  ["GET /files/collab/ws",                                     "files.read",  "ws",     "ws",       "ws",     "ws",     "ws",       "403"],
  ["GET /files/proposals",                                     "files.read",  "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "403"],
  ["GET /files/:nodeId/proposals",                             "files.read",  "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "403"],
  ["POST /files/:nodeId/proposals",                            "files.read",  "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "403"],
  ["POST /files/proposals/:proposalId/accept",                 "files.write", "2xx",    "2xx",      "2xx",    "403",    "review",   "403"],
  ["POST /files/proposals/:proposalId/reject",                 "files.write", "2xx",    "2xx",      "2xx",    "403",    "review",   "403"],
  ["GET /files",                                               "files.read",  "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "403"],
  ["GET /files/tree",                                          "files.read",  "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "403"],
  ["POST /files/folders",                                      "files.write", "2xx",    "2xx",      "2xx",    "403",    "2xx",      "403"],
  ["POST /files/text",                                         "files.write", "2xx",    "2xx",      "2xx",    "403",    "2xx",      "403"],
  ["POST /files/upload",                                       "files.write", "2xx",    "2xx",      "2xx",    "403",    "2xx",      "403"],
  ["GET /files/:nodeId",                                       "files.read",  "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "403"],
  ["GET /files/:nodeId/content",                               "files.read",  "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "403"],
  ["GET /files/:nodeId/versions",                              "files.read",  "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "403"],
  ["GET /files/:nodeId/versions/:versionId/content",           "files.read",  "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "403"],
  ["POST /files/:nodeId/versions/:versionId/restore",          "files.write", "2xx",    "2xx",      "2xx",    "403",    "restore",  "403"],
  ["PUT /files/:nodeId/content",                               "files.write", "2xx",    "2xx",      "2xx",    "403",    "propose",  "403"],
  ["PATCH /files/:nodeId",                                     "files.write", "2xx",    "2xx",      "2xx",    "403",    "propose",  "403"],
  ["DELETE /files/:nodeId",                                    "files.write", "2xx",    "2xx",      "2xx",    "403",    "propose",  "403"],

  ["GET /tasks",                                               "member",      "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "2xx"],
  ["POST /tasks",                                              "tasks.write", "2xx",    "2xx",      "2xx",    "403",    "2xx",      "403"],
  ["GET /tasks/:taskId",                                       "member",      "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "2xx"],
  ["PATCH /tasks/:taskId",                                     "tasks.write", "2xx",    "2xx",      "2xx",    "403",    "2xx",      "403"],
  ["DELETE /tasks/:taskId",                                    "tasks.write", "2xx",    "2xx",      "2xx",    "403",    "2xx",      "403"],
  ["GET /tasks/:taskId/messages",                              "member",      "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "2xx"],
  ["POST /tasks/:taskId/messages",                             "tasks.write", "2xx",    "2xx",      "2xx",    "403",    "2xx",      "403"],
  ["GET /tasks/:taskId/deliverables",                          "member",      "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "2xx"],
  ["POST /tasks/:taskId/deliverables",                         "tasks.write", "2xx",    "2xx",      "2xx",    "403",    "2xx",      "403"],
  ["POST /tasks/:taskId/deliverables/upload",                  "tasks.write", "2xx",    "2xx",      "2xx",    "403",    "2xx",      "403"],
  ["DELETE /tasks/:taskId/deliverables/:fileNodeId",           "tasks.write", "2xx",    "2xx",      "2xx",    "403",    "2xx",      "403"],
  ["POST /board/columns",                                      "tasks.write", "2xx",    "2xx",      "2xx",    "403",    "2xx",      "403"],
  ["PATCH /board/columns/:columnId",                           "tasks.write", "2xx",    "2xx",      "2xx",    "403",    "2xx",      "403"],
  ["DELETE /board/columns/:columnId",                          "tasks.write", "2xx",    "2xx",      "2xx",    "403",    "2xx",      "403"],
  ["GET /labels",                                              "member",      "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "2xx"],
  ["POST /labels",                                             "tasks.write", "2xx",    "2xx",      "2xx",    "403",    "2xx",      "403"],
  ["PATCH /labels/:labelId",                                   "tasks.write", "2xx",    "2xx",      "2xx",    "403",    "2xx",      "403"],
  ["DELETE /labels/:labelId",                                  "tasks.write", "2xx",    "2xx",      "2xx",    "403",    "2xx",      "403"],

  ["GET /chat-rooms",                                          "member",      "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "2xx"],
  ["POST /chat-rooms",                                         "chat.write",  "2xx",    "2xx",      "2xx",    "403",    "2xx",      "403"],
  ["DELETE /chat-rooms/:roomId",                               "chat.write",  "2xx",    "2xx",      "room",   "403",    "room",     "403"],
  ["GET /chat-rooms/:roomId/messages",                         "member",      "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "2xx"],
  ["GET /chat-rooms/:roomId/messages/:messageId/replies",      "member",      "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "2xx"],
  ["POST /chat-rooms/:roomId/uploads",                         "chat.write",  "2xx",    "2xx",      "2xx",    "403",    "2xx",      "403"],
  ["POST /chat-rooms/:roomId/messages",                        "chat.write",  "2xx",    "2xx",      "2xx",    "403",    "2xx",      "403"],
  ["PATCH /chat-rooms/:roomId/messages/:messageId",            "member",      "2xx",    "2xx",      "2xx",    "author", "2xx",      "author"],
  ["DELETE /chat-rooms/:roomId/messages/:messageId",           "member",      "2xx",    "2xx",      "2xx",    "chat",   "2xx",      "chat"],
  ["POST /chat-rooms/:roomId/messages/:messageId/reactions",   "chat.write",  "2xx",    "2xx",      "2xx",    "403",    "2xx",      "403"],
  ["POST /chat-rooms/:roomId/messages/:messageId/retry",       "chat.write",  "notFailed", "notFailed", "notFailed", "403", "retryPerson", "403"],
  ["DELETE /chat-rooms/:roomId/messages/:messageId/reactions", "chat.write",  "2xx",    "2xx",      "2xx",    "403",    "2xx",      "403"],
  ["POST /chat-rooms/:roomId/read",                            "member",      "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "2xx"],

  ["GET /automations",                                         "files.read",  "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "403"],
  ["GET /automations/:automationId",                           "files.read",  "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "403"],
  ["POST /automations",                                        "files.write", "2xx",    "2xx",      "2xx",    "403",    "2xx",      "403"],
  ["PATCH /automations/:automationId",                         "files.write", "2xx",    "2xx",      "2xx",    "403",    "2xx",      "403"],
  ["DELETE /automations/:automationId",                        "files.write", "2xx",    "2xx",      "2xx",    "403",    "withdraw", "403"],
  ["POST /automations/:automationId/approve",                  "files.write", "2xx",    "2xx",      "2xx",    "403",    "approve",  "403"],
  ["POST /automations/:automationId/reject",                   "files.write", "2xx",    "2xx",      "2xx",    "403",    "approve",  "403"],
  ["GET /automations/:automationId/runs",                      "files.read",  "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "403"],
  ["POST /automations/:automationId/run",                      "files.write", "2xx",    "2xx",      "2xx",    "403",    "run",      "403"],
  ["POST /automations/:automationId/webhook-secret",           "files.write", "2xx",    "2xx",      "2xx",    "403",    "secret",   "403"],
  ["POST /automations/:automationId/tunnel-link",              "files.read",  "2xx",    "2xx",      "2xx",    "2xx",    "2xx",      "403"],


];

/** A route below a space, from its line of the table. */
interface SpaceRoute {
  method: string;
  path: string;
  /** The part after `/spaces/:spaceId`, e.g. `/tasks/:taskId`. */
  suffix: string;
  /** `member` or a catalogue permission. */
  need: string;
  key: string;
  /** What each kind of caller who sees the space gets. */
  cells: Record<Column, Cell>;
}

const routes: SpaceRoute[] = ACCESS.map(([line, need, ...cells]) => {
  const [method, slashed] = line.split(" ") as [string, string];
  const suffix = slashed === "/" ? "" : slashed;
  return {
    method,
    path: SPACE_ROUTE + suffix,
    suffix,
    need,
    key: `${method} ${suffix}`,
    cells: Object.fromEntries(COLUMNS.map((column, i) => [column, cells[i]])) as Record<Column, Cell>,
  };
});

/** The callers of the matrix: their role, where they stand towards S, and the column of the table they read. */
const ORG_OWNER = "org owner (not in S)";
const CAST: readonly { name: string; role: RoleName; column: Column; inS?: boolean; ownsS?: boolean }[] = [
  { name: ORG_OWNER, role: "Owner", column: "owner" },
  { name: "space owner (Member)", role: "Member", column: "spaceOwner", inS: true, ownsS: true },
  { name: "Member in S", role: "Member", column: "member", inS: true },
  { name: "Member not in S", role: "Member", column: "member" },
  { name: "Viewer in S", role: "Viewer", column: "viewer", inS: true },
  { name: "Viewer not in S", role: "Viewer", column: "viewer" },
  { name: "Staff In", role: "AI Staff", column: "staff", inS: true },
  { name: "Staff Out", role: "AI Staff", column: "staff" },
  { name: "org.manage holder not in S", role: "Manager", column: "manager" },
];

/** Someone calling the API. */
interface Caller {
  name: string;
  token: string;
  api: Client;
  userId: string;
  role: RoleName;
  permissions: ReadonlySet<string>;
  /** A member of the private space S. */
  inS: boolean;
  /** The owner of S (its creator). */
  ownsS: boolean;
  column: Column;
}

/** Ids of the rows of one space. */
interface SpaceRows {
  id: string;
  label: string;
  board: string;
  columns: string[];
  todo: string;
  /** A label of the space. */
  labelId: string;
  task: string;
  taskMessage: string;
  deliverables: string;
  deliverableFile: string;
  room: string;
  message: string;
  attachment: string;
  folder: string;
  subfolder: string;
  textFile: string;
  uploadFile: string;
  proposal: string;
  automation: string;
}

/** One request of a route, path parameters apart from the defaults. */
interface Req {
  params?: Record<string, string>;
  query?: string;
  body?: unknown;
  raw?: Uint8Array | string;
  contentType?: string;
}

interface Ctx {
  caller: Caller;
  rows: SpaceRows;
  /** True when the caller will get past the permission check: the call will change rows, give it its own. */
  live: boolean;
}

/** How to call one route: a body, fresh rows, extra variants. */
interface Plan {
  build: (ctx: Ctx) => Promise<Req | Req[]> | Req | Req[];
}

let server: TestServer;
let org: Org;
let orgBase: string;
/** The routes the app registers below a space. */
let registered: { key: string; need: string; space: boolean }[];
let owner: Caller;
let spaceOwner: Caller;
let callers: Caller[];
let spare: Caller;
let leaver: Caller;
let dropped: Caller;
let S: SpaceRows;
let P: SpaceRows;

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

/** Fails setup loudly when a call that builds state does not answer as expected. */
function must(res: Reply, status: number): Reply {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status} ${res.text}`);
  return res;
}

/** A multipart body as a browser sends it. */
async function multipart(name: string, bytes: Uint8Array<ArrayBuffer>, type: string, parentId?: string) {
  const form = new FormData();
  if (parentId) form.append("parent_id", parentId);
  form.append("file", new Blob([bytes], { type }), name);
  const encoded = new Response(form);
  // Read the type (with its boundary) before the body: once the body is consumed Bun no longer reports it.
  const contentType = encoded.headers.get("content-type") as string;
  return { raw: new Uint8Array(await encoded.arrayBuffer()), contentType };
}

const spaceBase = (spaceId: string) => `${orgBase}/spaces/${spaceId}`;

/** Fills a space with one row of every kind, through the API, as its owner. */
async function fill(api: Client, spaceId: string, label: string): Promise<SpaceRows> {
  const base = spaceBase(spaceId);
  const board = must(await api.get(`${base}/board`), 200).body;
  const columns = board.columns.map((c: { id: string }) => c.id);
  const task = must(
    await api.post(`${base}/tasks`, { title: `${label} task`, column_id: columns[0], deliverable_required: true }),
    201,
  ).body.id;
  const taskMessage = must(await api.post(`${base}/tasks/${task}/messages`, { content: `${label} comment` }), 201).body
    .id;
  const labelId = must(await api.post(`${base}/labels`, { name: `${label} label`, color: "#336699" }), 201).body.label
    .id;
  const root = must(await api.get(`${base}/files`), 200).body.nodes as { id: string; name: string }[];
  const deliverables = root.find((n) => n.name === "Deliverables")?.id as string;
  const deliverableFile = must(
    await api.post(`${base}/files/text`, { name: `${label}-report.md`, parent_id: deliverables, content: "# report" }),
    201,
  ).body.node.id;
  must(await api.post(`${base}/tasks/${task}/deliverables`, { file_node_id: deliverableFile }), 204);
  const rooms = must(await api.get(`${base}/chat-rooms`), 200).body.chat_rooms as { id: string; name: string }[];
  const room = rooms.find((r) => r.name === "general")?.id as string;
  const posted = must(
    await api.post(`${base}/chat-rooms/${room}/messages`, {
      content: `${label} hello`,
      attachments: [{ url: `https://example.com/${label}-spec.pdf` }],
    }),
    201,
  ).body;
  must(await api.post(`${base}/chat-rooms/${room}/messages/${posted.message.id}/reactions`, { emoji: "👍" }), 201);
  const folder = must(await api.post(`${base}/files/folders`, { name: `${label} Design` }), 201).body.node.id;
  const subfolder = must(await api.post(`${base}/files/folders`, { name: "Drafts", parent_id: folder }), 201).body.node
    .id;
  const textFile = must(
    await api.post(`${base}/files/text`, { name: "notes.md", parent_id: folder, content: `${label} notes` }),
    201,
  ).body.node.id;
  const upload = await multipart(`${label}.bin`, new Uint8Array([0, 1, 2, 3, 255]), "application/octet-stream", folder);
  const uploadFile = must(await api.post(`${base}/files/upload`, undefined, upload), 201).body.node.id;
  const proposal = must(
    await api.post(`${base}/files/${textFile}/proposals`, { proposed_content: `${label} proposed` }),
    201,
  ).body.proposal.id;
  must(await api.put(`${base}/git-link`, { repo_url: `https://git.example.com/${label}.git`, ref: "main" }), 200);
  const automation = must(
    await api.post(`${base}/automations`, { name: `${label} digest`, kind: "scheduled", status: "pending_approval" }),
    201,
  ).body.automation.id;
  return {
    id: spaceId,
    label,
    board: board.board.id,
    columns,
    todo: columns[0],
    labelId,
    task,
    taskMessage,
    deliverables,
    deliverableFile,
    room,
    message: posted.message.id,
    attachment: posted.attachments[0].id,
    folder,
    subfolder,
    textFile,
    uploadFile,
    proposal,
    automation,
  };
}

/** The owner of a space's rows: the creator of both S and P. */
const rowsOwner = () => spaceOwner;

// Fresh rows for a call that will change them.
async function freshTask(rows: SpaceRows): Promise<string> {
  return must(
    await rowsOwner().api.post(`${spaceBase(rows.id)}/tasks`, { title: unique("task"), column_id: rows.todo }),
    201,
  ).body.id;
}
async function freshColumn(rows: SpaceRows): Promise<string> {
  return must(await rowsOwner().api.post(`${spaceBase(rows.id)}/board/columns`, { name: unique("column") }), 201).body
    .column.id;
}
async function freshLabel(rows: SpaceRows): Promise<string> {
  return must(
    await rowsOwner().api.post(`${spaceBase(rows.id)}/labels`, { name: unique("label"), color: "#336699" }),
    201,
  ).body.label.id;
}
async function freshTextFile(rows: SpaceRows): Promise<string> {
  return must(
    await rowsOwner().api.post(`${spaceBase(rows.id)}/files/text`, { name: unique("scratch.md"), content: "x" }),
    201,
  ).body.node.id;
}
/** A text file written twice over REST, and its oldest version (the text before the write). */
async function freshVersion(rows: SpaceRows): Promise<Record<string, string>> {
  const nodeId = await freshTextFile(rows);
  const files = `${spaceBase(rows.id)}/files/${nodeId}`;
  must(
    await rowsOwner().api.put(`${files}/content`, undefined, { raw: "second text", contentType: "text/plain" }),
    200,
  );
  const versions = must(await rowsOwner().api.get(`${files}/versions`), 200).body.versions;
  return { nodeId, versionId: versions.at(-1).id };
}
async function freshProposal(rows: SpaceRows): Promise<string> {
  const fileId = await freshTextFile(rows);
  return must(
    await rowsOwner().api.post(`${spaceBase(rows.id)}/files/${fileId}/proposals`, { proposed_content: "y" }),
    201,
  ).body.proposal.id;
}
async function freshAutomation(rows: SpaceRows): Promise<string> {
  return must(
    await rowsOwner().api.post(`${spaceBase(rows.id)}/automations`, {
      name: unique("automation"),
      kind: "webhook",
      status: "pending_approval",
    }),
    201,
  ).body.automation.id;
}
/** A reverse tunnel, which a one-time link opens. */
async function tunnelAutomation(rows: SpaceRows): Promise<string> {
  return must(
    await rowsOwner().api.post(`${spaceBase(rows.id)}/automations`, {
      name: unique("tunnel"),
      kind: "reverse_tunnel",
      status: "active",
    }),
    201,
  ).body.automation.id;
}
/** An active automation that can run: a yearly message in the space's first room. */
async function activeAutomation(rows: SpaceRows): Promise<string> {
  return must(
    await rowsOwner().api.post(`${spaceBase(rows.id)}/automations`, {
      name: unique("automation"),
      kind: "scheduled",
      status: "active",
      config: { cron: "0 0 1 1 *", channel: "general", message: "yearly" },
    }),
    201,
  ).body.automation.id;
}
async function freshMessage(rows: SpaceRows, author: Client): Promise<string> {
  return must(
    await author.post(`${spaceBase(rows.id)}/chat-rooms/${rows.room}/messages`, { content: unique("message") }),
    201,
  ).body.message.id;
}

/** `{ [name]: id of a fresh row }` for a call that will get through, else nothing (the default ids serve). */
async function freshParam(live: boolean, name: string, make: () => Promise<string>): Promise<Record<string, string>> {
  return live ? { [name]: await make() } : {};
}

/** Space membership of the spare member, made what a call needs. */
async function spareInSpace(rows: SpaceRows, present: boolean): Promise<void> {
  const base = spaceBase(rows.id);
  const res = present
    ? await rowsOwner().api.post(`${base}/members`, { user_id: spare.userId })
    : await rowsOwner().api.delete(`${base}/members/${spare.userId}`);
  if (![201, 204, 404, 409].includes(res.status)) throw new Error(`spare membership: ${res.status} ${res.text}`);
}

const proposalReview: Plan = {
  build: async ({ rows, live }) => ({ params: await freshParam(live, "proposalId", () => freshProposal(rows)) }),
};
const automationReview: Plan = {
  build: async ({ rows, live }) => ({ params: await freshParam(live, "automationId", () => freshAutomation(rows)) }),
};

/** Callers who can post get their own message to edit or delete; the others try the owner's. */
const authorFor = (ctx: Ctx) => (ctx.caller.permissions.has("chat.write") ? ctx.caller.api : rowsOwner().api);

/**
 * Plans by `METHOD suffix`. A route without one is called with the default ids (and `{}` as a body); a write
 * route without one fails for callers who get through, asking for a plan, since its body is unknown.
 */
const PLANS: Record<string, Plan> = {
  "WS /files/collab/ws": { build: ({ rows }) => ({ query: `?file_id=${rows.textFile}` }) },
  "GET /files/collab/ws": { build: ({ rows }) => ({ query: `?file_id=${rows.textFile}` }) },
  "GET /files": {
    build: ({ rows }) => [
      {},
      { query: `?parentId=${rows.folder}` },
      { query: "?q=notes" },
      { query: "?q=notes&scope=space" },
    ],
  },
  "GET /files/:nodeId": {
    build: ({ rows }) =>
      [rows.textFile, rows.folder, rows.uploadFile, rows.deliverableFile].map((id) => ({ params: { nodeId: id } })),
  },
  "GET /files/:nodeId/content": {
    build: ({ rows }) => [rows.textFile, rows.uploadFile].map((id) => ({ params: { nodeId: id } })),
  },
  "GET /chat-rooms/:roomId/messages": { build: () => [{}, { query: "?limit=1" }] },
  "GET /tasks/:taskId/messages": { build: () => [{}, { query: "?limit=1" }] },

  "POST /members": {
    build: async ({ rows, live }) => {
      if (live) await spareInSpace(rows, false);
      return { body: { user_id: spare.userId } };
    },
  },
  "DELETE /members/:userId": {
    build: async ({ rows, live }) => {
      if (live) await spareInSpace(rows, true);
      return { params: { userId: spare.userId } };
    },
  },

  "POST /tasks": { build: ({ rows }) => ({ body: { title: unique("task"), column_id: rows.todo } }) },
  "PATCH /tasks/:taskId": {
    build: async ({ rows, live }) => ({
      params: await freshParam(live, "taskId", () => freshTask(rows)),
      body: { title: unique("renamed") },
    }),
  },
  "DELETE /tasks/:taskId": {
    build: async ({ rows, live }) => ({ params: await freshParam(live, "taskId", () => freshTask(rows)) }),
  },
  "POST /tasks/:taskId/messages": { build: () => ({ body: { content: unique("comment") } }) },
  "POST /tasks/:taskId/deliverables": {
    build: async ({ rows, live }) => ({
      params: await freshParam(live, "taskId", () => freshTask(rows)),
      body: { file_node_id: rows.deliverableFile },
    }),
  },
  "POST /tasks/:taskId/deliverables/upload": {
    build: () => multipart(unique("deliverable.bin"), new Uint8Array([4, 5, 6]), "application/octet-stream"),
  },
  "DELETE /tasks/:taskId/deliverables/:fileNodeId": {
    build: async ({ rows, live }) => {
      if (!live) return {};
      const taskId = await freshTask(rows);
      must(
        await rowsOwner().api.post(`${spaceBase(rows.id)}/tasks/${taskId}/deliverables`, {
          file_node_id: rows.deliverableFile,
        }),
        204,
      );
      return { params: { taskId } };
    },
  },

  "POST /board/columns": { build: () => ({ body: { name: unique("column") } }) },
  "PATCH /board/columns/:columnId": {
    build: async ({ rows, live }) => ({
      params: await freshParam(live, "columnId", () => freshColumn(rows)),
      body: { name: unique("renamed column") },
    }),
  },
  "DELETE /board/columns/:columnId": {
    build: async ({ rows, live }) => ({ params: await freshParam(live, "columnId", () => freshColumn(rows)) }),
  },
  "POST /labels": { build: () => ({ body: { name: unique("label"), color: "#336699" } }) },
  "PATCH /labels/:labelId": {
    build: async ({ rows, live }) => ({
      params: await freshParam(live, "labelId", () => freshLabel(rows)),
      body: { name: unique("renamed label") },
    }),
  },
  "DELETE /labels/:labelId": {
    build: async ({ rows, live }) => ({ params: await freshParam(live, "labelId", () => freshLabel(rows)) }),
  },

  "POST /chat-rooms": { build: () => ({ body: { name: unique("room") } }) },
  "DELETE /chat-rooms/:roomId": {
    build: async ({ rows, live }) => {
      if (!live) return {};
      const room = must(await rowsOwner().api.post(`${spaceBase(rows.id)}/chat-rooms`, { name: unique("room") }), 201);
      return { params: { roomId: room.body.id } };
    },
  },
  "POST /chat-rooms/:roomId/messages": {
    build: () => ({ body: { content: unique("hello"), attachments: [{ url: "https://example.com/a.png" }] } }),
  },
  "PATCH /chat-rooms/:roomId/messages/:messageId": {
    build: async (ctx) => ({
      params: await freshParam(ctx.live, "messageId", () => freshMessage(ctx.rows, authorFor(ctx))),
      body: { content: unique("edited") },
    }),
  },
  "DELETE /chat-rooms/:roomId/messages/:messageId": {
    build: async (ctx) => ({
      params: await freshParam(ctx.live, "messageId", () => freshMessage(ctx.rows, authorFor(ctx))),
    }),
  },
  "POST /chat-rooms/:roomId/messages/:messageId/reactions": { build: () => ({ body: { emoji: "👍" } }) },
  "POST /chat-rooms/:roomId/read": { build: ({ rows }) => ({ body: { message_id: rows.message } }) },
  // The room's message is a person's, not a failed reply: what passes the checks is refused as such, changing nothing.
  "POST /chat-rooms/:roomId/messages/:messageId/retry": { build: () => ({}) },
  "DELETE /chat-rooms/:roomId/messages/:messageId/reactions": {
    build: async ({ caller, rows, live }) => {
      const emoji = "🎉";
      if (live)
        must(
          await caller.api.post(`${spaceBase(rows.id)}/chat-rooms/${rows.room}/messages/${rows.message}/reactions`, {
            emoji,
          }),
          201,
        );
      return { query: `?emoji=${encodeURIComponent(emoji)}` };
    },
  },

  "POST /files/folders": { build: () => ({ body: { name: unique("folder") } }) },
  "POST /files/text": { build: () => ({ body: { name: unique("text.md"), content: "hello" } }) },
  "POST /files/upload": {
    build: async () => multipart(unique("upload.bin"), new Uint8Array([9, 8, 7]), "application/octet-stream"),
  },
  "POST /chat-rooms/:roomId/uploads": {
    build: async () => multipart(unique("shot.png"), new Uint8Array([137, 80, 78, 71]), "image/png"),
  },
  "PUT /files/:nodeId/content": {
    build: async ({ rows, live }) => ({
      params: await freshParam(live, "nodeId", () => freshTextFile(rows)),
      raw: "replaced text",
      contentType: "text/plain",
    }),
  },
  "GET /files/:nodeId/versions/:versionId/content": {
    build: async ({ rows }) => ({ params: await freshVersion(rows) }),
  },
  "POST /files/:nodeId/versions/:versionId/restore": {
    build: async ({ rows }) => ({ params: await freshVersion(rows) }),
  },
  "PATCH /files/:nodeId": {
    build: async ({ rows, live }) => ({
      params: await freshParam(live, "nodeId", () => freshTextFile(rows)),
      body: { name: unique("renamed.md") },
    }),
  },
  "DELETE /files/:nodeId": {
    build: async ({ rows, live }) => ({ params: await freshParam(live, "nodeId", () => freshTextFile(rows)) }),
  },
  "POST /files/:nodeId/proposals": { build: () => ({ body: { proposed_content: unique("proposed") } }) },
  "POST /files/proposals/:proposalId/accept": proposalReview,
  "POST /files/proposals/:proposalId/reject": proposalReview,

  "PUT /git-link": { build: ({ rows }) => ({ body: { repo_url: `https://git.example.com/${rows.label}.git` } }) },
  "DELETE /git-link": { build: () => [{}] },

  "POST /automations": { build: () => ({ body: { name: unique("automation"), kind: "webhook" } }) },
  "PATCH /automations/:automationId": {
    build: async ({ rows, live }) => ({
      params: await freshParam(live, "automationId", () => freshAutomation(rows)),
      body: { name: unique("renamed") },
    }),
  },
  "DELETE /automations/:automationId": {
    build: async ({ rows, live }) => ({ params: await freshParam(live, "automationId", () => freshAutomation(rows)) }),
  },
  "POST /automations/:automationId/approve": automationReview,
  "POST /automations/:automationId/reject": automationReview,
  "POST /automations/:automationId/run": {
    build: async ({ rows, live }) => ({
      params: await freshParam(live, "automationId", () => activeAutomation(rows)),
    }),
  },
  "POST /automations/:automationId/webhook-secret": automationReview,
  "POST /automations/:automationId/tunnel-link": {
    build: async ({ rows, live }) => ({ params: await freshParam(live, "automationId", () => tunnelAutomation(rows)) }),
  },
};

/** Path parameters every route can draw on. */
function defaultParams(rows: SpaceRows): Record<string, string> {
  return {
    orgId: org.id,
    spaceId: rows.id,
    taskId: rows.task,
    columnId: rows.todo,
    labelId: rows.labelId,
    roomId: rows.room,
    messageId: rows.message,
    nodeId: rows.textFile,
    fileId: rows.textFile,
    fileNodeId: rows.deliverableFile,
    proposalId: rows.proposal,
    automationId: rows.automation,
    userId: spare.userId,
  };
}

/** A WebSocket upgrade reads nothing and writes nothing by itself. */
const isWrite = (method: string) => method !== "GET" && method !== "WS";

/** The requests of one route for one caller; an error names what the test is missing for a new route. */
async function requestsFor(route: SpaceRoute, ctx: Ctx): Promise<{ path: string; req: Req }[]> {
  const plan = PLANS[route.key];
  let built: Req[];
  if (plan?.build) {
    const out = await plan.build(ctx);
    built = Array.isArray(out) ? out : [out];
  } else if (isWrite(route.method) && ctx.live) {
    throw new Error(`no plan for the write route ${route.key}: add its body and fresh rows to PLANS`);
  } else {
    built = [route.method === "GET" || route.method === "DELETE" ? {} : { body: {} }];
  }
  return built.map((req) => {
    const params = { ...defaultParams(ctx.rows), ...req.params };
    const path = route.path.replace(/:(\w+)/g, (_, name: string) => {
      const value = params[name];
      if (!value) throw new Error(`route ${route.key}: no id for :${name}; add one to defaultParams`);
      return value;
    });
    return { path, req };
  });
}

/** Sends one call; a WebSocket route gets an upgrade request (101 when accepted). */
async function send(caller: Caller, method: string, path: string, req: Req): Promise<Reply> {
  if (method === "WS") {
    const headers = { ...UPGRADE, authorization: `Bearer ${caller.token}` };
    const res = await fetch(server.url + path + (req.query ?? ""), { headers });
    // An accepted upgrade has no body to read; the socket it opened goes when the server stops.
    const text = res.status === 101 ? "" : await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, text };
  }
  return request(server.url, method, path + (req.query ?? ""), {
    token: caller.token,
    body: req.body,
    raw: req.raw,
    contentType: req.contentType,
  });
}

const UPGRADE = {
  connection: "Upgrade",
  upgrade: "websocket",
  "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
  "sec-websocket-version": "13",
};

/** A member of S, or a holder of org.manage, who sees every space. */
const seesS = (c: { inS?: boolean; role: RoleName }) =>
  Boolean(c.inS) || (ROLE_PERMISSIONS[c.role] as readonly string[]).includes("org.manage");

/** What a cell of the table says, for a route needing `need`. */
function answerOf(cell: Cell, need: string): Answer {
  if (cell === "2xx") return { status: "2xx" };
  if (cell === "403") return { status: 403, error: `missing permission: ${need}` };
  return REFUSALS[cell];
}

/** The answer `caller` gets on `route` of S: 404 to whoever cannot see S, else its cell of the table. */
function expectedOnS(caller: { inS?: boolean; role: RoleName; column: Column }, route: SpaceRoute): Answer {
  if (!seesS(caller)) return { status: 404, error: "space not found" };
  return answerOf(route.cells[caller.column], route.need);
}

/** Why `res` is not `want`, or null when it is. */
function mismatch(want: Answer, res: Reply): string | null {
  if (want.status === "2xx") return (res.status >= 200 && res.status < 300) || res.status === 101 ? null : `want 2xx`;
  if (res.status === want.status && Bun.deepEquals(res.body, { error: want.error })) return null;
  return `want ${want.status} ${JSON.stringify({ error: want.error })}`;
}

const show = (res: Reply) => `got ${res.status} ${res.text.slice(0, 200)}`;

/** Adds a member with a role (a staff member for `AI Staff`) and gives back the caller. */
async function person(name: string, role: RoleName, flags: { inS?: boolean; column?: Column } = {}): Promise<Caller> {
  const made =
    role === "AI Staff"
      ? await addStaff(org, { name }).then((s) => ({ token: s.token, api: s.api, id: s.account.user_id as string }))
      : await addMember(org, [role as keyof Org["roles"]], name);
  return {
    name,
    token: made.token,
    api: made.api,
    userId: made.id,
    role,
    permissions: new Set(ROLE_PERMISSIONS[role]),
    inS: flags.inS ?? false,
    ownsS: false,
    column: flags.column ?? "member",
  };
}

beforeAll(async () => {
  // The routes, from an app built the way the server builds it.
  const config = loadConfig({ data: tempDir() });
  const conn = openDatabase(join(config.dataDir, "tandem.db"));
  migrate(conn.sqlite);
  const app = buildApp({
    config,
    log: createLogger("silent"),
    access: () => undefined,
    services: createServices(conn, config),
  });
  registered = (app.routes as unknown as Route[])
    .filter((r) => r.path === SPACE_ROUTE || r.path.startsWith(`${SPACE_ROUTE}/`))
    .map((r) => ({
      key: `${r.method} ${r.path.slice(SPACE_ROUTE.length)}`,
      need: String(r.hooks.detail?.["x-permission"]),
      space: r.hooks.detail?.["x-space"] === true,
    }));
  conn.sqlite.close();

  server = await startTestServer();
  org = await setupOrg(server, "Acme Private");
  orgBase = `/api/v1/organizations/${org.id}`;
  const manager = must(
    await org.owner.api.post(`${orgBase}/roles`, { name: "Manager", permissions: ["org.manage"] }),
    201,
  ).body.role;
  (org.roles as Record<string, string>).Manager = manager.id;

  callers = [];
  for (const cast of CAST) {
    if (cast.role === "Owner") {
      owner = {
        name: cast.name,
        token: org.owner.token,
        api: org.owner.api,
        userId: org.owner.id,
        role: "Owner",
        permissions: new Set(ROLE_PERMISSIONS.Owner),
        inS: false,
        ownsS: false,
        column: cast.column,
      };
      callers.push(owner);
    } else {
      callers.push({ ...(await person(cast.name, cast.role, cast)), ownsS: cast.ownsS ?? false });
    }
  }
  spaceOwner = callers.find((c) => c.ownsS) as Caller;
  spare = await person("spare member", "Member");
  leaver = await person("leaver (in S)", "Member", { inS: true });
  dropped = await person("dropped (in S)", "Member", { inS: true });

  const s = must(await spaceOwner.api.post(`${orgBase}/spaces`, { name: "Secret S", private: true }), 201).body;
  const p = must(await spaceOwner.api.post(`${orgBase}/spaces`, { name: "Public P" }), 201).body;
  for (const c of [...callers, leaver, dropped])
    if (c.inS && !c.ownsS) must(await spaceOwner.api.post(`${spaceBase(s.id)}/members`, { user_id: c.userId }), 201);
  S = await fill(spaceOwner.api, s.id, "S");
  P = await fill(spaceOwner.api, p.id, "P");
});

afterAll(() => server?.stop());

describe("the routes below a space", () => {
  it("are found, and every one resolves the space before anything else (the space macro)", () => {
    expect(registered.length).toBeGreaterThanOrEqual(30);
    const found = new Set(registered.map((r) => r.key));
    for (const key of ["GET ", "GET /tasks", "GET /chat-rooms/:roomId/messages", "PUT /files/:nodeId/content"])
      expect(found.has(key), key).toBe(true);
    // A route below a space declared with `permission` instead of `space` would skip the visibility check.
    expect(registered.filter((r) => !r.space).map((r) => r.key)).toEqual([]);
  });

  it("each has one line in the access table, with the permission it declares", () => {
    const tabled = Object.fromEntries(routes.map((r) => [r.key, r.need]));
    expect(Object.keys(tabled)).toHaveLength(routes.length);
    expect(tabled).toEqual(Object.fromEntries(registered.map((r) => [r.key, r.need])));
  });

  it("callers hold the permissions of their roles, staff tokens included", async () => {
    expect(callers).toHaveLength(CAST.length);
    for (const c of callers) {
      const res = await c.api.get(`${orgBase}/me/permissions`);
      expect(res.status, c.name).toBe(200);
      expect([...res.body.permissions].sort(), c.name).toEqual([...c.permissions].sort());
    }
    expect(callers.find((c) => c.name === "Staff In")?.token.startsWith("sa_")).toBe(true);
  });
});

/** A line of the matrix: a route of S called by one caller. */
interface MatrixLine extends Scenario {
  route: SpaceRoute;
}

describe("the access matrix of the private space S", () => {
  const lines: MatrixLine[] = CAST.flatMap((cast) =>
    routes.map((route) => ({
      route,
      method: route.method,
      url: `/spaces/{S}${route.suffix.replace(/:(\w+)/g, "{$1}")}`,
      as: cast.name,
      ...(seesS(cast) ? {} : { name: "(as for a space that does not exist)" }),
      ...expectedOnS(cast, route),
    })),
  );
  scenarios<MatrixLine>(
    {
      url: () => server.url,
      tokens: () => Object.fromEntries(callers.map((c) => [c.name, c.token])),
      async send({ route, as }) {
        const caller = callers.find((c) => c.name === as) as Caller;
        // Past visibility and the route's permission, the call changes rows: it gets fresh ones of its own.
        const live = seesS(caller) && (route.need === "member" || caller.permissions.has(route.need));
        const sent: Sent[] = [];
        for (const { path, req } of await requestsFor(route, { caller, rows: S, live })) {
          const res = await send(caller, route.method, path, req);
          sent.push({ label: `${route.method} ${path.slice(orgBase.length)}${req.query ?? ""}`, res });
          if (seesS(caller)) continue;
          // Exactly as for a space that does not exist (or a malformed id): same status, same body.
          for (const other of [NO_SPACE, "not-a-space"]) {
            const none = await send(caller, route.method, path.replace(S.id, other), req);
            expect({ status: none.status, text: none.text }, `${other} answers as S`).toEqual({
              status: res.status,
              text: res.text,
            });
          }
        }
        return sent;
      },
    },
    lines,
  );
});

describe("a private space is indistinguishable from a missing one", () => {
  // Bodies and queries are validated before the space is resolved, so a bad one answers 400 rather than 404;
  // that reveals nothing as long as a missing space answers the very same 400.
  it("bad bodies and queries answer the same for S as for a space that does not exist", async () => {
    const wrong: string[] = [];
    let compared = 0;
    for (const caller of callers.filter((c) => !seesS(c))) {
      for (const route of routes) {
        const bad: Req[] =
          route.method === "GET" || route.method === "DELETE"
            ? [{ query: "?limit=abc&emoji=&parentId=x" }]
            : [{ body: [] }, { body: {} }, { raw: "{not json", contentType: "application/json" }];
        const [call] = await requestsFor(route, { caller, rows: S, live: false });
        for (const req of bad) {
          const path = (call as { path: string }).path;
          const onS = await send(caller, route.method, path, req);
          const onNone = await send(caller, route.method, path.replace(S.id, NO_SPACE), req);
          compared++;
          if (onS.status !== onNone.status || onS.text !== onNone.text)
            wrong.push(
              `${caller.name} ${route.key}: S ${onS.status} ${onS.text}, missing ${onNone.status} ${onNone.text}`,
            );
        }
      }
    }
    expect(compared).toBeGreaterThanOrEqual(3 * routes.length);
    expect(wrong).toEqual([]);
  });
});

/** Every id of a row of S, read from S's own listings by someone who sees it. */
async function idsOfS(): Promise<string[]> {
  const api = owner.api;
  const base = spaceBase(S.id);
  const found = new Set<string>([S.id]);
  const board = must(await api.get(`${base}/board`), 200).body;
  found.add(board.board.id);
  for (const c of board.columns) found.add(c.id);
  for (const t of must(await api.get(`${base}/tasks`), 200).body.tasks) {
    found.add(t.id);
    for (const m of must(await api.get(`${base}/tasks/${t.id}/messages?limit=200`), 200).body.messages) found.add(m.id);
  }
  for (const r of must(await api.get(`${base}/chat-rooms`), 200).body.chat_rooms) {
    found.add(r.id);
    const page = must(await api.get(`${base}/chat-rooms/${r.id}/messages?limit=200`), 200).body;
    for (const m of page.messages) found.add(m.id);
    for (const a of page.attachments) found.add(a.id);
  }
  for (const n of must(await api.get(`${base}/files/tree`), 200).body.nodes) found.add(n.id);
  for (const id of [S.task, S.taskMessage, S.message, S.attachment, S.textFile, S.uploadFile, S.deliverableFile])
    expect(found.has(id)).toBe(true);
  return [...found];
}

describe("listings never carry S's rows to those who cannot see it", () => {
  it("GET /spaces lists S only to those who see it, P to everyone", async () => {
    for (const c of callers) {
      const res = await c.api.get(`${orgBase}/spaces`);
      expect(res.status, c.name).toBe(200);
      const listed = res.body.spaces.map((s: { id: string }) => s.id);
      expect(listed.includes(S.id), `${c.name} lists S`).toBe(seesS(c));
      expect(listed.includes(P.id), `${c.name} lists P`).toBe(true);
      if (!seesS(c)) expect(res.text.includes(S.id), c.name).toBe(false);
    }
  });

  it("GET /me/tasks lists tasks of S only to assignees who see S; nobody else can be assigned one", async () => {
    const assigned = new Map<string, { inS: string | null; inP: string }>();
    for (const c of callers) {
      const inSAnswer = await spaceOwner.api.post(`${spaceBase(S.id)}/tasks`, {
        title: unique("for"),
        column_id: S.todo,
        assignee_user_id: c.userId,
      });
      if (!seesS(c)) {
        expect({ status: inSAnswer.status, body: inSAnswer.body }, c.name).toEqual({
          status: 400,
          body: { error: "invalid assignee" },
        });
      }
      const inS = seesS(c) ? must(inSAnswer, 201).body.id : null;
      const inP = must(
        await spaceOwner.api.post(`${spaceBase(P.id)}/tasks`, {
          title: unique("for"),
          column_id: P.todo,
          assignee_user_id: c.userId,
        }),
        201,
      ).body.id;
      assigned.set(c.name, { inS, inP });
    }
    for (const c of callers) {
      const res = await c.api.get(`/api/v1/me/tasks?org_id=${org.id}`);
      expect(res.status, c.name).toBe(200);
      const ids = res.body.tasks.map((t: { id: string }) => t.id);
      const mine = assigned.get(c.name) as { inS: string | null; inP: string };
      expect(ids.includes(mine.inP), `${c.name} sees its task in P`).toBe(true);
      if (mine.inS !== null) expect(ids.includes(mine.inS), `${c.name} sees its task in S`).toBe(true);
      if (!seesS(c)) {
        expect(res.text.includes(S.id), `${c.name}: S's id in my tasks`).toBe(false);
        expect(res.text.includes("Secret S"), `${c.name}: S's name in my tasks`).toBe(false);
      }
    }
  });

  it("no answer of any GET route below P holds an id of S's rows, whoever asks", async () => {
    const secret = await idsOfS();
    const leaks: string[] = [];
    const reads = routes.filter((r) => r.method === "GET");
    let read = 0;
    for (const caller of callers) {
      for (const route of reads) {
        // Everyone sees P: each caller gets its column's cell.
        const want = answerOf(route.cells[caller.column], route.need);
        for (const { path, req } of await requestsFor(route, { caller, rows: P, live: false })) {
          const res = await send(caller, "GET", path, req);
          read++;
          const why = mismatch(want, res);
          if (why) leaks.push(`${caller.name} GET ${path}${req.query ?? ""}: ${why}, ${show(res)}`);
          const seen = secret.filter((id) => res.text.includes(id));
          if (seen.length > 0) leaks.push(`${caller.name} GET ${path}${req.query ?? ""} shows S's ${seen.join(", ")}`);
        }
      }
    }
    expect(read).toBeGreaterThanOrEqual(callers.length * reads.length);
    expect(leaks).toEqual([]);
  });

  it("no route below P reaches a row of S by its id, even for the org owner", async () => {
    const ofS: Record<string, string> = {
      taskId: S.task,
      roomId: S.room,
      messageId: S.message,
      nodeId: S.textFile,
      fileId: S.textFile,
      fileNodeId: S.deliverableFile,
    };
    const wrong: string[] = [];
    let swapped = 0;
    for (const route of routes) {
      const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1] as string).filter((n) => n in ofS);
      if (names.length === 0) continue;
      // Each id of S alone among P's ids, then all of them at once.
      const swaps = [...names.map((n) => [n]), ...(names.length > 1 ? [names] : [])];
      for (const swap of swaps) {
        const params = Object.fromEntries(swap.map((n) => [n, ofS[n] as string]));
        const calls = await requestsFor(route, { caller: owner, rows: P, live: false });
        for (const { req } of calls.slice(0, 1)) {
          const all = { ...defaultParams(P), ...req.params, ...params };
          const path = route.path.replace(/:(\w+)/g, (_, n: string) => all[n] as string);
          const res = await send(owner, route.method, path, { ...req, params: all });
          swapped++;
          if (res.status !== 404 || !/ not found$/.test(res.body?.error ?? ""))
            wrong.push(`${route.method} ${path.slice(orgBase.length)} with S's ${swap.join(", ")}: ${show(res)}`);
        }
      }
    }
    expect(swapped).toBeGreaterThanOrEqual(routes.filter((r) => /:(taskId|roomId|nodeId|fileId)/.test(r.path)).length);
    expect(wrong).toEqual([]);
  });

  describe("ids of S named in a body or a query of a route below P, even by the org owner", () => {
    scenarios(
      {
        url: () => server.url,
        tokens: () => ({ [ORG_OWNER]: owner.token }),
        params: () => ({ P: spaceBase(P.id), task: P.task, textFile: P.textFile, sFolder: S.folder }),
      },
      // biome-ignore format: a table reads in columns
      [
        { method: "POST",  url: "{P}/tasks",                           as: ORG_OWNER, name: "(a column of S)", options: () => ({ body: { title: "x", column_id: S.todo } }),                 status: 400, error: "invalid column" },
        { method: "PATCH", url: "{P}/tasks/{task}",                    as: ORG_OWNER, name: "(to a column of S)", options: () => ({ body: { column_id: S.todo } }),                        status: 400, error: "invalid column" },
        { method: "POST",  url: "{P}/tasks/{task}/deliverables",       as: ORG_OWNER, name: "(a file of S)", options: () => ({ body: { file_node_id: S.deliverableFile } }),            status: 404, error: "file not found" },
        { method: "POST",  url: "{P}/files/folders",                   as: ORG_OWNER, name: "(in a folder of S)", options: () => ({ body: { name: unique("f"), parent_id: S.folder } }),    status: 404, error: "file not found" },
        { method: "POST",  url: "{P}/files/text",                      as: ORG_OWNER, name: "(in a folder of S)", options: () => ({ body: { name: unique("t.md"), parent_id: S.folder } }), status: 404, error: "file not found" },
        { method: "PATCH", url: "{P}/files/{textFile}",                as: ORG_OWNER, name: "(into a folder of S)", options: () => ({ body: { parent_id: S.folder } }),                  status: 404, error: "file not found" },
        { method: "POST",  url: "{P}/files/upload",                    as: ORG_OWNER, name: "(into a folder of S)", options: () => multipart(unique("u.bin"), new Uint8Array([1]), "application/octet-stream", S.folder), status: 404, error: "file not found" },
        { method: "GET",   url: "{P}/files?parentId={sFolder}",         as: ORG_OWNER,                                                                                                    status: 404, error: "file not found" },
        { method: "GET",   url: "{P}/files?parentId={sFolder}&q=notes", as: ORG_OWNER,                                                                                                    status: 404, error: "file not found" },
      ],
    );
  });
});

/** Every route of a space called once by `caller` (no fresh rows: these calls are not meant to get through). */
async function everyRoute(caller: Caller, rows: SpaceRows): Promise<{ label: string; res: Reply }[]> {
  const out: { label: string; res: Reply }[] = [];
  for (const route of routes)
    for (const { path, req } of await requestsFor(route, { caller, rows, live: false }))
      out.push({
        label: `${route.method} ${path.slice(orgBase.length)}${req.query ?? ""}`,
        res: await send(caller, route.method, path, req),
      });
  return out;
}

describe("losing membership takes effect at once", () => {
  it("a member removed from the organization gets 404 organization not found on every route of S and P", async () => {
    // Before: the leaver (a member of S) reaches both spaces.
    expect((await leaver.api.get(spaceBase(S.id))).status).toBe(200);
    expect((await leaver.api.get(spaceBase(P.id))).status).toBe(200);
    must(await org.owner.api.delete(`${orgBase}/members/${leaver.userId}`), 204);

    // The same, still unexpired access token.
    const wrong: string[] = [];
    const answers = [...(await everyRoute(leaver, S)), ...(await everyRoute(leaver, P))];
    answers.push({ label: "GET /spaces", res: await leaver.api.get(`${orgBase}/spaces`) });
    answers.push({ label: "GET /me/tasks", res: await leaver.api.get(`/api/v1/me/tasks?org_id=${org.id}`) });
    for (const { label, res } of answers) {
      const why = mismatch({ status: 404, error: "organization not found" }, res);
      if (why) wrong.push(`${label}: ${why}, ${show(res)}`);
    }
    expect(answers.length).toBeGreaterThan(2 * routes.length);
    expect(wrong).toEqual([]);
  });

  it("a member removed from S gets 404 space not found on every route of S, and keeps P", async () => {
    expect((await dropped.api.get(spaceBase(S.id))).status).toBe(200);
    must(await spaceOwner.api.delete(`${spaceBase(S.id)}/members/${dropped.userId}`), 204);

    const wrong: string[] = [];
    const answers = await everyRoute(dropped, S);
    for (const { label, res } of answers) {
      const why = mismatch({ status: 404, error: "space not found" }, res);
      if (why) wrong.push(`${label}: ${why}, ${show(res)}`);
    }
    expect(answers.length).toBeGreaterThanOrEqual(routes.length);
    expect(wrong).toEqual([]);

    expect((await dropped.api.get(spaceBase(P.id))).status).toBe(200);
    const listed = (await dropped.api.get(`${orgBase}/spaces`)).body.spaces.map((s: { id: string }) => s.id);
    expect(listed).toContain(P.id);
    expect(listed).not.toContain(S.id);
  });
});
