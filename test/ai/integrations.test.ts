/**
 * Provider keys of the organization (api-spec §4 "Integrations", §5 rule 8; contract §6):
 * `GET|PUT|DELETE /api/v1/organizations/{orgId}/integrations/{modelrouter|agent}`. Any member reads whether a key
 * is set and its hint; `org.manage` sets and removes it. The key itself is stored encrypted and never answered or
 * logged: the last test stops the server and reads its database (and SQLite's file) to prove it.
 */

import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ENCRYPTION_KEY_FILE } from "../../src/config";
import { addMember, addStaff, type Org, type Person, setupOrg } from "../helpers/factories";
import { client, TIMESTAMP } from "../helpers/http";
import { ON_POSTGRES, openDataDirDatabase } from "../helpers/postgres";
import { startTestServer, type TestServer, tempDir } from "../helpers/server";

const INTEGRATION_KEYS = ["configured", "key_hint", "provider", "updated_at"];
/** A well-formed id of no organization. */
const NO_ORG = "01a1fdb9-0000-7000-8000-0000000000aa";

let server: TestServer;
let dataDir: string;
let stopped = false;
let org: Org;
let member: Person;
let viewer: Person;
let staff: Awaited<ReturnType<typeof addStaff>>;
/** Every key this file sent, for the "never answered, never logged, never stored" checks. */
const sentKeys: string[] = [];
/** Every answer body this file received. */
const answers: string[] = [];

const path = (provider: string, orgId = org.id) => `/api/v1/organizations/${orgId}/integrations/${provider}`;

let counter = 0;
/** A fresh, recognisable key; remembered for the secrecy checks. */
function newKey(prefix = "sk-test"): string {
  const key = `${prefix}-${++counter}-${crypto.randomUUID().replaceAll("-", "")}`;
  sentKeys.push(key);
  return key;
}

/** Keeps every answer's text for the "never answered" check. */
function seen<T extends { text: string }>(reply: T): T {
  answers.push(reply.text);
  return reply;
}

beforeAll(async () => {
  dataDir = tempDir();
  server = await startTestServer({ dataDir });
  org = await setupOrg(server);
  member = await addMember(org, ["Member"]);
  viewer = await addMember(org, ["Viewer"]);
  staff = await addStaff(org);
});
afterAll(async () => {
  if (!stopped) await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("GET .../integrations/{provider}", () => {
  it("answers an unconfigured integration for both providers", async () => {
    for (const provider of ["modelrouter", "agent"]) {
      const res = seen(await org.owner.api.get(path(provider)));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ integration: { provider, configured: false, key_hint: null, updated_at: null } });
    }
  });

  it("is open to every member: Member, Viewer and an sa_ token", async () => {
    for (const api of [member.api, viewer.api, staff.api]) {
      const res = seen(await api.get(path("modelrouter")));
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.integration).sort()).toEqual(INTEGRATION_KEYS);
      expect(res.body.integration.provider).toBe("modelrouter");
    }
  });

  it("answers 404 page not found for an unknown provider, whatever the method", async () => {
    for (const provider of ["openai", "MODELROUTER", "modelrouter2"]) {
      const get = await org.owner.api.get(path(provider));
      expect(get.status).toBe(404);
      expect(get.body).toEqual({ error: "page not found" });
      const put = await org.owner.api.put(path(provider), { api_key: newKey() });
      expect(put.status).toBe(404);
      expect(put.body).toEqual({ error: "page not found" });
      const del = await org.owner.api.delete(path(provider));
      expect(del.status).toBe(404);
      expect(del.body).toEqual({ error: "page not found" });
    }
  });

  it("answers 401 without a token and 404 organization not found for another organization", async () => {
    const anon = await org.anon.get(path("modelrouter"));
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual({ error: "unauthorized" });
    const other = await org.owner.api.get(path("modelrouter", NO_ORG));
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ error: "organization not found" });
  });
});

