/**
 * Requests at the edges of how routes are written: a trailing slash on the routes that stream their body, a
 * body on a DELETE, an upper-case id in a multipart field, an unknown provider or a malformed id with a bad
 * body, an org id in a path that does not decode, and the statuses the OpenAPI document declares for them.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { type Org, setupOrg } from "../helpers/factories";
import { request } from "../helpers/http";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let org: Org;
let files: string;
let spacePath: string;

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server);
  const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Edges" });
  spacePath = `/api/v1/organizations/${org.id}/spaces/${space.body.id}`;
  files = `${spacePath}/files`;
});
afterAll(() => server.stop());

const auth = () => ({ authorization: `Bearer ${org.owner.token}` });

async function upload(path: string, form: FormData) {
  const res = await fetch(`${server.url}${path}`, { method: "POST", headers: auth(), body: form });
  return { status: res.status, body: await res.json() };
}

describe("routes that stream their body, written with a trailing slash", () => {
  it("upload/ takes a multipart body as upload does", async () => {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array([1, 2, 3])]), "slash.bin");
    const res = await upload(`${files}/upload/`, form);
    expect(res.status).toBe(201);
    expect(res.body.node).toMatchObject({ name: "slash.bin", size_bytes: 3 });
  });

  it("content/ takes raw bytes, JSON-typed or not, as content does (never a 500)", async () => {
    const text = await org.owner.api.post(`${files}/text`, { name: "slash.txt", content: "old" });
    const put = (type: string, body: string) =>
      fetch(`${server.url}${files}/${text.body.node.id}/content/`, {
        method: "PUT",
        headers: { ...auth(), "content-type": type },
        body,
      });
    expect((await put("text/plain", "hello")).status).toBe(200);
    const json = await put("application/json", '{"a":1}');
    expect(json.status).toBe(200);
    const got = await fetch(`${server.url}${files}/${text.body.node.id}/content`, { headers: auth() });
    expect(await got.text()).toBe('{"a":1}');
  });
});

describe("a multipart upload's parent_id", () => {
  it("is read case-insensitively, as every other id", async () => {
    const folder = await org.owner.api.post(`${files}/folders`, { name: "Upper" });
    const form = new FormData();
    form.append("parent_id", folder.body.node.id.toUpperCase());
    form.append("file", new Blob([new Uint8Array([9])]), "inside.bin");
    const res = await upload(`${files}/upload`, form);
    expect(res.status).toBe(201);
    expect(res.body.node.parent_id).toBe(folder.body.node.id);
  });
});

describe("a body on a DELETE", () => {
  it("is not read, as on a GET: the delete goes through whatever it holds", async () => {
    const text = await org.owner.api.post(`${files}/text`, { name: "with-body.txt" });
    const res = await fetch(`${server.url}${files}/${text.body.node.id}`, {
      method: "DELETE",
      headers: { ...auth(), "content-type": "text/plain" },
      body: "please",
    });
    expect(res.status).toBe(204);
  });
});

describe("an unknown provider", () => {
  it("answers 404 page not found before its body is looked at", async () => {
    const res = await org.owner.api.put(`/api/v1/organizations/${org.id}/integrations/bogus`, {});
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "page not found" });
  });
});

describe("a malformed id further along the path", () => {
  it("answers its resource's 404 before the body is looked at (contract §4), after the permission", async () => {
    const cases: [string, string, string][] = [
      ["PATCH", `/api/v1/organizations/${org.id}/roles/not-a-uuid`, "role not found"],
      ["POST", `${spacePath}/tasks/not-a-uuid/messages`, "task not found"],
      ["PATCH", `${files}/not-a-uuid`, "file not found"],
      ["POST", `${spacePath}/chat-rooms/not-a-uuid/messages`, "chat room not found"],
      ["PUT", `/api/v1/organizations/${org.id}/members/not-a-uuid/roles`, "member not found"],
    ];
    for (const [method, path, error] of cases) {
      const res = await request(server.url, method, path, { token: org.owner.token, body: { name: 5, content: 7 } });
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 404, body: { error } });
    }
  });
});

describe("an organization id that does not decode", () => {
  it("answers 404 organization not found on the live-events socket's route, as on every other", async () => {
    for (const path of [`/api/v1/organizations/%FF%FE/ws`, `/api/v1/organizations/%FF%FE/members`]) {
      const res = await request(server.url, "GET", path, { token: org.owner.token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "organization not found" });
    }
  });
});

describe("the OpenAPI document", () => {
  it("declares the 404 of /me/tasks and the 400s of a file's proposal list", async () => {
    const { paths } = (await request(server.url, "GET", "/api/docs/json")).body;
    expect(Object.keys(paths["/api/v1/me/tasks"].get.responses)).toContain("404");
    const proposals = paths["/api/v1/organizations/{orgId}/spaces/{spaceId}/files/{nodeId}/proposals"].get;
    expect(Object.keys(proposals.responses)).toContain("400");
  });
});
