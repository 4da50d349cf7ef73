import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { type Org, setupOrg } from "../helpers/factories";
import { request } from "../helpers/http";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let org: Org;

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server);
});
afterAll(() => server.stop());

const login = (raw: string | Uint8Array, contentType: string | null = "application/json") =>
  request(server.url, "POST", "/api/v1/auth/login", { raw, contentType });

describe("error responses", () => {
  it("answers 400 invalid json for malformed JSON", async () => {
    const res = await login('{"email":');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid json" });
  });

  it("answers 400 invalid json for an empty body on a route that needs one", async () => {
    const res = await login("");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid json" });
  });

  it("answers 400 invalid json for bytes that are not UTF-8", async () => {
    const res = await login(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid json" });
  });

  it("refuses a form-encoded body on a JSON route", async () => {
    const res = await login("email=a%40b.co&password=x", "application/x-www-form-urlencoded");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "content-type must be application/json" });
  });

  it("refuses multipart and text bodies and a body without a content type", async () => {
    for (const type of ["multipart/form-data; boundary=x", "text/plain", null]) {
      const res = await login('{"email":"a@b.co","password":"x"}', type);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "content-type must be application/json" });
    }
  });

  it("accepts application/json with a charset", async () => {
    const res = await login(
      JSON.stringify({ email: "owner@acme.test", password: "owner-password" }),
      "application/json; charset=utf-8",
    );
    expect(res.status).toBe(200);
  });

  it("answers 413 request body too large beyond 1 MiB, declared or streamed", async () => {
    const big = JSON.stringify({ email: "a@b.co", password: "x".repeat(1024 * 1024) });
    const res = await login(big);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: "request body too large" });
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const chunked = await fetch(`${server.url}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
    });
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toEqual({ error: "request body too large" });
  });

  it("answers 400 for a body nested more than 64 levels deep, however deep (never a 500)", async () => {
    const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
    for (const body of [
      nested(65),
      nested(40_000),
      `{"email":"a@b.co","password":${nested(100_000)}}`,
      `{"email":"\\u0041","password":${nested(70)}}`,
    ]) {
      const res = await login(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "body nested too deeply (at most 64 levels)" });
    }
    const deepButAllowed = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, {
      name: "Deep",
      description: JSON.parse(nested(63)), // 64 levels with the body itself
    });
    expect(deepButAllowed.status).toBe(400);
    expect(deepButAllowed.body).toEqual({ error: "description: must be a string" });
  });

  it("answers 400 naming the field for a missing or mistyped field, never 422", async () => {
    let res = await login(JSON.stringify({ email: "a@b.co" }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "password: required" });
    res = await login(JSON.stringify({ email: "a@b.co", password: 12345678 }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "password: must be a string" });
  });

  it("does not coerce strings into numbers or booleans", async () => {
    const res = await org.owner.api.patch(`/api/v1/organizations/${org.id}`, { open_signups_enabled: "true" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "open_signups_enabled: must be a boolean" });
  });

  it("answers 400 for a JSON body that is not an object, null included", async () => {
    for (const raw of ["[1,2]", "null", '"text"', "5"]) {
      const res = await login(raw);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "body must be a JSON object" });
    }
  });

  it("rejects NUL and lone surrogates in strings with 400, and stores nothing", async () => {
    for (const raw of ['{"display_name":"a\\u0000b"}', '{"display_name":"\\ud800x"}', '{"display_name":"x\\udc00"}']) {
      const res = await request(server.url, "PATCH", "/api/v1/me", {
        token: org.owner.token,
        raw,
        contentType: "application/json",
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("display_name: must not contain NUL or unpaired surrogate characters");
    }
    const me = await org.owner.api.get("/api/v1/me");
    expect(me.body.user.display_name).toBe("Olivia Owner");
  });

  it("accepts astral characters and emoji written as surrogate pairs", async () => {
    const res = await org.owner.api.patch("/api/v1/me", { display_name: "Olivia 🚀 𝒪" });
    expect(res.status).toBe(200);
    expect(res.body.user.display_name).toBe("Olivia 🚀 𝒪");
    await org.owner.api.patch("/api/v1/me", { display_name: "Olivia Owner" });
  });

  it("answers 404 page not found for an unknown route, also under /api/v1", async () => {
    for (const path of ["/api/v1/nothing-here", "/api/v2/organizations", "/nope"]) {
      const res = await request(server.url, "GET", path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "page not found" });
    }
  });

  it("answers a malformed UUID in a path with the resource's 404", async () => {
    let res = await org.owner.api.get("/api/v1/organizations/not-a-uuid");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "organization not found" });
    res = await org.owner.api.patch(`/api/v1/organizations/${org.id}/roles/%00abc`, { name: "x" });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "role not found" });
    res = await org.owner.api.delete(`/api/v1/organizations/${org.id}/invites/${"9".repeat(36)}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "invite not found" });
  });

  it("never answers 500 for hostile input", async () => {
    const bodies = [
      "null",
      "true",
      '"string"',
      "{}",
      '{"__proto__":{"x":1}}',
      '{"email":{"$gt":""},"password":[]}',
      `{"email":"${"a".repeat(10000)}@b.co","password":"x"}`,
      "{".repeat(10000),
      "[".repeat(100000),
    ];
    for (const raw of bodies) {
      const res = await login(raw);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(typeof res.body.error).toBe("string");
    }
  });
});

