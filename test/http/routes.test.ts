import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildApp } from "../../src/app";
import { loadConfig } from "../../src/config";
import { isPermission } from "../../src/core/permissions";
import { openDatabase } from "../../src/db/client";
import { migrate } from "../../src/db/migrate";
import { STAFF_CANNOT_CHANGE_FILES } from "../../src/features/files/files.policy";
import { PAGE_PATHS } from "../../src/http/web";
import { createLogger } from "../../src/lib/log";
import { createServices } from "../../src/services";
import { request } from "../helpers/http";
import { ROOT, startTestServer, type TestServer, tempDir } from "../helpers/server";

type Route = { method: string; path: string; hooks: { detail?: Record<string, unknown> } };

let routes: Route[];
let server: TestServer;

beforeAll(async () => {
  const config = loadConfig({ data: tempDir() });
  const conn = openDatabase(join(config.dataDir, "tandem.db"));
  migrate(conn.sqlite);
  const app = buildApp({
    config,
    log: createLogger("silent"),
    access: () => undefined,
    services: createServices(conn, config),
  });
  routes = app.routes as unknown as Route[];
  server = await startTestServer();
});
afterAll(() => server.stop());

describe("default deny", () => {
  it("every registered route declares a permission, signedIn or public", () => {
    expect(routes.length).toBeGreaterThan(20);
    const undeclared = routes.filter((r) => {
      const d = r.hooks.detail ?? {};
      return !d["x-permission"] && !d["x-signed-in"] && !d["x-public"];
    });
    expect(undeclared.map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  it("every declared permission is in the catalogue or is membership", () => {
    const needs = routes.map((r) => r.hooks.detail?.["x-permission"]).filter((need) => need !== undefined);
    expect(needs.length).toBeGreaterThan(20);
    for (const need of needs) expect(need === "member" || isPermission(String(need)), String(need)).toBe(true);
  });

  it("only the documented public routes are public", () => {
    const open = routes.filter((r) => r.hooks.detail?.["x-public"]).map((r) => `${r.method} ${r.path}`);
    expect(open).toContain("GET /health");
    expect(open).toContain("POST /api/v1/auth/login");
    for (const route of open) {
      expect(
        route === "GET /health" ||
          /^(GET|POST) \/api\/v1\/(public|auth)\//.test(route) ||
          // A webhook's inbound URL: no token, the request is signed with the webhook's secret.
          route === "POST /api/v1/hooks/:automationId" ||
          // A tunnel's visit another node forwarded: no token, the request is signed with the shared JWT_SECRET.
          route === "POST /api/v1/cluster/tunnels/:automationId" ||
          /^GET \/(assets\/\*|sw\.js|api\/docs(\/json)?)?$/.test(route) ||
          PAGE_PATHS.some((page) => route === `GET ${page}`),
      ).toBe(true);
    }
  });
});

describe("GET /api/docs", () => {
  it("serves an OpenAPI document with every route, its permission and schemas", async () => {
    const res = await request(server.url, "GET", "/api/docs/json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    const documented = routes.filter((r) => !r.hooks.detail?.hide);
    expect(documented.length).toBeGreaterThan(20);
    for (const r of documented) {
      const path = r.path.replace(/:(\w+)/g, "{$1}");
      const op = res.body.paths[path]?.[r.method === "WS" ? "get" : r.method.toLowerCase()];
      expect(op, `${r.method} ${path}`).toBeDefined();
      expect(op.summary).toBeTruthy();
    }
    const login = res.body.paths["/api/v1/auth/login"].post;
    expect(login.security).toEqual([]);
    expect(login.requestBody.content["application/json"].schema.required).toEqual(["email", "password"]);
    const roles = res.body.paths["/api/v1/organizations/{orgId}/roles"].post;
    expect(roles["x-permission"]).toBe("org.members.manage");
    expect(roles.responses["201"]).toBeDefined();
    expect(roles.responses["409"].description).toBe("`role name already exists`");
    expect(login.responses["401"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
    expect(login.responses["413"]).toBeDefined();
  });

  it("describes what the route schemas cannot: optional bodies, uploads, raw bodies, byte answers, query", async () => {
    const { paths } = (await request(server.url, "GET", "/api/docs/json")).body;
    const files = "/api/v1/organizations/{orgId}/spaces/{spaceId}/files";
    // No body, or {}: not required, and null is not offered (it is 400 `body must be a JSON object`).
    const approve = paths["/api/v1/organizations/{orgId}/signup-requests/{requestId}/approve"].post;
    expect(approve.requestBody.required).toBe(false);
    expect(JSON.stringify(approve.requestBody)).not.toContain('"null"');
    const upload = paths[`${files}/upload`].post;
    expect(Object.keys(upload.requestBody.content)).toEqual(["multipart/form-data"]);
    expect(upload.requestBody.content["multipart/form-data"].schema.required).toEqual(["file"]);
    expect(upload.responses["413"]).toBeDefined();
    expect(Object.keys(paths[`${files}/{nodeId}/content`].put.requestBody.content)).toEqual(["*/*"]);
    const content = paths[`${files}/{nodeId}/content`].get;
    for (const status of ["200", "206", "304", "416"]) expect(content.responses[status]).toBeDefined();
    const collab = paths[`${files}/collab/ws`].get;
    expect(collab.parameters.find((p: { name: string }) => p.name === "file_id")).toMatchObject({
      in: "query",
      required: true,
    });
  });

  it("declares every 403 and 409 message the services can answer", async () => {
    const document = JSON.stringify((await request(server.url, "GET", "/api/docs/json")).body);
    const sources = new Bun.Glob("src/**/*.ts").scanSync({ cwd: ROOT });
    const messages = new Set<string>();
    for (const file of sources) {
      for (const m of readFileSync(join(ROOT, file), "utf8").matchAll(/\b(?:conflict|forbidden)\("([^"]+)"/g)) {
        messages.add(m[1] as string);
      }
    }
    messages.delete("no organization yet: run `tandem setup` first"); // `tandem users add` only
    messages.add(STAFF_CANNOT_CHANGE_FILES);
    expect(messages.size).toBeGreaterThan(20);
    const declared = (message: string) =>
      document.includes(`\`${message}`) || document.includes(`"const":"${message}"`);
    expect([...messages].filter((message) => !declared(message))).toEqual([]);
    // A route's own 403 comes beside the permission's and a pending signup's, which every org route answers.
    const { paths } = JSON.parse(document);
    const guarded = Object.entries(paths as Record<string, Record<string, Record<string, any>>>).flatMap(
      ([path, operations]) =>
        Object.entries(operations)
          .filter(([, op]) => op["x-permission"])
          .map(([method, op]) => ({ name: `${method} ${path}`, op })),
    );
    expect(guarded.length).toBeGreaterThan(20);
    for (const { name, op } of guarded) {
      expect(op.responses["403"].description, name).toContain("`signup pending approval`");
      expect(op.responses["403"].description, name).toContain("`missing permission: <name>`");
    }
  });

  it("gives the rule and the answers the schemas alone would get wrong", async () => {
    const { paths } = (await request(server.url, "GET", "/api/docs/json")).body;
    const space = "/api/v1/organizations/{orgId}/spaces/{spaceId}";
    const conflicts = paths[`${space}/tasks/{taskId}`].patch.responses["409"].content["application/json"].schema;
    // A stale `version` answers the current task beside its error; a staff member over a WIP limit, the error.
    expect(conflicts.anyOf.map((c: { required: string[] }) => c.required)).toEqual([["error", "task"], ["error"]]);
    const accept = paths[`${space}/files/proposals/{proposalId}/accept`].post;
    expect(accept["x-access"]).toBe("A person (not a service account) holding `files.write`");
    expect(accept.description).toBe("A person (not a service account) holding `files.write`.");
    expect(paths["/api/v1/me/password"].post["x-access"]).toBe("A person (not a service account)");
    const reaction = `${space}/chat-rooms/{roomId}/messages/{messageId}/reactions`;
    expect(paths[reaction].post.requestBody.content["application/json"].schema.required).toEqual(["emoji"]);
    expect(paths[reaction].delete.parameters.find((p: { name: string }) => p.name === "emoji").required).toBe(true);
    const edit = paths[`${space}/chat-rooms/{roomId}/messages/{messageId}`].patch;
    expect(edit.requestBody.content["application/json"].schema.required).toEqual(["content"]);
    const automation = paths[`${space}/automations`].post.requestBody.content["application/json"].schema;
    expect(automation.properties.status).toMatchObject({ type: "string", default: "draft" });
    expect(automation.properties.status.enum).toEqual(["draft", "pending_approval", "active", "paused"]);
    const folder = paths[`${space}/files/folders`].post.requestBody.content["application/json"].schema;
    expect(folder.properties.name).toMatchObject({ minLength: 1, maxLength: 255 });
    const role = paths["/api/v1/organizations/{orgId}/roles"].post.requestBody.content["application/json"].schema;
    expect(role.properties.permissions.items.enum).toContain("files.write");
    const limit = paths[`${space}/tasks/{taskId}/messages`].get.parameters.find(
      (p: { name: string }) => p.name === "limit",
    );
    expect(limit.schema).toMatchObject({ type: "integer", minimum: 1, default: 50 });
  });

  it("documents a webhook's inbound URL: no token, the signature headers it reads, each answer", async () => {
    const { paths } = (await request(server.url, "GET", "/api/docs/json")).body;
    const hook = paths["/api/v1/hooks/{automationId}"].post;
    expect(hook.security).toEqual([]);
    expect(hook.responses["401"].description).toContain("`invalid signature`");
    expect(hook.parameters.map((p: { name: string; in: string }) => `${p.in} ${p.name}`)).toEqual([
      "path automationId",
      "header webhook-id",
      "header webhook-timestamp",
      "header webhook-signature",
      "header X-Hub-Signature-256",
      "header X-GitHub-Delivery",
      "header X-GitHub-Event",
    ]);
    expect(Object.keys(hook.responses).sort()).toEqual(
      ["202", "400", "401", "404", "409", "413", "429", "500", "503", "507"].sort(),
    );
    expect(hook.responses["429"].description).toContain("Retry-After");
  });

  it("types what a generated client needs: names, date-times, bytes, every 404 and 500 message", async () => {
    const doc = (await request(server.url, "GET", "/api/docs/json")).body;
    const { paths } = doc;
    const space = "/api/v1/organizations/{orgId}/spaces/{spaceId}";
    expect(doc.servers).toEqual([{ url: "/", description: expect.any(String) }]);
    // Resources are named components, written once and referred to (a generated client's named types).
    for (const name of [
      "Task",
      "ChatMessage",
      "FileNode",
      "Proposal",
      "Automation",
      "ServiceAccount",
      "Space",
      "Role",
    ]) {
      expect(doc.components.schemas[name]?.type, name).toBe("object");
    }
    const tasks = paths[`${space}/tasks`].get.responses["200"].content["application/json"].schema;
    expect(tasks.properties.tasks.items).toEqual({ $ref: "#/components/schemas/Task" });
    expect(JSON.stringify(doc)).not.toContain("#/$defs/");
    // `{provider}` is a name, not a UUID.
    const integration = paths["/api/v1/organizations/{orgId}/integrations/{provider}"];
    for (const method of ["get", "put", "delete"]) {
      const param = integration[method].parameters.find((p: { name: string }) => p.name === "provider");
      expect(param.schema).toEqual({ type: "string", enum: ["modelrouter", "agent"] });
    }
    // The API reads `t` and `z` in either case: no upper-case-only pattern on a date-time it takes.
    const dueAt = paths[`${space}/tasks`].post.requestBody.content["application/json"].schema.properties.due_at;
    expect(JSON.stringify(dueAt)).toContain('"format":"date-time"');
    expect(JSON.stringify(dueAt)).not.toContain('"pattern"');
    const before = paths[`${space}/chat-rooms/{roomId}/messages`].get.parameters.find(
      (p: { name: string }) => p.name === "before",
    );
    expect(before.schema.pattern).toBeUndefined();
    // A file's bytes: any type, binary, with the headers that say what they are.
    const content = paths[`${space}/files/{nodeId}/content`].get;
    for (const status of ["200", "206"]) {
      expect(content.responses[status].content).toEqual({ "*/*": { schema: { type: "string", format: "binary" } } });
      expect(Object.keys(content.responses[status].headers)).toContain("ETag");
    }
    expect(
      content.parameters.filter((p: { in: string }) => p.in === "header").map((p: { name: string }) => p.name),
    ).toEqual(["Range", "If-Range", "If-None-Match"]);
    // The 404 of every id in the path; the messages a route adds; every JSON body's own refusals.
    const reaction = paths[`${space}/chat-rooms/{roomId}/messages/{messageId}/reactions`].delete;
    for (const message of ["organization not found", "space not found", "chat room not found", "message not found"]) {
      expect(reaction.responses["404"].description).toContain(`\`${message}\``);
    }
    expect(reaction.responses["404"].description).toContain("`reaction not found`");
    const task = paths[`${space}/tasks`].post.responses["400"].description;
    for (const message of [
      "invalid json",
      "content-type must be application/json",
      "invalid column",
      "invalid assignee",
    ]) {
      expect(task).toContain(`\`${message}\``);
    }
    const operations = Object.entries(paths as Record<string, Record<string, Record<string, any>>>).flatMap(
      ([path, ops]) => Object.entries(ops).map(([method, op]) => ({ name: `${method} ${path}`, op })),
    );
    expect(operations.length).toBeGreaterThan(20);
    for (const { name, op } of operations) {
      expect(op.responses["500"]?.description, name).toContain("`internal error`");
    }
  });

  it("serves a page that needs nothing from the internet", async () => {
    const res = await fetch(`${server.url}/api/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const html = await res.text();
    expect(html).toContain("/api/docs/json");
    expect(html).not.toMatch(/<script[^>]+src=["']https?:/);
    expect(html).not.toMatch(/<link[^>]+href=["']https?:/);
  });
});

describe("docs/api.md", () => {
  it("lists every documented route", () => {
    const doc = readFileSync(join(ROOT, "docs", "api.md"), "utf8");
    const documented = routes.filter((r) => !r.hooks.detail?.hide);
    expect(documented.length).toBeGreaterThan(20);
    const missing = documented
      .map((r) => `${r.method === "WS" ? "GET" : r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`)
      .filter((line) => {
        const [method, path] = line.split(" ") as [string, string];
        const short = path.replace("/api/v1/organizations/{orgId}", "").replace("/api/v1", "") || "/";
        return (
          !doc.includes(`${method} \`${path}\``) &&
          !doc.includes(`${method} \`${short}\``) &&
          !doc.includes(`${method} \`…${short}\``)
        );
      });
    expect(missing).toEqual([]);
  });
});
