/**
 * Testing a provider key from Settings (docs/api.md "Integrations: provider keys"): `POST
 * .../integrations/{provider}/test` makes one authenticated call to the provider with the stored key and answers
 * `{ok: true}` or `{ok: false, error}` with what the provider answered, never the key. The providers are
 * loopback fakes.
 */

import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, addStaff, type Org, type Person, setupOrg } from "../helpers/factories";
import { type FakeProvider, startFakeProvider } from "../helpers/fake-providers";
import { startTestServer, type TestServer } from "../helpers/server";

const MODELROUTER_KEY = "sk-or-v1-secret-4c1e9b";
const AGENT_KEY = "agent-secret-77d2f0";

let server: TestServer;
let gateway: FakeProvider;
let agents: FakeProvider;
let org: Org;
let member: Person;
let staff: Awaited<ReturnType<typeof addStaff>>;

const path = (provider: string) => `/api/v1/organizations/${org.id}/integrations/${provider}`;
const test = (provider: string, as = org.owner.api) => as.post(`${path(provider)}/test`);

beforeAll(async () => {
  gateway = startFakeProvider();
  agents = startFakeProvider();
  server = await startTestServer({
    env: { MODELROUTER_API_BASE_URL: `${gateway.origin}/api/v1`, AGENT_API_BASE_URL: agents.origin },
  });
  org = await setupOrg(server);
  member = await addMember(org, ["Member"]);
  staff = await addStaff(org);
});
afterAll(async () => {
  await server.stop();
  gateway.stop();
  agents.stop();
});

describe("POST .../integrations/{provider}/test", () => {
  it("answers 409 no key is set, and asks no provider, before a key is stored", async () => {
    for (const provider of ["modelrouter", "agent"]) {
      const res = await test(provider);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: "no key is set" });
    }
    expect(gateway.requests).toEqual([]);
    expect(agents.requests).toEqual([]);
  });

  it("modelrouter: one GET {base}/key with the key as Bearer; 200 is ok", async () => {
    expect((await org.owner.api.put(path("modelrouter"), { api_key: MODELROUTER_KEY })).status).toBe(200);
    gateway.handle(() => Response.json({ data: { label: "sk-or-v1-sec...9b", usage: 0, limit: null } }));
    const mark = gateway.requests.length;
    const res = await test("modelrouter");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    const seen = gateway.requests.slice(mark);
    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /api/v1/key"]);
    expect(seen[0]?.headers.authorization).toBe(`Bearer ${MODELROUTER_KEY}`);
  });

  it("modelrouter: a refused key is ok: false with the status and the provider's message, asked once", async () => {
    gateway.handle(() => Response.json({ error: { code: 401, message: "User not found." } }, { status: 401 }));
    const mark = gateway.requests.length;
    const res = await test("modelrouter");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: false, error: "the model gateway answered 401: User not found." });
    expect(gateway.requests.length - mark).toBe(1);
  });

  it("modelrouter: a 503 is said at once, not retried: a person is waiting", async () => {
    gateway.handle(() => Response.json({ error: { message: "overloaded" } }, { status: 503 }));
    const mark = gateway.requests.length;
    const res = await test("modelrouter");
    expect(res.body).toEqual({ ok: false, error: "the model gateway answered 503: overloaded" });
    expect(gateway.requests.length - mark).toBe(1);
  });

  it("modelrouter: never repeats a key the gateway echoes in its error", async () => {
    gateway.handle(() => Response.json({ error: { message: `Invalid key ${MODELROUTER_KEY}` } }, { status: 401 }));
    const res = await test("modelrouter");
    expect(res.body).toEqual({ ok: false, error: "the model gateway answered 401: Invalid key ****" });
    expect(res.text).not.toContain(MODELROUTER_KEY);
  });

  it("modelrouter: a compatible gateway without /key is asked its model list, with the key", async () => {
    gateway.handle((req) =>
      req.path.endsWith("/key") ? new Response("not found", { status: 404 }) : Response.json({ data: [] }),
    );
    const mark = gateway.requests.length;
    const res = await test("modelrouter");
    expect(res.body).toEqual({ ok: true });
    const seen = gateway.requests.slice(mark);
    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /api/v1/key", "GET /api/v1/models"]);
    expect(seen[1]?.headers.authorization).toBe(`Bearer ${MODELROUTER_KEY}`);
  });

  it("agent: one GET /v0/me with Basic auth (the key as user name); a refusal is ok: false", async () => {
    expect((await org.owner.api.put(path("agent"), { api_key: AGENT_KEY })).status).toBe(200);
    agents.handle(() => Response.json({ apiKeyName: "ci", userEmail: "o@acme.test" }));
    const ok = await test("agent");
    expect(ok.body).toEqual({ ok: true });
    expect(agents.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v0/me"]);
    expect(agents.requests[0]?.headers.authorization).toBe(`Basic ${Buffer.from(`${AGENT_KEY}:`).toString("base64")}`);
    agents.handle(() => Response.json({ error: "Invalid API key" }, { status: 401 }));
    const refused = await test("agent");
    expect(refused.body).toEqual({ ok: false, error: "the agent service answered 401: Invalid API key" });
  });

  it("a provider that cannot be reached is ok: false saying so", async () => {
    const gone = startFakeProvider();
    gone.stop();
    const other = await startTestServer({ env: { MODELROUTER_API_BASE_URL: `${gone.origin}/api/v1` } });
    try {
      const otherOrg = await setupOrg(other);
      const put = `/api/v1/organizations/${otherOrg.id}/integrations/modelrouter`;
      await otherOrg.owner.api.put(put, { api_key: MODELROUTER_KEY });
      const res = await otherOrg.owner.api.post(`${put}/test`);
      expect(res.body).toEqual({ ok: false, error: "the model gateway could not be reached" });
    } finally {
      await other.stop();
    }
  });

  it("needs org.manage; an unknown provider is 404 page not found", async () => {
    for (const api of [member.api, staff.api]) {
      const res = await test("modelrouter", api);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: "missing permission: org.manage" });
    }
    const unknown = await test("other");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: "page not found" });
  });

  it("never writes a key into the server's log lines", () => {
    const log = server.logs.join("\n");
    expect(log).not.toContain(MODELROUTER_KEY);
    expect(log).not.toContain(AGENT_KEY);
  });
});

describe("POST .../integrations/agent/test with the local bridge", () => {
  it("asks the bridge's model list, authenticated as AGENT_HTTP_AUTH says", async () => {
    const bridge = startFakeProvider(() => Response.json({ data: [{ id: "auto" }] }));
    const other = await startTestServer({ env: { AGENT_LOCAL_BRIDGE: "true", AGENT_API_BASE_URL: bridge.origin } });
    try {
      const otherOrg = await setupOrg(other);
      const put = `/api/v1/organizations/${otherOrg.id}/integrations/agent`;
      await otherOrg.owner.api.put(put, { api_key: AGENT_KEY });
      const res = await otherOrg.owner.api.post(`${put}/test`);
      expect(res.body).toEqual({ ok: true });
      expect(bridge.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v1/models"]);
      expect(bridge.requests[0]?.headers.authorization).toBe(`Bearer ${AGENT_KEY}`);
    } finally {
      await other.stop();
      bridge.stop();
    }
  });
});
