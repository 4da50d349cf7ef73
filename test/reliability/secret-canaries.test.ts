/**
 * Secret canaries: a provider key, an agent key, an OAuth token, a webhook secret, the SMTP password and people's
 * passwords, each a string found nowhere else, go in through the API and the settings as users give them; then the
 * database file, its WAL, a backup, the log, every answer of every GET route and every frame of the live-events
 * socket are searched for them. None may be found (the secrets are stored encrypted or hashed, and shown once when
 * made: those creation answers are the one place a new webhook secret is seen, and are not searched).
 *
 * `tandem serve` from source as a child process, so the log searched is the whole of what it printed.
 */
import { afterAll, beforeAll, expect, it } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { request } from "../helpers/http";
import { runCli, type SpawnedServer, spawnServer, tempDir } from "../helpers/server";
import { type FakeSmtp, startFakeSmtp } from "../helpers/smtp";
import { type Listener, listen } from "../helpers/sockets";

const CANARY = {
  password: "pw-canary-7f3a91c2",
  newPassword: "pw-canary-new-55e0b7",
  memberPassword: "pw-canary-member-8d21",
  providerKey: "sk-canary-provider-1c9e4b7d",
  agentKey: "ag-canary-agent-6b0f2a8e",
  oauthToken: "oauth-canary-token-3e7d9c10",
  smtpPassword: "smtp-canary-pass-a4f2",
};

let data: string;
let server: SpawnedServer;
let smtp: FakeSmtp;
let live: Listener;
let token: string;
let orgId: string;
const seen: string[] = [];
let webhookSecret = "";

async function call(method: string, path: string, body?: unknown, keep = true) {
  const res = await request(server.url, method, path, { token, body });
  if (keep) seen.push(`${method} ${path}\n${res.text}`);
  return res;
}

beforeAll(async () => {
  data = tempDir("tandem-canaries-");
  smtp = await startFakeSmtp("tandem", CANARY.smtpPassword);
  server = await spawnServer({
    dataDir: data,
    env: {
      TANDEM_SMTP_URL: smtp.url,
      TANDEM_SMTP_FROM: "tandem@acme.test",
      LOG_LEVEL: "debug",
    },
  });
  const setupToken = new URL(server.setupUrl as string).searchParams.get("token");
  const setup = await request(server.url, "POST", "/api/v1/public/setup", {
    body: { token: setupToken, org_name: "Canary", admin_email: "owner@canary.test", admin_password: CANARY.password },
  });
  expect(setup.status).toBe(201);
  orgId = setup.body.organization_id;
  token = setup.body.access_token;
  live = await listen(server.url, orgId, token);
});

afterAll(async () => {
  live?.close();
  await server?.stop();
  await smtp?.stop();
  rmSync(data, { recursive: true, force: true });
});

it("finds no secret in the database, its WAL, a backup, the log, any answer or any live event", async () => {
  const org = `/api/v1/organizations/${orgId}`;
  // Secrets in, as users give them.
  expect((await call("PUT", `${org}/integrations/modelrouter`, { api_key: CANARY.providerKey })).status).toBe(200);
  expect((await call("PUT", `${org}/integrations/agent`, { api_key: CANARY.agentKey })).status).toBe(200);
  const space = (await call("POST", `${org}/spaces`, { name: "Launch" })).body.id;
  const base = `${org}/spaces/${space}`;
  const social = await call("POST", `${base}/automations`, {
    name: "Tweet",
    kind: "social_post",
    status: "active",
    oauth_token: CANARY.oauthToken,
    config: { endpoint: "http://127.0.0.1:9/2/tweets", text: "hello" },
  });
  expect(social.status).toBe(201);
  // The one answer that shows a webhook secret, once, by design: kept out of what is searched.
  const hook = await call(
    "POST",
    `${base}/automations`,
    { name: "Hook", kind: "webhook", status: "active", config: {} },
    false,
  );
  expect(hook.status).toBe(201);
  webhookSecret = hook.body.webhook_secret ?? hook.body.automation?.webhook_secret ?? "";
  expect(webhookSecret.length).toBeGreaterThan(10);
  const rotated = await call("POST", `${base}/automations/${hook.body.automation.id}/webhook-secret`, undefined, false);
  expect(rotated.status).toBe(200);
  webhookSecret = rotated.body.webhook_secret ?? webhookSecret;
  const invite = await call("POST", `${org}/invites`, { email: "mia@canary.test" });
  expect(invite.status).toBe(201);
  const accepted = await request(server.url, "POST", "/api/v1/auth/accept-invite", {
    body: { token: invite.body.token, email: "mia@canary.test", display_name: "Mia", password: CANARY.memberPassword },
  });
  expect(accepted.status).toBe(201);
  const changed = await call("POST", "/api/v1/me/password", {
    current_password: CANARY.password,
    new_password: CANARY.newPassword,
  });
  expect(changed.status).toBe(204);
  const login = await request(server.url, "POST", "/api/v1/auth/login", {
    body: { email: "owner@canary.test", password: CANARY.newPassword },
  });
  token = login.body.access_token;
  // A wrong password is logged as a failure, never as what was typed.
  await request(server.url, "POST", "/api/v1/auth/login", {
    body: { email: "owner@canary.test", password: CANARY.password },
  });

  // Every GET route, with the ids of this world.
  const ids: Record<string, string> = {
    orgId,
    spaceId: space,
    automationId: social.body.automation.id,
    provider: "modelrouter",
  };
  const spec = (await (await fetch(`${server.url}/api/docs/json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  for (const [template, item] of Object.entries(spec.paths)) {
    if (!("get" in item)) continue;
    const path = template.replace(/\{(\w+)\}/g, (_, n: string) => ids[n] ?? "00000000-0000-4000-8000-000000000000");
    await call("GET", path);
  }
  await call("GET", `${org}/integrations/agent`);

  // A backup, made by the command line.
  const backup = join(data, "canary-backup.db");
  const made = await runCli(["backup", "--data", data, "--out", backup]);
  expect(made.code).toBe(0);

  const secrets = [
    CANARY.password,
    CANARY.newPassword,
    CANARY.memberPassword,
    CANARY.providerKey,
    CANARY.agentKey,
    CANARY.oauthToken,
    CANARY.smtpPassword,
    webhookSecret,
  ];
  const places: [string, Buffer | string][] = [
    ["the database", readFileSync(join(data, "tandem.db"))],
    [
      "its WAL",
      (() => {
        try {
          return readFileSync(join(data, "tandem.db-wal"));
        } catch {
          return "";
        }
      })(),
    ],
    ["the backup", readFileSync(backup)],
    ["the log", server.output.join("\n")],
    ["the answers", seen.join("\n")],
    ["the live events", JSON.stringify(live.events)],
  ];
  const found: string[] = [];
  for (const [where, content] of places) {
    const text = typeof content === "string" ? content : content.toString("latin1");
    for (const secret of secrets) if (text.includes(secret)) found.push(`${where} holds ${secret.slice(0, 12)}…`);
  }
  expect(seen.length).toBeGreaterThan(30);
  expect(live.events.length).toBeGreaterThan(3);
  expect(found).toEqual([]);
}, 120_000);