describe("PUT .../integrations/{provider}", () => {
  it("hints a key shorter than 12 characters as **** alone, so the hint never shows most of it", async () => {
    for (const key of ["ab", "abcd", "short-key01"]) {
      const res = seen(await org.owner.api.put(path("agent"), { api_key: key }));
      expect(res.status).toBe(200);
      expect(res.body.integration.key_hint).toBe("****");
    }
    const twelve = "twelve-chars";
    expect(seen(await org.owner.api.put(path("agent"), { api_key: twelve })).body.integration.key_hint).toBe(
      "****hars",
    );
    expect((await org.owner.api.delete(path("agent"))).status).toBe(204);
  });

  it("stores the key and answers only its hint: **** and the last four characters", async () => {
    const key = newKey();
    const before = Date.now();
    const res = seen(await org.owner.api.put(path("modelrouter"), { api_key: key }));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.integration).sort()).toEqual(INTEGRATION_KEYS);
    expect(res.body.integration).toMatchObject({
      provider: "modelrouter",
      configured: true,
      key_hint: `****${key.slice(-4)}`,
    });
    expect(res.body.integration.updated_at).toMatch(TIMESTAMP);
    expect(Date.parse(res.body.integration.updated_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(res.text).not.toContain(key);

    // The owner reads the same; every other member that a key is set, without its hint; none the key.
    const owner = seen(await org.owner.api.get(path("modelrouter")));
    expect(owner.body).toEqual(res.body);
    for (const api of [member.api, viewer.api, staff.api]) {
      const got = seen(await api.get(path("modelrouter")));
      expect(got.status).toBe(200);
      expect(got.body).toEqual({ integration: { ...res.body.integration, key_hint: null } });
      expect(got.text).not.toContain(key);
    }
  });

  it("keeps one key per provider: the agent key is separate from the modelrouter key", async () => {
    const routerKey = newKey("router");
    const agentKey = newKey("agent");
    const router = seen(await org.owner.api.put(path("modelrouter"), { api_key: routerKey }));
    const agent = seen(await org.owner.api.put(path("agent"), { api_key: agentKey }));
    expect(router.body.integration.key_hint).toBe(`****${routerKey.slice(-4)}`);
    expect(agent.status).toBe(200);
    expect(agent.body.integration).toMatchObject({
      provider: "agent",
      configured: true,
      key_hint: `****${agentKey.slice(-4)}`,
    });
    expect(seen(await org.owner.api.get(path("modelrouter"))).body.integration.key_hint).toBe(
      `****${routerKey.slice(-4)}`,
    );
    expect(seen(await org.owner.api.get(path("agent"))).body.integration.key_hint).toBe(`****${agentKey.slice(-4)}`);
    // Members see that a key is set, not its hint: that is for those who manage it.
    expect(seen(await member.api.get(path("agent"))).body.integration).toMatchObject({
      configured: true,
      key_hint: null,
    });
  });

  it("replaces the stored key: a new hint and a newer updated_at", async () => {
    const first = seen(await org.owner.api.put(path("agent"), { api_key: newKey() }));
    await Bun.sleep(5);
    const secondKey = newKey();
    const second = seen(await org.owner.api.put(path("agent"), { api_key: secondKey }));
    expect(second.status).toBe(200);
    expect(second.body.integration.key_hint).toBe(`****${secondKey.slice(-4)}`);
    expect(Date.parse(second.body.integration.updated_at)).toBeGreaterThan(
      Date.parse(first.body.integration.updated_at),
    );
    expect(seen(await viewer.api.get(path("agent"))).body).toEqual({
      integration: { ...second.body.integration, key_hint: null },
    });
  });

  it("answers 400 naming api_key when it is missing, empty, not a string or not sendable in a header", async () => {
    const cases: [unknown, string][] = [
      [{}, "api_key: required"],
      [{ api_key: "" }, "api_key: must not be empty"],
      [{ api_key: "   " }, "api_key: must not be empty"],
      [{ api_key: 12345678 }, "api_key: must be a string"],
      [{ api_key: null }, "api_key: must be a string"],
      // It goes into an Authorization header: what cannot be sent there is refused now, not at reply time.
      [{ api_key: "line\nbreak-key-000" }, "api_key: must be printable ASCII without spaces"],
      [{ api_key: "two words-key" }, "api_key: must be printable ASCII without spaces"],
      [{ api_key: "clé-secrète-0001" }, "api_key: must be printable ASCII without spaces"],
    ];
    const before = seen(await org.owner.api.get(path("modelrouter"))).body;
    for (const [body, error] of cases) {
      const res = await org.owner.api.put(path("modelrouter"), body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error });
    }
    // Nothing changed.
    expect(seen(await org.owner.api.get(path("modelrouter"))).body).toEqual(before);
  });

  it("answers 400 for a body that is not JSON", async () => {
    const key = newKey();
    const text = await org.owner.api.put(path("modelrouter"), undefined, {
      raw: JSON.stringify({ api_key: key }),
      contentType: "text/plain",
    });
    expect(text.status).toBe(400);
    expect(text.body).toEqual({ error: "content-type must be application/json" });
    const bad = await org.owner.api.put(path("modelrouter"), undefined, {
      raw: '{"api_key": ',
      contentType: "application/json",
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: "invalid json" });
    const none = await org.owner.api.put(path("modelrouter"));
    expect(none.status).toBe(400);
    expect(seen(await org.owner.api.get(path("modelrouter"))).body.integration.key_hint).not.toBe(
      `****${key.slice(-4)}`,
    );
  });

  it("needs org.manage: Member, Viewer and an sa_ token get 403 and change nothing", async () => {
    const before = seen(await org.owner.api.get(path("modelrouter"))).body;
    for (const api of [member.api, viewer.api, staff.api]) {
      const res = seen(await api.put(path("modelrouter"), { api_key: newKey("sneaky") }));
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: "missing permission: org.manage" });
    }
    expect(seen(await org.owner.api.get(path("modelrouter"))).body).toEqual(before);
  });
});

