/**
 * The access matrix, generated from the routes the server documents (its OpenAPI document, where each operation
 * says the permission it needs and whether it is public) × the callers who must get nothing: no token, an expired
 * token, tokens of another algorithm or none, a refresh token used as a bearer token, a deleted staff member's
 * token, a removed member's token, an account whose signup waits for approval, a member without the permission, a
 * member outside a private space, and ids that name nothing here (another organization's). Not one of them may get
 * a 2xx; each gets the answer its case names.
 */
import { afterAll, beforeAll, expect, it } from "bun:test";
import { SignJWT } from "jose";
import { loadConfig, loadSecrets } from "../../src/config";
import { AccessTokens } from "../../src/lib/jwt";
import { addMember, addStaff, type Org, setupOrg } from "../helpers/factories";
import { request } from "../helpers/http";
import { engineEnv, startTestServer, type TestServer } from "../helpers/server";

type Operation = { "x-permission"?: string; security?: unknown[] };

let server: TestServer;
let org: Org;
const ids: Record<string, string> = {};
let privateIds: Record<string, string> = {};
const tokens: Record<string, string> = {};
let viewerPermissions: Set<string>;
let operations: { method: string; path: string; op: Operation }[];

const OTHER = "01a2b3c4-0000-7000-8000-000000000001";

/** A world of one space (public or private): ids of a room, a message, a task, a file, an automation. */
async function world(name: string, isPrivate: boolean): Promise<Record<string, string>> {
  const api = org.owner.api;
  const spaceId = (await api.post(`/api/v1/organizations/${org.id}/spaces`, { name, private: isPrivate })).body.id;
  const base = `/api/v1/organizations/${org.id}/spaces/${spaceId}`;
  const roomId = (await api.get(`${base}/chat-rooms`)).body.chat_rooms[0].id;
  const messageId = (await api.post(`${base}/chat-rooms/${roomId}/messages`, { content: "secret words" })).body.message
    .id;
  const board = (await api.get(`${base}/board`)).body;
  const columnId = (board.columns ?? board.board.columns)[0].id;
  const taskId = (await api.post(`${base}/tasks`, { title: "secret task", column_id: columnId })).body.id;
  const fileId = (await api.post(`${base}/files/text`, { name: "secret.md", content: "secret" })).body.node.id;
  const automationId = (
    await api.post(`${base}/automations`, {
      name: "secret automation",
      kind: "scheduled",
      config: { cron: "0 9 * * 1", channel: "general", message: "hi" },
    })
  ).body.automation.id;
  return { spaceId, roomId, messageId, taskId, fileId, nodeId: fileId, fileNodeId: fileId, automationId };
}

const fill = (template: string, values: Record<string, string>) =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? OTHER);

async function answer(method: string, path: string, token: string | undefined) {
  const res = await request(server.url, method, path, {
    token,
    body: method === "GET" || method === "DELETE" ? undefined : {},
  });
  return { status: res.status, error: res.body?.error as string | undefined };
}

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server);
  const api = org.owner.api;
  const viewer = await addMember(org, ["Viewer"], "Vic Viewer");
  const outsider = await addMember(org, ["Member"], "Otto Outsider");
  const removed = await addMember(org, ["Member"], "Rita Removed");
  const staff = await addStaff(org, { name: "Gone" });
  Object.assign(ids, await world("Open", false), { orgId: org.id, userId: viewer.id, provider: "modelrouter" });
  privateIds = { ...ids, ...(await world("Closed", true)) };
  ids.serviceAccountId = staff.account.id;
  ids.roleId = org.roles.Viewer;

  tokens.viewer = viewer.token;
  tokens.outsider = outsider.token;
  tokens.refresh = org.owner.refreshToken;
  tokens.staffDeleted = staff.token;
  expect((await api.delete(`/api/v1/organizations/${org.id}/service-accounts/${staff.account.id}`)).status).toBe(204);
  tokens.removed = removed.token;
  expect((await api.delete(`/api/v1/organizations/${org.id}/members/${removed.id}`)).status).toBe(204);
  // A signup waiting for approval.
  expect((await api.patch(`/api/v1/organizations/${org.id}`, { open_signups_enabled: true })).status).toBe(200);
  const pending = await request(server.url, "POST", "/api/v1/auth/register", {
    body: { email: "pending@acme.test", password: "pending-password", display_name: "Pat Pending" },
  });
  expect(pending.body.signup_pending).toBe(true);
  tokens.pending = pending.body.access_token;

  // Tokens the server never issued: expired, unsigned, or of another algorithm, for the owner.
  // The server's secrets: on PostgreSQL, those every node is given (engineEnv), never generated.
  const env = { ...process.env, ...engineEnv(server.dataDir) };
  const secrets = loadSecrets(loadConfig({ data: server.dataDir }, env), env);
  const sid = JSON.parse(Buffer.from(org.owner.token.split(".")[1] as string, "base64url").toString()).sid;
  tokens.expired = await new AccessTokens(secrets.jwtSecret).sign(org.owner.id, sid, -60);
  const claims = { sub: org.owner.id, typ: "access", sid, exp: Math.floor(Date.now() / 1000) + 600 };
  tokens.hs512 = await new SignJWT(claims).setProtectedHeader({ alg: "HS512", typ: "JWT" }).sign(secrets.jwtSecret);
  const unsigned = (part: object) => Buffer.from(JSON.stringify(part)).toString("base64url");
  tokens.algNone = `${unsigned({ alg: "none", typ: "JWT" })}.${unsigned(claims)}.`;
  tokens.otherKey = await new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .sign(new TextEncoder().encode("another-secret-of-another-install-0123456789"));

  const me = await request(server.url, "GET", `/api/v1/me`, { token: viewer.token });
  expect(me.status).toBe(200);
  const roles = (await api.get(`/api/v1/organizations/${org.id}/roles`)).body.roles as {
    name: string;
    permissions: string[];
  }[];
  viewerPermissions = new Set(roles.find((r) => r.name === "Viewer")?.permissions ?? []);

  const spec = (await (await fetch(`${server.url}/api/docs/json`)).json()) as {
    paths: Record<string, Record<string, Operation>>;
  };
  operations = Object.entries(spec.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
});

