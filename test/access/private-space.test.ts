/**
 * The access matrix of a private space (contract §2–3, docs/api.md "Spaces"): every route registered below
 * `/spaces/:spaceId` is taken from the app itself, so a route added later is covered without touching this
 * file, and called by every kind of caller. Someone who cannot see the private space gets exactly 404
 * `space not found` everywhere below it, the same answer as for a space that does not exist; someone who can
 * see it gets 2xx, or 403 `missing permission: <perm>` where their role lacks the route's permission.
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

/** A registered route below a space. */
interface SpaceRoute {
  method: string;
  path: string;
  /** The part after `/spaces/:spaceId`, e.g. `/tasks/:taskId`. */
  suffix: string;
  /** `member` or a catalogue permission. */
  need: string;
  /** Declared with the `space` macro, which resolves the space's visibility before the permission. */
  space: boolean;
  key: string;
}

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
}

/** Ids of the rows of one space. */
interface SpaceRows {
  id: string;
  label: string;
  board: string;
  columns: string[];
  todo: string;
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

/** What the matrix expects of one call. */
type Expected = { status: "2xx" } | { status: number; error: string };

interface Ctx {
  caller: Caller;
  rows: SpaceRows;
  /** True when the caller will get past the permission check: the call will change rows, give it its own. */
  live: boolean;
}

/** How to call one route: a body, fresh rows, extra variants, and answers the permission rule does not give. */
interface Plan {
  build?: (ctx: Ctx) => Promise<Req | Req[]> | Req | Req[];
  /** For callers who pass the route's permission: an answer other than 2xx. */
  expect?: (caller: Caller) => Expected | undefined;
}

let server: TestServer;
let org: Org;
let orgBase: string;
let routes: SpaceRoute[];
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
async function freshTextFile(rows: SpaceRows): Promise<string> {
  return must(
    await rowsOwner().api.post(`${spaceBase(rows.id)}/files/text`, { name: unique("scratch.md"), content: "x" }),
    201,
  ).body.node.id;
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

const canManageMembers = (c: Caller): Expected | undefined =>
  c.ownsS || c.permissions.has("org.manage")
    ? undefined
    : { status: 403, error: "only a space owner can manage its members" };

/** Staff add files and propose changes; changing an existing file is for people (docs/api.md, Files). */
const STAFF_CANNOT_CHANGE_FILES = "service accounts cannot change existing files: propose a patch instead";

/** Staff propose, people decide: a service account that gets this far is refused. */
const peopleOnly =
  (error: string) =>
  (c: Caller): Expected | undefined =>
    c.token.startsWith("sa_") ? { status: 403, error } : undefined;
const proposalReview: Plan = {
  build: async ({ rows, live }) => ({ params: await freshParam(live, "proposalId", () => freshProposal(rows)) }),
  expect: peopleOnly("only a person can accept or reject a proposal"),
};
const automationReview: Plan = {
  build: async ({ rows, live }) => ({ params: await freshParam(live, "automationId", () => freshAutomation(rows)) }),
  expect: peopleOnly("only a person can approve or reject an automation"),
};

/** Callers who can post get their own message to edit or delete; the others try the owner's. */
const authorFor = (ctx: Ctx) => (ctx.caller.permissions.has("chat.write") ? ctx.caller.api : rowsOwner().api);

/**
 * Plans by `METHOD suffix`. A route without one is called with the default ids (and `{}` as a body); a write
 * route without one fails for callers who get through, asking for a plan, since its body is unknown.
 */
/** The plain-GET twins of the collab socket answer 400 to whoever gets through. */
const upgradeRequired: Plan = { expect: () => ({ status: 400, error: "websocket upgrade required" }) };

const PLANS: Record<string, Plan> = {
  "WS /files/collab/ws": { build: ({ rows }) => ({ query: `?file_id=${rows.textFile}` }) },
  "GET /files/collab/ws": { ...upgradeRequired, build: ({ rows }) => ({ query: `?file_id=${rows.textFile}` }) },
  "GET /files/collab/ws/:fileId": upgradeRequired,
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
    expect: canManageMembers,
  },
  "DELETE /members/:userId": {
    build: async ({ rows, live }) => {
      if (live) await spareInSpace(rows, true);
      return { params: { userId: spare.userId } };
    },
    expect: canManageMembers,
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
    expect: (c) =>
      c.permissions.has("chat.write") ? undefined : { status: 403, error: "only the author can edit this message" },
  },
  "DELETE /chat-rooms/:roomId/messages/:messageId": {
    build: async (ctx) => ({
      params: await freshParam(ctx.live, "messageId", () => freshMessage(ctx.rows, authorFor(ctx))),
    }),
    expect: (c) =>
      c.permissions.has("chat.write") ? undefined : { status: 403, error: "missing permission: chat.write" },
  },
  "POST /chat-rooms/:roomId/messages/:messageId/reactions": { build: () => ({ body: { emoji: "👍" } }) },
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
  "PUT /files/:nodeId/content": {
    build: async ({ rows, live }) => ({
      params: await freshParam(live, "nodeId", () => freshTextFile(rows)),
      raw: "replaced text",
      contentType: "text/plain",
    }),
    expect: peopleOnly(STAFF_CANNOT_CHANGE_FILES),
  },
  "PATCH /files/:nodeId": {
    build: async ({ rows, live }) => ({
      params: await freshParam(live, "nodeId", () => freshTextFile(rows)),
      body: { name: unique("renamed.md") },
    }),
    expect: peopleOnly(STAFF_CANNOT_CHANGE_FILES),
  },
  "DELETE /files/:nodeId": {
    build: async ({ rows, live }) => ({ params: await freshParam(live, "nodeId", () => freshTextFile(rows)) }),
    expect: peopleOnly(STAFF_CANNOT_CHANGE_FILES),
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
    // A person made it: staff withdraw only their own pending proposals.
    expect: peopleOnly("service accounts can only delete their own pending proposals"),
  },
  "POST /automations/:automationId/approve": automationReview,
  "POST /automations/:automationId/reject": automationReview,
};

/** Path parameters every route can draw on. */
function defaultParams(rows: SpaceRows): Record<string, string> {
  return {
    orgId: org.id,
    spaceId: rows.id,
    taskId: rows.task,
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

const seesS = (c: Caller) => c.inS || c.permissions.has("org.manage");

/** The answer the contract gives `caller` on `route` of S. */
function expectedOnS(caller: Caller, route: SpaceRoute): Expected {
  if (!seesS(caller)) return { status: 404, error: "space not found" };
  if (route.need !== "member" && !caller.permissions.has(route.need))
    return { status: 403, error: `missing permission: ${route.need}` };
  return PLANS[route.key]?.expect?.(caller) ?? { status: "2xx" };
}

/** Why `res` is not `want`, or null when it is. */
function mismatch(want: Expected, res: Reply): string | null {
  if (want.status === "2xx") return (res.status >= 200 && res.status < 300) || res.status === 101 ? null : `want 2xx`;
  if (res.status === want.status && Bun.deepEquals(res.body, { error: want.error })) return null;
  return `want ${want.status} ${JSON.stringify({ error: want.error })}`;
}

const show = (res: Reply) => `got ${res.status} ${res.text.slice(0, 200)}`;

/** Adds a member with a role and gives back the caller. */
async function person(name: string, role: RoleName, flags: { inS?: boolean } = {}): Promise<Caller> {
  const p = await addMember(org, [role as keyof Org["roles"]], name);
  return {
    name,
    token: p.token,
    api: p.api,
    userId: p.id,
    role,
    permissions: new Set(ROLE_PERMISSIONS[role]),
    inS: flags.inS ?? false,
    ownsS: false,
  };
}

async function staff(name: string, inS: boolean): Promise<Caller> {
  const s = await addStaff(org, { name });
  return {
    name,
    token: s.token,
    api: s.api,
    userId: s.account.user_id,
    role: "AI Staff",
    permissions: new Set(ROLE_PERMISSIONS["AI Staff"]),
    inS,
    ownsS: false,
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
  routes = (app.routes as unknown as Route[])
    .filter((r) => r.path === SPACE_ROUTE || r.path.startsWith(`${SPACE_ROUTE}/`))
    .map((r) => {
      const suffix = r.path.slice(SPACE_ROUTE.length);
      return {
        method: r.method,
        path: r.path,
        suffix,
        need: String(r.hooks.detail?.["x-permission"]),
        space: r.hooks.detail?.["x-space"] === true,
        key: `${r.method} ${suffix}`,
      };
    });
  conn.sqlite.close();

  server = await startTestServer();
  org = await setupOrg(server, "Acme Private");
  orgBase = `/api/v1/organizations/${org.id}`;
  const manager = must(
    await org.owner.api.post(`${orgBase}/roles`, { name: "Manager", permissions: ["org.manage"] }),
    201,
  ).body.role;
  (org.roles as Record<string, string>).Manager = manager.id;

  owner = {
    name: "org owner (not in S)",
    token: org.owner.token,
    api: org.owner.api,
    userId: org.owner.id,
    role: "Owner",
    permissions: new Set(ROLE_PERMISSIONS.Owner),
    inS: false,
    ownsS: false,
  };
  spaceOwner = { ...(await person("space owner (Member)", "Member", { inS: true })), ownsS: true };
  const memberIn = await person("Member in S", "Member", { inS: true });
  const memberOut = await person("Member not in S", "Member");
  const viewerIn = await person("Viewer in S", "Viewer", { inS: true });
  const viewerOut = await person("Viewer not in S", "Viewer");
  const staffIn = await staff("Staff In", true);
  const staffOut = await staff("Staff Out", false);
  const managerOut = await person("org.manage holder not in S", "Manager");
  spare = await person("spare member", "Member");
  leaver = await person("leaver (in S)", "Member", { inS: true });
  dropped = await person("dropped (in S)", "Member", { inS: true });
  callers = [owner, spaceOwner, memberIn, memberOut, viewerIn, viewerOut, staffIn, staffOut, managerOut];

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
    expect(routes.length).toBeGreaterThanOrEqual(30);
    const found = new Set(routes.map((r) => r.key));
    for (const key of ["GET ", "GET /tasks", "GET /chat-rooms/:roomId/messages", "PUT /files/:nodeId/content"])
      expect(found.has(key), key).toBe(true);
    // A route below a space declared with `permission` instead of `space` would skip the visibility check.
    expect(routes.filter((r) => !r.space).map((r) => r.key)).toEqual([]);
  });

  it("callers hold the permissions of their roles, staff tokens included", async () => {
    for (const c of callers) {
      const res = await c.api.get(`${orgBase}/me/permissions`);
      expect(res.status, c.name).toBe(200);
      expect([...res.body.permissions].sort(), c.name).toEqual([...c.permissions].sort());
    }
    expect(callers.find((c) => c.name === "Staff In")?.token.startsWith("sa_")).toBe(true);
  });
});

describe("the access matrix of the private space S", () => {
  for (const name of [
    "org owner (not in S)",
    "space owner (Member)",
    "Member in S",
    "Member not in S",
    "Viewer in S",
    "Viewer not in S",
    "Staff In",
    "Staff Out",
    "org.manage holder not in S",
  ]) {
    it(`${name}: every route below S answers as the role and visibility say`, async () => {
      const caller = callers.find((c) => c.name === name) as Caller;
      const wrong: string[] = [];
      let sent = 0;
      for (const route of routes) {
        const want = expectedOnS(caller, route);
        // Past visibility and the route's permission, the call changes rows: it gets fresh ones of its own.
        const live = seesS(caller) && (route.need === "member" || caller.permissions.has(route.need));
        let calls: { path: string; req: Req }[];
        try {
          calls = await requestsFor(route, { caller, rows: S, live });
        } catch (error) {
          wrong.push(`${route.key}: ${(error as Error).message}`);
          continue;
        }
        for (const { path, req } of calls) {
          const res = await send(caller, route.method, path, req);
          sent++;
          const why = mismatch(want, res);
          if (why) wrong.push(`${route.method} ${path.slice(orgBase.length)}${req.query ?? ""}: ${why}, ${show(res)}`);
          if (!seesS(caller)) {
            // Exactly as for a space that does not exist (or a malformed id): same status, same body.
            for (const other of [NO_SPACE, "not-a-space"]) {
              const none = await send(caller, route.method, path.replace(S.id, other), req);
              if (none.status !== res.status || none.text !== res.text)
                wrong.push(`${route.key}: S answers ${res.status} ${res.text}, ${other} ${none.status} ${none.text}`);
            }
          }
        }
      }
      expect(wrong).toEqual([]);
      expect(sent).toBeGreaterThanOrEqual(routes.length);
    });
  }
});

describe("a private space is indistinguishable from a missing one", () => {
  // Bodies and queries are validated before the space is resolved, so a bad one answers 400 rather than 404;
  // that reveals nothing as long as a missing space answers the very same 400.
  it("bad bodies and queries answer the same for S as for a space that does not exist", async () => {
    const wrong: string[] = [];
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
          if (onS.status !== onNone.status || onS.text !== onNone.text)
            wrong.push(
              `${caller.name} ${route.key}: S ${onS.status} ${onS.text}, missing ${onNone.status} ${onNone.text}`,
            );
        }
      }
    }
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
    for (const caller of callers) {
      for (const route of routes.filter((r) => r.method === "GET")) {
        const want: Expected =
          route.need !== "member" && !caller.permissions.has(route.need)
            ? { status: 403, error: `missing permission: ${route.need}` }
            : (PLANS[route.key]?.expect?.(caller) ?? { status: "2xx" });
        for (const { path, req } of await requestsFor(route, { caller, rows: P, live: false })) {
          const res = await send(caller, "GET", path, req);
          const why = mismatch(want, res);
          if (why) leaks.push(`${caller.name} GET ${path}${req.query ?? ""}: ${why}, ${show(res)}`);
          const seen = secret.filter((id) => res.text.includes(id));
          if (seen.length > 0) leaks.push(`${caller.name} GET ${path}${req.query ?? ""} shows S's ${seen.join(", ")}`);
        }
      }
    }
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
          if (res.status !== 404 || !/ not found$/.test(res.body?.error ?? ""))
            wrong.push(`${route.method} ${path.slice(orgBase.length)} with S's ${swap.join(", ")}: ${show(res)}`);
        }
      }
    }
    // Ids of S named in a body or a query of a P route.
    const base = spaceBase(P.id);
    const bodyCases: [string, () => Promise<Reply>, number, string][] = [
      [
        "task in S's column",
        () => owner.api.post(`${base}/tasks`, { title: "x", column_id: S.todo }),
        400,
        "invalid column",
      ],
      [
        "move to S's column",
        () => owner.api.patch(`${base}/tasks/${P.task}`, { column_id: S.todo }),
        400,
        "invalid column",
      ],
      [
        "S's file as a deliverable",
        () => owner.api.post(`${base}/tasks/${P.task}/deliverables`, { file_node_id: S.deliverableFile }),
        404,
        "file not found",
      ],
      [
        "folder in S's folder",
        () => owner.api.post(`${base}/files/folders`, { name: unique("f"), parent_id: S.folder }),
        400,
        "parent_id: folder not found",
      ],
      [
        "text file in S's folder",
        () => owner.api.post(`${base}/files/text`, { name: unique("t.md"), parent_id: S.folder }),
        400,
        "parent_id: folder not found",
      ],
      [
        "move into S's folder",
        () => owner.api.patch(`${base}/files/${P.textFile}`, { parent_id: S.folder }),
        400,
        "parent_id: folder not found",
      ],
      [
        "upload into S's folder",
        async () =>
          owner.api.post(
            `${base}/files/upload`,
            undefined,
            await multipart(unique("u.bin"), new Uint8Array([1]), "application/octet-stream", S.folder),
          ),
        400,
        "parent_id: folder not found",
      ],
      ["list S's folder", () => owner.api.get(`${base}/files?parentId=${S.folder}`), 404, "file not found"],
      ["search S's folder", () => owner.api.get(`${base}/files?parentId=${S.folder}&q=notes`), 404, "file not found"],
    ];
    for (const [what, call, status, error] of bodyCases) {
      const res = await call();
      if (res.status !== status || res.body?.error !== error)
        wrong.push(`${what}: want ${status} ${error}, ${show(res)}`);
    }
    expect(wrong).toEqual([]);
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