describe("DELETE .../integrations/{provider}", () => {
  it("needs org.manage: Member, Viewer and an sa_ token get 403 and the key stays", async () => {
    const key = newKey();
    seen(await org.owner.api.put(path("agent"), { api_key: key }));
    for (const api of [member.api, viewer.api, staff.api]) {
      const res = await api.delete(path("agent"));
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: "missing permission: org.manage" });
    }
    expect(seen(await org.owner.api.get(path("agent"))).body.integration).toMatchObject({
      configured: true,
      key_hint: `****${key.slice(-4)}`,
    });
  });

  it("removes the key: 204 with no body, then an unconfigured integration; again is still 204", async () => {
    const res = await org.owner.api.delete(path("agent"));
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    const got = seen(await member.api.get(path("agent")));
    expect(got.body).toEqual({
      integration: { provider: "agent", configured: false, key_hint: null, updated_at: null },
    });
    // The other provider's key is untouched.
    expect(seen(await member.api.get(path("modelrouter"))).body.integration.configured).toBe(true);
    const again = await org.owner.api.delete(path("agent"));
    expect(again.status).toBe(204);
  });

  it("lets the key be set again after removal", async () => {
    const key = newKey();
    const res = seen(await org.owner.api.put(path("agent"), { api_key: key }));
    expect(res.status).toBe(200);
    expect(res.body.integration).toMatchObject({ configured: true, key_hint: `****${key.slice(-4)}` });
  });
});