describe("headers", () => {
  it("sets security headers and no-store on API responses", async () => {
    const res = await request(server.url, "GET", "/api/v1/public/instance");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("sets them on errors too, with a JSON content type and the request id", async () => {
    const res = await request(server.url, "GET", "/api/v1/me");
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-request-id")).toMatch(/\S+/);
  });

  it("writes the JSON content type one way, on answers and errors alike", async () => {
    const answers = await Promise.all([
      request(server.url, "GET", "/api/v1/public/instance"),
      request(server.url, "GET", "/api/v1/me"),
      request(server.url, "GET", "/api/v1/nothing-here"),
      request(server.url, "GET", "/api/docs/json"),
    ]);
    expect(answers.map((res) => res.headers.get("content-type"))).toEqual(
      Array(answers.length).fill("application/json;charset=utf-8"),
    );
  });

  it("serves the web pages with security headers and long-lived hashed assets", async () => {
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const html = await page.text();
    const asset = html.match(/\/assets\/[^"]+\.js/)?.[0];
    expect(asset).toBeDefined();
    const js = await fetch(`${server.url}${asset}`, { headers: { "accept-encoding": "gzip" } });
    expect(js.status).toBe(200);
    expect(js.headers.get("cache-control")).toContain("immutable");
    const again = await fetch(`${server.url}${asset}`, { headers: { "if-none-match": js.headers.get("etag") ?? "" } });
    expect(again.status).toBe(304);
  });

  it("answers If-None-Match as HTTP says (weak tags, lists, *), honours gzip;q=0, and never serves ranges", async () => {
    const html = await (await fetch(`${server.url}/`)).text();
    const asset = html.match(/\/assets\/[^"]+\.js/)?.[0] as string;
    const get = (headers: Record<string, string>) => fetch(`${server.url}${asset}`, { headers });
    const gz = await get({ "accept-encoding": "gzip" });
    const plain = await get({ "accept-encoding": "gzip;q=0, identity" });
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(plain.headers.get("content-encoding")).toBeNull();
    const [gzTag, plainTag] = [gz.headers.get("etag") as string, plain.headers.get("etag") as string];
    expect(gzTag).not.toBe(plainTag);
    for (const inm of [`W/${gzTag}`, `"other", ${gzTag}`, "*"]) {
      expect((await get({ "accept-encoding": "gzip", "if-none-match": inm })).status).toBe(304);
    }
    expect((await get({ "accept-encoding": "identity", "if-none-match": gzTag })).status).toBe(200);
    const ranged = await get({ "accept-encoding": "gzip", range: "bytes=0-9" });
    expect(ranged.status).toBe(200);
    expect(ranged.headers.get("content-range")).toBeNull();
    expect((await ranged.text()).length).toBeGreaterThan(10);
  });

  it("serves nothing outside the UI's files: no path out of its folder, no gzip file as a file of its own", async () => {
    const html = await (await fetch(`${server.url}/`)).text();
    const asset = html.match(/\/assets\/[^"]+\.js/)?.[0] as string;
    for (const path of [
      `${asset}.gz`,
      "/assets/..%2F..%2Fpackage.json",
      "/assets/%2e%2e/%2e%2e/package.json",
      "/assets/",
      "/assets/nothing-here.js",
    ]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: "page not found" });
    }
  });

  it("serves the app at /setup, with a policy that keeps scripts and connections to the origin", async () => {
    const page = await fetch(`${server.url}/setup?token=abc`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    // Pictures from elsewhere would tell their host who reads what: markdown shows them as links.
    expect(csp).toContain("img-src 'self' data: blob:;");
  });

  it("serves the service worker at the root as JavaScript that revalidates, under a policy of its own", async () => {
    const worker = await fetch(`${server.url}/sw.js`, { headers: { "accept-encoding": "gzip" } });
    expect(worker.status).toBe(200);
    expect(worker.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(worker.headers.get("cache-control")).toBe("no-cache");
    expect(worker.headers.get("content-encoding")).toBe("gzip");
    expect(worker.headers.get("content-security-policy")).toBe(
      "default-src 'none'; script-src 'self'; frame-ancestors 'none'",
    );
    // At the root, its scope is the whole app without a Service-Worker-Allowed header.
    expect(worker.headers.get("service-worker-allowed")).toBeNull();
    const text = await worker.text();
    expect(text).toContain("notificationclick");
    expect(text).not.toMatch(/\bimport\b|\bexport\b/);
    const again = await fetch(`${server.url}/sw.js`, {
      headers: { "accept-encoding": "gzip", "if-none-match": worker.headers.get("etag") ?? "" },
    });
    expect(again.status).toBe(304);
    for (const path of ["/sw.js.gz", "/assets/sw.js", "/sw.ts"])
      expect((await fetch(`${server.url}${path}`)).status).toBe(404);
  });
});

describe("request log", () => {
  it("writes one line per request with its id, and redacts tokens in URLs", async () => {
    const res = await request(server.url, "GET", "/api/v1/nothing?token=supersecret-value&x=1");
    const id = res.headers.get("x-request-id");
    await Bun.sleep(20);
    const lines = server.logs.filter((l) => l.includes(`"req_id":"${id}"`));
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0] as string);
    expect(entry.status).toBe(404);
    expect(entry.method).toBe("GET");
    expect(entry.path).toContain("token=%5Bredacted%5D");
    expect(server.logs.join("\n")).not.toContain("supersecret-value");
  });

  it("logs the status a handler answers: 201, 204 and 200, each line with a request id", async () => {
    const roles = `/api/v1/organizations/${org.id}/roles`;
    const created = await org.owner.api.post(roles, { name: "Logged" });
    await org.owner.api.delete(`${roles}/${created.body.role.id}`);
    await org.owner.api.get(roles);
    await Bun.sleep(20);
    const entries = server.logs
      .map((l) => JSON.parse(l))
      .filter((e) => typeof e.path === "string" && e.path.startsWith(roles));
    expect(entries.slice(-3).map((e) => [e.method, e.status])).toEqual([
      ["POST", 201],
      ["DELETE", 204],
      ["GET", 200],
    ]);
    for (const e of entries) expect(e.req_id).toMatch(/\S+/);
  });
});
