/**
 * Bad input on every route, generated from the OpenAPI document the server serves: for each operation, its body
 * with each field given the wrong type, out of bounds, huge, or odd unicode; bodies that are not JSON, the wrong
 * shape, deeply nested, or sent as another content type; bad query values and malformed path ids. Whatever comes in,
 * no answer is a 500, every error is `{"error": "..."}` as JSON, and the database is intact afterwards.
 *
 * Sent by the organization's owner (who passes every permission check, so the input reaches the validation and the
 * services), to a real server on a random port with its SQLite file in a temp dir. Destructive operations (DELETE)
 * go last, so the ids the others name still exist while they run.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, it } from "bun:test";
import { join } from "node:path";
import { addMember, addStaff, type Org, setupOrg } from "../helpers/factories";
import { request } from "../helpers/http";
import { startTestServer, type TestServer } from "../helpers/server";

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  const?: unknown;
};
type Operation = {
  parameters?: { name: string; in: string; schema?: Schema }[];
  requestBody?: { content: Record<string, { schema?: Schema }> };
};

let server: TestServer;
let org: Org;
let token: string;
const ids: Record<string, string> = {};
const failures: string[] = [];
let sent = 0;
const statuses: Record<number, number> = {};

const UNKNOWN = "00000000-0000-4000-8000-000000000000";

/** Values that are wrong for almost any field, in kind or in size. */
const ODD_VALUES: unknown[] = [
  null,
  -1,
  0,
  1e308,
  3.5,
  true,
  "",
  " ",
  "x".repeat(300_000),
  "\u0000",
  "\ud800",
  "\u202eevil",
  "😀".repeat(2000),
  "../../etc/passwd",
  "<script>alert(1)</script>",
  "00000000-0000-0000-0000-000000000000",
  "2026-13-45T25:61:61Z",
  [],
  [1, "a", null],
  {},
  { $gt: "" },
];

/** A value that passes the schema, as far as a short look can tell: the base a mutation changes one field of. */
function valid(schema: Schema | undefined, name = ""): unknown {
  if (!schema) return "x";
  if (schema.const !== undefined) return schema.const;
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  if (schema.anyOf) return valid(schema.anyOf.find((s) => s.type !== "null") ?? schema.anyOf[0], name);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? []) out[key] = valid(schema.properties?.[key], key);
      return out;
    }
    case "array":
      return [];
    case "integer":
    case "number":
      return Math.max(schema.minimum ?? 1, 1);
    case "boolean":
      return false;
    default:
      if (schema.format === "uuid") return ids[name.replace(/_id$/, "")] ?? UNKNOWN;
      if (schema.format === "date-time") return new Date(Date.now() + 86_400_000).toISOString();
      if (schema.format === "email") return "someone@acme.test";
      if (/url/i.test(name)) return "https://example.com/x";
      return "x".repeat(Math.max(schema.minLength ?? 1, 1)).slice(0, Math.max(schema.maxLength ?? 10, 1));
  }
}

/** The operation's path with its parameters named by the world's ids (an unknown id where none fits). */
function pathOf(template: string): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? UNKNOWN);
}

async function signIn(): Promise<void> {
  const res = await request(server.url, "POST", "/api/v1/auth/login", {
    body: { email: org.owner.email, password: org.owner.password },
  });
  token = res.body.access_token;
}

/** Sends one request; records it when the answer breaks the rule. */
async function send(
  method: string,
  path: string,
  what: string,
  options: { body?: unknown; raw?: string | Uint8Array; contentType?: string | null },
): Promise<void> {
  sent++;
  let res = await request(server.url, method, path, { token, ...options });
  if (res.status === 401 && !path.includes("/auth/")) {
    // An earlier request ended the session (a logout, a password change): sign in again and retry.
    await signIn();
    res = await request(server.url, method, path, { token, ...options });
  }
  statuses[res.status] = (statuses[res.status] ?? 0) + 1;
  const where = `${method} ${path} ${what}: ${res.status}`;
  if (res.status >= 500) {
    failures.push(`${where} ${res.text.slice(0, 200)}`);
    return;
  }
  if (res.status >= 400 && res.status !== 404) {
    const type = res.headers.get("content-type") ?? "";
    const shape = type.includes("json") && typeof res.body?.error === "string" && Object.keys(res.body).length === 1;
    if (!shape) failures.push(`${where} not {"error"}: ${type} ${res.text.slice(0, 200)}`);
  }
  if (res.status === 404 && res.text && !(typeof res.body?.error === "string")) {
    failures.push(`${where} a 404 without {"error"}: ${res.text.slice(0, 200)}`);
  }
}