afterAll(() => server.stop());

const isPublic = (op: Operation) => Array.isArray(op.security) && op.security.length === 0;
const inOrg = (path: string) => path.startsWith("/api/v1/organizations/{orgId}");

it("gives nothing to callers without a valid access token: 401 on every route that is not public", async () => {
  const leaks: string[] = [];
  let checked = 0;
  for (const { method, path, op } of operations) {
    if (isPublic(op)) continue;
    checked++;
    const url = fill(path, ids);
    for (const who of [undefined, "expired", "hs512", "algNone", "otherKey", "refresh", "staffDeleted"] as const) {
      const res = await answer(method, url, who === undefined ? undefined : tokens[who]);
      if (res.status !== 401) leaks.push(`${method} ${path} as ${who ?? "nobody"}: ${res.status} ${res.error}`);
    }
  }
  expect(checked).toBeGreaterThan(80);
  expect(leaks).toEqual([]);
});

it("gives a removed member and a pending signup nothing of the organization", async () => {
  const leaks: string[] = [];
  let checked = 0;
  for (const { method, path, op } of operations) {
    if (isPublic(op) || !inOrg(path)) continue;
    checked++;
    const url = fill(path, ids);
    for (const who of ["removed", "pending"] as const) {
      const res = await answer(method, url, tokens[who]);
      if (res.status < 400) leaks.push(`${method} ${path} as ${who}: ${res.status}`);
    }
  }
  expect(checked).toBeGreaterThan(70);
  expect(leaks).toEqual([]);
});

it("refuses a member every route whose permission they lack: 403 missing permission", async () => {
  const leaks: string[] = [];
  let checked = 0;
  for (const { method, path, op } of operations) {
    const need = op["x-permission"];
    if (!need || need === "member" || viewerPermissions.has(need)) continue;
    checked++;
    const res = await answer(method, fill(path, ids), tokens.viewer);
    if (res.status !== 403) leaks.push(`${method} ${path} as a Viewer: ${res.status} ${res.error}`);
  }
  expect(checked).toBeGreaterThan(30);
  expect(leaks).toEqual([]);
});

it("answers 404 space not found on every route of a private space to a member outside it", async () => {
  const leaks: string[] = [];
  let checked = 0;
  for (const { method, path } of operations) {
    if (!path.includes("{spaceId}")) continue;
    checked++;
    const res = await answer(method, fill(path, privateIds), tokens.outsider);
    if (res.status !== 404 || res.error !== "space not found")
      leaks.push(`${method} ${path} as an outsider: ${res.status} ${res.error}`);
  }
  expect(checked).toBeGreaterThan(50);
  expect(leaks).toEqual([]);
});

it("finds nothing by ids that name nothing here (another organization's): never a 2xx", async () => {
  const leaks: string[] = [];
  for (const { method, path, op } of operations) {
    if (isPublic(op) || !path.includes("{")) continue;
    const res = await answer(method, fill(path, { provider: "modelrouter" }), org.owner.token);
    if (res.status < 400) leaks.push(`${method} ${path} with unknown ids: ${res.status}`);
  }
  expect(leaks).toEqual([]);
});
