/**
 * Email and Web Push from the compiled executable `dist/tandem`: nodemailer and web-push work inside the single
 * binary, against a real SMTP server and a push-service stand-in on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { client } from "../helpers/http";
import { browserSubscription, type FakePushService, startFakePushService } from "../helpers/push-service";
import { BINARY, type SpawnedServer, spawnServer, tempDir } from "../helpers/server";
import { type FakeSmtp, startFakeSmtp } from "../helpers/smtp";

if (!existsSync(BINARY)) {
  throw new Error(`${BINARY} is missing: run ./install.sh first`);
}

let smtp: FakeSmtp;
let push: FakePushService;
let server: SpawnedServer;
const dataDir = tempDir("tandem-notify-");

beforeAll(async () => {
  smtp = await startFakeSmtp();
  push = startFakePushService();
  server = await spawnServer({
    kind: "binary",
    dataDir,
    env: { TANDEM_SMTP_URL: smtp.url, TANDEM_SMTP_FROM: "tandem@smoke.test" },
  });
});
afterAll(async () => {
  await server?.stop();
  await smtp.stop();
  push.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function until(check: () => boolean, timeoutMs = 10_000) {
  const end = performance.now() + timeoutMs;
  while (!check() && performance.now() < end) await Bun.sleep(25);
}

describe("dist/tandem", () => {
  it("emails an invite through SMTP and pushes a mention, encrypted, to a subscribed browser", async () => {
    const anon = client(server.url);
    const token = new URL(server.setupUrl ?? "").searchParams.get("token");
    const setup = await anon.post("/api/v1/public/setup", {
      token,
      org_name: "Smoke",
      admin_email: "owner@smoke.test",
      admin_password: "smoke-owner-password",
      admin_name: "Olivia Owner",
    });
    expect(setup.status).toBe(201);
    const orgId = setup.body.organization_id as string;
    const owner = client(server.url, setup.body.access_token);

    const invite = await owner.post(`/api/v1/organizations/${orgId}/invites`, { email: "ada@smoke.test" });
    expect(invite.body.emailed).toBe(true);
    await until(() => smtp.to("ada@smoke.test").length > 0);
    expect(smtp.to("ada@smoke.test")[0]?.text).toContain(`${server.url}/invite?token=${invite.body.token}`);

    const accepted = await anon.post("/api/v1/auth/accept-invite", {
      token: invite.body.token,
      email: "ada@smoke.test",
      password: "ada-password",
      display_name: "Ada Lovelace",
    });
    const ada = client(server.url, accepted.body.access_token);
    const browser = browserSubscription(`${push.origin}/ada`);
    expect((await ada.post(`/api/v1/me/push-subscriptions?org_id=${orgId}`, browser.json)).status).toBe(201);
    const spaceId = (await owner.post(`/api/v1/organizations/${orgId}/spaces`, { name: "Launch" })).body.id;
    const rooms = await owner.get(`/api/v1/organizations/${orgId}/spaces/${spaceId}/chat-rooms`);
    const roomId = rooms.body.chat_rooms[0].id;
    await owner.post(`/api/v1/organizations/${orgId}/spaces/${spaceId}/chat-rooms/${roomId}/messages`, {
      content: "@Ada Lovelace hello from the binary",
    });
    await until(() => push.to("/ada").length > 0);
    const [received] = push.to("/ada");
    if (!received) throw new Error("no push arrived");
    const payload = JSON.parse(browser.decrypt(received.body));
    expect(payload.title).toBe("Olivia Owner mentioned you in Launch");
    expect(payload.body).toBe("@Ada Lovelace hello from the binary");
    expect(server.output.join("\n")).not.toContain(smtp.password);
  });
});