/** Every bad input for one operation. */
async function corpus(method: string, template: string, op: Operation): Promise<void> {
  const path = pathOf(template);
  const json = op.requestBody?.content["application/json"]?.schema;
  if (json) {
    const base = valid(json) as Record<string, unknown>;
    for (const [key, schema] of Object.entries(json.properties ?? {})) {
      for (const value of ODD_VALUES)
        await send(method, path, `${key}=${JSON.stringify(value)?.slice(0, 30)}`, { body: { ...base, [key]: value } });
      const long = "y".repeat((schema.maxLength ?? 1000) + 1);
      await send(method, path, `${key} over its length`, { body: { ...base, [key]: long } });
    }
    await send(method, path, "an unknown field", { body: { ...base, surprise: { nested: [1, 2, 3] } } });
  }
  if (method !== "GET" && method !== "DELETE") {
    await send(method, path, "not JSON", { raw: '{"a": ', contentType: "application/json" });
    await send(method, path, "JSON of another shape", { raw: "[1,2,3]", contentType: "application/json" });
    await send(method, path, "a JSON string", { raw: '"hello"', contentType: "application/json" });
    await send(method, path, "an empty body", { raw: "", contentType: "application/json" });
    await send(method, path, "deeply nested", {
      raw: `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
      contentType: "application/json",
    });
    await send(method, path, "deeply nested object", {
      raw: `${'{"a":'.repeat(50_000)}1${"}".repeat(50_000)}`,
      contentType: "application/json",
    });
    await send(method, path, "as text", { raw: "name=x", contentType: "text/plain" });
    await send(method, path, "as a form", { raw: "name=x&title=y", contentType: "application/x-www-form-urlencoded" });
    await send(method, path, "as XML", { raw: "<a>x</a>", contentType: "application/xml" });
    await send(method, path, "as multipart without a boundary", { raw: "x", contentType: "multipart/form-data" });
    await send(method, path, "bytes that are not UTF-8", {
      raw: new Uint8Array([0xff, 0xfe, 0x00, 0xc3]),
      contentType: "application/json",
    });
  }
  for (const param of op.parameters ?? []) {
    if (param.in === "query") {
      for (const value of ["", "-1", "abc", "1e309", "x".repeat(10_000), "%00", "[]", "2026-13-45"]) {
        await send(
          method,
          `${path}${path.includes("?") ? "&" : "?"}${param.name}=${encodeURIComponent(value)}`,
          `?${param.name}`,
          {},
        );
      }
    }
  }
  if (template.includes("{")) {
    for (const bad of ["abc", "%00", "1".repeat(300), "00000000-0000-0000-0000-00000000000g"]) {
      await send(
        method,
        template.replace(/\{(\w+)\}/, bad).replace(/\{(\w+)\}/g, (_, n: string) => ids[n] ?? UNKNOWN),
        "a malformed id",
        {},
      );
    }
  }
}

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server);
  token = org.owner.token;
  const api = org.owner.api;
  const member = await addMember(org, ["Member"], "Mia Member");
  const staff = await addStaff(org, { name: "Ada" });
  ids.orgId = org.id;
  ids.userId = member.id;
  ids.serviceAccountId = staff.account.id;
  ids.provider = "modelrouter";
  const spaces = `/api/v1/organizations/${org.id}/spaces`;
  ids.spaceId = (await api.post(spaces, { name: "Corpus" })).body.id;
  const base = `${spaces}/${ids.spaceId}`;
  ids.roomId = (await api.get(`${base}/chat-rooms`)).body.chat_rooms[0].id;
  ids.messageId = (await api.post(`${base}/chat-rooms/${ids.roomId}/messages`, { content: "hello" })).body.message.id;
  const board = (await api.get(`${base}/board`)).body;
  const columnId = (board.columns ?? board.board.columns)[0].id;
  ids.column = columnId;
  ids.taskId = (await api.post(`${base}/tasks`, { title: "A task", column_id: columnId })).body.id;
  const file = (await api.post(`${base}/files/text`, { name: "notes.md", content: "# Notes\n" })).body.node;
  ids.fileId = file.id;
  ids.nodeId = file.id;
  ids.fileNodeId = file.id;
  ids.roleId = (
    await api.post(`/api/v1/organizations/${org.id}/roles`, { name: "Corpus role", permissions: ["chat.write"] })
  ).body.role.id;
  ids.inviteId = (
    await api.post(`/api/v1/organizations/${org.id}/invites`, {
      email: "later@acme.test",
      role_ids: [org.roles.Member],
    })
  ).body.invite.id;
  const proposal = await staff.api.post(`${base}/files/${file.id}/proposals`, {
    proposed_content: "# Notes\nmore\n",
    note: "x",
  });
  ids.proposalId = proposal.body.proposal.id;
  ids.automationId = (
    await api.post(`${base}/automations`, {
      name: "Corpus automation",
      kind: "scheduled",
      config: { cron: "0 9 * * 1", channel: "#general", message: "hi" },
    })
  ).body.automation.id;
});

afterAll(() => server.stop());

it('answers every bad input on every route with a 4xx {"error"} or a success, never a 500, and stays intact', async () => {
  const spec = (await (await fetch(`${server.url}/api/docs/json`)).json()) as {
    paths: Record<string, Record<string, Operation>>;
  };
  const operations = Object.entries(spec.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
  expect(operations.length).toBeGreaterThan(80);
  const order = ["GET", "POST", "PUT", "PATCH", "DELETE"];
  operations.sort((a, b) => order.indexOf(a.method) - order.indexOf(b.method));
  for (const { method, path, op } of operations) {
    // Signing out, or ending every session of the owner, is tried like the rest, but last.
    await corpus(method, path, op);
  }
  expect(sent).toBeGreaterThan(2000);
  // The corpus reached the services, not only the validation: some inputs were taken.
  expect((statuses[200] ?? 0) + (statuses[201] ?? 0)).toBeGreaterThan(100);
  expect(failures).toEqual([]);
  const db = new Database(join(server.dataDir, "tandem.db"), { readonly: true });
  try {
    expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
  } finally {
    db.close();
  }
}, 300_000);