describe("secrecy of the key", () => {
  it("never answers a key in any response", () => {
    expect(answers.length).toBeGreaterThan(10);
    const all = answers.join("\n");
    for (const key of sentKeys) expect(all).not.toContain(key);
  });

  it("never writes a key into the server's log lines", () => {
    expect(server.logs.length).toBeGreaterThan(0);
    const log = server.logs.join("\n");
    expect(log).toContain("/integrations/");
    for (const key of sentKeys) expect(log).not.toContain(key);
  });

  it("stores the key encrypted: neither the integrations table nor the database file holds it", async () => {
    // A key stored last, so that it is surely in the table the file is read after.
    const key = newKey("stored");
    const put = seen(await org.owner.api.put(path("modelrouter"), { api_key: key }));
    expect(put.status).toBe(200);
    await server.stop();
    stopped = true;

    const db = openDataDirDatabase(dataDir, { readonly: true });
    try {
      const rows = db
        .query("SELECT org_id, provider, key_ciphertext, key_hint, updated_by, updated_at FROM integrations")
        .all() as Record<string, unknown>[];
      const router = rows.find((r) => r.provider === "modelrouter");
      expect(router).toBeDefined();
      expect(router?.org_id).toBe(org.id);
      expect(router?.key_hint).toBe(`****${key.slice(-4)}`);
      expect(typeof router?.key_ciphertext).toBe("string");
      expect(router?.key_ciphertext).not.toBe(key);
      const table = JSON.stringify(rows);
      for (const sent of sentKeys) expect(table).not.toContain(sent);
    } finally {
      db.close();
    }
    // Not in the raw bytes either (main file and any write-ahead log left behind), which do hold the hint: SQLite's
    // files (on PostgreSQL the database is not in the data dir).
    if (ON_POSTGRES) return;
    let raw = "";
    for (const name of ["tandem.db", "tandem.db-wal"]) {
      const full = join(dataDir, name);
      if (existsSync(full)) raw += readFileSync(full).toString("latin1");
    }
    expect(raw).toContain(`****${key.slice(-4)}`);
    for (const sent of sentKeys) expect(raw).not.toContain(sent);
  });
});

describe("a key stored under another encryption key", () => {
  it("is named at start, and a reply says it cannot be read rather than that there is none", async () => {
    const dir = tempDir();
    const first = await startTestServer({ dataDir: dir });
    const before = await setupOrg(first);
    const base = `/api/v1/organizations/${before.id}`;
    expect((await before.owner.api.put(`${base}/integrations/modelrouter`, { api_key: newKey("moved") })).status).toBe(
      200,
    );
    const ada = await addStaff(before, { name: "Keyless Ada" });
    await first.stop();
    // A restore that kept the database but not the key the data dir generated: another key in its place.
    writeFileSync(join(dir, ENCRYPTION_KEY_FILE), `${"b".repeat(64)}\n`, { mode: 0o600 });

    if (ON_POSTGRES) {
      // There every node is given the key, and one given another is refused at start, by the VAPID key the
      // database holds: it names the key to fix.
      await expect(startTestServer({ dataDir: dir, env: { APP_SSH_ENCRYPTION_KEY: "b".repeat(64) } })).rejects.toThrow(
        "cannot be read with this APP_SSH_ENCRYPTION_KEY: every node needs the key of the node that stored it",
      );
      return;
    }
    const second = await startTestServer({ dataDir: dir });
    try {
      expect(
        second.logs.some(
          (line) => line.includes("stored provider keys cannot be read") && line.includes("modelrouter"),
        ),
      ).toBe(true);
      const owner = client(second.url, before.owner.token);
      const space = (await owner.post(`${base}/spaces`, { name: "Moved" })).body;
      const rooms = `${base}/spaces/${space.id}/chat-rooms`;
      const room = (await owner.get(rooms)).body.chat_rooms[0].id;
      expect((await owner.post(`${rooms}/${room}/messages`, { content: "@Keyless Ada are you there?" })).status).toBe(
        201,
      );
      let reply: { content: string } | undefined;
      for (let i = 0; i < 200 && !reply; i++) {
        await Bun.sleep(25);
        const page = (await owner.get(`${rooms}/${room}/messages`)).body.messages as {
          author_user_id: string;
          content: string;
        }[];
        reply = page.find((m) => m.author_user_id === ada.account.user_id);
      }
      expect(reply?.content).toContain("the stored model gateway key cannot be read");
    } finally {
      await second.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
