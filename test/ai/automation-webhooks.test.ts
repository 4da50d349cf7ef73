/**
 * Inbound webhooks (contract §8): `POST /api/v1/hooks/{automationId}`, signed the Standard Webhooks way or
 * GitHub's, against a real server on a random port. The senders are written here from the two specifications
 * (and checked against their published examples); the only fake is a loopback social network whose answer is
 * held, to keep the one run worker busy while a flood piles up.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHmac, randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { verifyDelivery, webhookSecret } from "../../src/features/automations/automations.webhook-signatures";
import { addMember, type Org, type Person, setupOrg } from "../helpers/factories";
import { type FakeProvider, startFakeProvider } from "../helpers/fake-providers";
import { request, UUID } from "../helpers/http";
import { openDataDirDatabase } from "../helpers/postgres";
import { startTestServer, type TestServer, tempDir } from "../helpers/server";

let server: TestServer;
let org: Org;
let member: Person;
let social: FakeProvider;
let spaceId: string;
let roomId: string;
let devRoomId: string;
/** Every secret and signature sent, to look for in the logs at the end. */
const sensitive = new Set<string>();

const base = () => `/api/v1/organizations/${org.id}/spaces/${spaceId}`;
const automations = () => `${base()}/automations`;

/** Standard Webhooks headers for `body`, signed with `secret` (several secrets: several signatures). */
function standard(
  secrets: string | string[],
  body: string,
  options: { id?: string; timestamp?: number } = {},
): Record<string, string> {
  const id = options.id ?? `msg_${randomUUID()}`;
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const signatures = (Array.isArray(secrets) ? secrets : [secrets]).map((secret) => {
    const key = Buffer.from(secret.slice("whsec_".length), "base64");
    return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
  });
  for (const s of signatures) sensitive.add(s.slice(3));
  return { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signatures.join(" ") };
}

/** GitHub's headers for `body`, keyed with the whole secret string. */
function github(secret: string, body: string, event = "push", delivery: string = randomUUID()): Record<string, string> {
  const signature = createHmac("sha256", secret).update(body).digest("hex");
  sensitive.add(signature);
  return { "x-hub-signature-256": `sha256=${signature}`, "x-github-event": event, "x-github-delivery": delivery };
}

function deliver(
  automationId: string,
  body: string | Uint8Array,
  headers: Record<string, string>,
  contentType = "application/json",
) {
  return request(server.url, "POST", `/api/v1/hooks/${automationId}`, { raw: body, contentType, headers });
}

let counter = 0;
/** A webhook automation, made active unless `status` says otherwise; its secret, shown once. */
async function webhook(config: Record<string, unknown>, status = "active") {
  const res = await member.api.post(automations(), { name: `Hook ${++counter}`, kind: "webhook", status, config });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  sensitive.add(res.body.webhook_secret);
  return { id: res.body.automation.id as string, secret: res.body.webhook_secret as string };
}

async function runs(id: string): Promise<any[]> {
  return (await member.api.get(`${automations()}/${id}/runs`)).body.runs;
}

/** Waits for the run to finish; returns it. */
async function finished(automationId: string, runId: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const run = (await runs(automationId)).find((r) => r.id === runId);
    if (run && (run.status === "succeeded" || run.status === "failed")) return run;
    await Bun.sleep(25);
  }
  throw new Error(`run ${runId} did not finish`);
}

/** The messages of a room (the 200 newest). */
async function roomMessages(room = roomId): Promise<any[]> {
  return (await member.api.get(`${base()}/chat-rooms/${room}/messages?limit=200`)).body.messages;
}

async function message(id: string, room = roomId): Promise<any> {
  return (await roomMessages(room)).find((m: { id: string }) => m.id === id);
}

beforeAll(async () => {
  social = startFakeProvider();
  // One run worker, so that a run held by the social fake keeps every other run waiting (the flood).
  server = await startTestServer({ env: { TANDEM_STAFF_WORKERS: "1" } });
  org = await setupOrg(server);
  member = await addMember(org, ["Member"], "Mia Member");
  spaceId = (await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Launch" })).body.id;
  roomId = (await member.api.get(`${base()}/chat-rooms`)).body.chat_rooms[0].id;
  devRoomId = (await member.api.post(`${base()}/chat-rooms`, { name: "dev" })).body.id;
});
afterAll(async () => {
  await server.stop();
  social.stop();
});

describe("the signature schemes, against their published examples", () => {
  it("verifies the Standard Webhooks example signature", () => {
    const secret = webhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    const headers = {
      webhookId: "msg_p5jXN8AQM9LWM0D4loKWxJek",
      webhookTimestamp: "1614265330",
      webhookSignature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
      hubSignature256: null,
      githubDelivery: null,
      githubEvent: null,
      contentType: "application/json",
    };
    const body = new TextEncoder().encode('{"test": 2432232314}');
    expect(verifyDelivery(secret, headers, body, 1614265330_000)).toEqual({
      deliveryId: "msg_p5jXN8AQM9LWM0D4loKWxJek",
      event: null,
    });
    expect(() => verifyDelivery(secret, headers, body, 1614265330_000 + 301_000)).toThrow(
      "timestamp outside tolerance",
    );
  });

  it("verifies GitHub's example signature, keyed with the secret string itself", () => {
    const headers = {
      webhookId: null,
      webhookTimestamp: null,
      webhookSignature: null,
      hubSignature256: "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
      githubDelivery: "72d3162e-cc78-11e3-81ab-4c9367dc0958",
      githubEvent: "issues",
      contentType: "application/json",
    };
    const body = new TextEncoder().encode("Hello, World!");
    expect(verifyDelivery(webhookSecret("It's a Secret to Everybody"), headers, body, Date.now())).toEqual({
      deliveryId: "72d3162e-cc78-11e3-81ab-4c9367dc0958",
      event: "issues",
    });
  });
});

describe("POST /api/v1/hooks/{automationId}", () => {
  it("a Standard Webhooks delivery: 202 {run_id}; the run posts the templated message as the automation", async () => {
    const hook = await webhook({
      channel: "#General",
      template: "Deployed {{app.name}} {{version}} by {{who.login}}{{missing.path}}",
    });
    const body = JSON.stringify({ type: "deploy.finished", app: { name: "shop" }, version: "v1.4.2" });
    const res = await deliver(hook.id, body, standard(hook.secret, body));
    expect(res.status).toBe(202);
    expect(Object.keys(res.body)).toEqual(["run_id"]);
    expect(res.body.run_id).toMatch(UUID);
    const run = await finished(hook.id, res.body.run_id);
    expect(run.trigger).toBe("webhook");
    expect(run.status).toBe("succeeded");
    expect(run.error).toBeNull();
    expect(Object.keys(run.output).sort()).toEqual(["chat_room_id", "message_id"]);
    expect(run.output.chat_room_id).toBe(roomId);
    expect(run.output.message_id).toMatch(UUID);
    const posted = await message(run.output.message_id);
    expect(posted.author_user_id).toBeNull();
    expect(posted.automation_id).toBe(hook.id);
    expect(posted.content).toBe("Deployed shop v1.4.2 by ");
  });

  it("a GitHub push without a template: the event and a summary in #dev; a task too when the config has one", async () => {
    const hook = await webhook({ channel: "#dev", task: { title: "Review the push", column: "Review" } });
    const push = {
      ref: "refs/heads/main",
      repository: { full_name: "acme/shop" },
      sender: { login: "octocat" },
      commits: [{ id: "a1" }, { id: "b2" }],
      head_commit: { message: "Fix the checkout\n\nLonger text" },
    };
    const body = JSON.stringify(push);
    const res = await deliver(hook.id, body, github(hook.secret, body, "push"));
    expect(res.status).toBe(202);
    const run = await finished(hook.id, res.body.run_id);
    expect(run.status).toBe("succeeded");
    expect(run.output.task_id).toMatch(UUID);
    expect(run.output.chat_room_id).toBe(devRoomId);
    const posted = await message(run.output.message_id, devRoomId);
    expect(posted.author_user_id).toBeNull();
    expect(posted.automation_id).toBe(hook.id);
    expect(posted.content).toBe(
      `**Hook ${counter}**: push\noctocat pushed 2 commits to acme/shop (main): Fix the checkout`,
    );
    const task = (await member.api.get(`${base()}/tasks/${run.output.task_id}`)).body;
    expect(task.title).toBe("Review the push");
  });

  it("takes GitHub's form content type (the JSON in its payload field), several signatures, and an empty body", async () => {
    const hook = await webhook({ channel: "general", template: "{{action}} #{{number}}" });
    const json = JSON.stringify({ action: "opened", number: 7 });
    const form = `payload=${encodeURIComponent(json)}`;
    const byForm = await deliver(
      hook.id,
      form,
      github(hook.secret, form, "pull_request"),
      "application/x-www-form-urlencoded",
    );
    expect(byForm.status).toBe(202);
    const run = await finished(hook.id, byForm.body.run_id);
    expect((await message(run.output.message_id)).content).toBe("opened #7");
    // A sender rotating its own secrets signs with both; one right signature is enough.
    const other = "whsec_dGhpcyBpcyBub3QgdGhlIHNlY3JldCBhdCBhbGw=";
    const both = await deliver(hook.id, json, standard([other, hook.secret], json), "text/plain");
    expect(both.status).toBe(202);
    // Pretty-printed, with white space around it: the payload is kept as sent, and read the same.
    const pretty = `\n ${JSON.stringify({ action: "closed", number: 8 }, null, 2)}\r\n`;
    const spaced = await deliver(hook.id, pretty, standard(hook.secret, pretty));
    expect(spaced.status).toBe(202);
    const spacedRun = await finished(hook.id, spaced.body.run_id);
    expect((await message(spacedRun.output.message_id)).content).toBe("closed #8");
    const empty = await deliver(hook.id, "", standard(hook.secret, ""));
    expect(empty.status).toBe(202);
    expect((await finished(hook.id, empty.body.run_id)).status).toBe("succeeded");
  });

  it("refuses what is not signed with the secret: 401 invalid signature, and runs nothing", async () => {
    const hook = await webhook({ channel: "general" });
    const body = '{"hello":"world"}';
    const forged = "whsec_Zm9yZ2VkIGJ5IHNvbWVvbmUgd2hvIGd1ZXNzZWQ=";
    const right = standard(hook.secret, body);
    const cases: [string, Record<string, string>, string?][] = [
      ["no signature at all", {}],
      ["another secret", standard(forged, body)],
      ["another body", standard(hook.secret, '{"hello":"there"}')],
      ["another id than the one signed", { ...right, "webhook-id": "msg_other" }],
      [
        "another timestamp than the one signed",
        { ...right, "webhook-timestamp": String(Number(right["webhook-timestamp"]) - 1) },
      ],
      ["no webhook-id", { ...right, "webhook-id": "" }],
      [
        "a version other than v1",
        { ...right, "webhook-signature": right["webhook-signature"]!.replace("v1,", "v1a,") },
      ],
      ["a signature cut short", { ...right, "webhook-signature": right["webhook-signature"]!.slice(0, -4) }],
      ["a timestamp that is not a number", standard(hook.secret, body, { timestamp: Number.NaN })],
      ["GitHub's with another secret", github(forged, body)],
      ["GitHub's sha1 header only", { "x-hub-signature": "sha1=0000000000000000000000000000000000000000" }],
      [
        "GitHub's with the decoded key instead of the string",
        {
          "x-hub-signature-256": `sha256=${createHmac("sha256", Buffer.from(hook.secret.slice(6), "base64"))
            .update(body)
            .digest("hex")}`,
        },
      ],
    ];
    for (const [what, headers] of cases) {
      const res = await deliver(hook.id, body, headers);
      expect({ what, status: res.status, body: res.body }).toEqual({
        what,
        status: 401,
        body: { error: "invalid signature" },
      });
    }
    expect(await runs(hook.id)).toEqual([]);
  });

  it("refuses a timestamp more than 5 minutes from now either way: 401 timestamp outside tolerance", async () => {
    const hook = await webhook({ channel: "general" });
    const body = '{"late":true}';
    const now = Math.floor(Date.now() / 1000);
    for (const timestamp of [now - 6 * 60, now + 6 * 60]) {
      const res = await deliver(hook.id, body, standard(hook.secret, body, { timestamp }));
      expect({ status: res.status, body: res.body }).toEqual({
        status: 401,
        body: { error: "timestamp outside tolerance" },
      });
    }
    const recent = await deliver(hook.id, body, standard(hook.secret, body, { timestamp: now - 4 * 60 }));
    expect(recent.status).toBe(202);
    expect((await runs(hook.id)).length).toBe(1);
  });

  it("the same delivery id again: 202 with the first run_id, one run and one message", async () => {
    const hook = await webhook({ channel: "general" });
    const body = '{"n":1}';
    const headers = standard(hook.secret, body, { id: "msg_once" });
    const first = await deliver(hook.id, body, headers);
    const again = await deliver(hook.id, body, headers);
    // Signed anew (a sender retrying), the same id is still the same delivery.
    const resent = await deliver(hook.id, body, standard(hook.secret, body, { id: "msg_once" }));
    expect([first.status, again.status, resent.status]).toEqual([202, 202, 202]);
    expect(again.body).toEqual(first.body);
    expect(resent.body).toEqual(first.body);
    const delivery = randomUUID();
    const push = await deliver(hook.id, body, github(hook.secret, body, "ping", delivery));
    const redelivered = await deliver(hook.id, body, github(hook.secret, body, "ping", delivery));
    expect(redelivered.body).toEqual(push.body);
    expect(push.body.run_id).not.toBe(first.body.run_id);
    expect((await runs(hook.id)).length).toBe(2);
    await finished(hook.id, first.body.run_id);
    await finished(hook.id, push.body.run_id);
    const posted = (await roomMessages()).filter((m) => m.automation_id === hook.id);
    expect(posted.length).toBe(2);
    // Another automation has its own ids.
    const other = await webhook({ channel: "general" });
    const elsewhere = await deliver(other.id, body, standard(other.secret, body, { id: "msg_once" }));
    expect(elsewhere.status).toBe(202);
    expect(elsewhere.body.run_id).not.toBe(first.body.run_id);
  });

  it("runs a delivery id again once 24 hours have passed", async () => {
    const hook = await webhook({ channel: "general" });
    const body = '{"n":2}';
    const first = await deliver(hook.id, body, standard(hook.secret, body, { id: "msg_daily" }));
    const db = openDataDirDatabase(server.dataDir);
    try {
      db.exec("PRAGMA busy_timeout = 5000");
      db.query("UPDATE webhook_deliveries SET created_at = created_at - ? WHERE delivery_id = 'msg_daily'").run(
        25 * 3600 * 1000,
      );
    } finally {
      db.close();
    }
    const later = await deliver(hook.id, body, standard(hook.secret, body, { id: "msg_daily" }));
    expect(later.status).toBe(202);
    expect(later.body.run_id).not.toBe(first.body.run_id);
    const again = await deliver(hook.id, body, standard(hook.secret, body, { id: "msg_daily" }));
    expect(again.body).toEqual(later.body);
  });

  it("refuses a body over 1 MiB: 413 request body too large, declared or streamed", async () => {
    const hook = await webhook({ channel: "general" });
    const body = JSON.stringify({ blob: "x".repeat(1024 * 1024) });
    const declared = await deliver(hook.id, body, standard(hook.secret, body));
    expect({ status: declared.status, body: declared.body }).toEqual({
      status: 413,
      body: { error: "request body too large" },
    });
    const bytes = new TextEncoder().encode(body);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 64 * 1024) controller.enqueue(bytes.subarray(at, at + 64 * 1024));
        controller.close();
      },
    });
    const streamed = await fetch(`${server.url}/api/v1/hooks/${hook.id}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...standard(hook.secret, body) },
      body: stream,
    });
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toEqual({ error: "request body too large" });
    expect(await runs(hook.id)).toEqual([]);
  });

  it("refuses a body that is not JSON: 400 invalid json", async () => {
    const hook = await webhook({ channel: "general" });
    for (const [body, type] of [
      ["deployed v1.2", "text/plain"],
      ["{not json", "application/json"],
      ["action=opened", "application/x-www-form-urlencoded"],
    ] as const) {
      const res = await deliver(hook.id, body, standard(hook.secret, body), type);
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: "invalid json" } });
    }
    expect(await runs(hook.id)).toEqual([]);
  });

  it("answers 404 automation not found for an unknown id, another kind or a malformed id, signed or not", async () => {
    const body = "{}";
    const scheduled = await member.api.post(automations(), { name: "Tick", kind: "scheduled", config: {} });
    for (const id of [randomUUID(), scheduled.body.automation.id, "not-a-uuid"]) {
      const res = await deliver(id, body, standard("whsec_c2lnbmVkIGFueXdheQ==", body));
      expect({ id, status: res.status, body: res.body }).toEqual({
        id,
        status: 404,
        body: { error: "automation not found" },
      });
    }
  });

  it("a signed delivery to an automation that cannot run: 409 not active, or 409 with its config problem", async () => {
    const body = '{"x":1}';
    for (const status of ["draft", "paused", "pending_approval"]) {
      const hook = await webhook({ channel: "general" }, status);
      const res = await deliver(hook.id, body, standard(hook.secret, body));
      expect({ status: res.status, body: res.body }).toEqual({
        status: 409,
        body: { error: "automation is not active" },
      });
      // Unsigned, it is refused for that first.
      expect((await deliver(hook.id, body, {})).status).toBe(401);
    }
    const lacking = await webhook({});
    const res = await deliver(lacking.id, body, standard(lacking.secret, body));
    expect({ status: res.status, body: res.body }).toEqual({
      status: 409,
      body: { error: "config.channel: required (or task)" },
    });
    expect(await runs(lacking.id)).toEqual([]);
  });

  it("a delivery taken before the automation was paused answers its run again, and runs nothing new", async () => {
    const hook = await webhook({ channel: "general" });
    const body = '{"x":2}';
    const headers = standard(hook.secret, body);
    const first = await deliver(hook.id, body, headers);
    await finished(hook.id, first.body.run_id);
    await member.api.patch(`${automations()}/${hook.id}`, { status: "paused" });
    const again = await deliver(hook.id, body, headers);
    expect({ status: again.status, body: again.body }).toEqual({ status: 202, body: first.body });
    // A new delivery is refused at once: pausing is not waited out.
    const fresh = await deliver(hook.id, body, standard(hook.secret, body));
    expect({ status: fresh.status, body: fresh.body }).toEqual({
      status: 409,
      body: { error: "automation is not active" },
    });
  });

  it("a webhook whose row went away behind the server's back (another process) answers 404, not 500", async () => {
    const hook = await webhook({ channel: "general" });
    const body = '{"x":3}';
    const first = await deliver(hook.id, body, standard(hook.secret, body));
    await finished(hook.id, first.body.run_id);
    const db = openDataDirDatabase(server.dataDir);
    try {
      db.exec("PRAGMA busy_timeout = 5000");
      db.exec("PRAGMA foreign_keys = ON");
      db.query("DELETE FROM automations WHERE id = ?").run(hook.id);
    } finally {
      db.close();
    }
    // Remembered as it was a moment ago, it is found gone when the delivery is stored.
    const res = await deliver(hook.id, body, standard(hook.secret, body));
    expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: { error: "automation not found" } });
  });

  it("a new secret: the old one is refused at once, the new one is taken", async () => {
    const hook = await webhook({ channel: "general" });
    const before = '{"before":"rotation"}';
    expect((await deliver(hook.id, before, standard(hook.secret, before))).status).toBe(202);
    const rotated = await member.api.post(`${automations()}/${hook.id}/webhook-secret`);
    expect(rotated.status).toBe(200);
    const secret = rotated.body.webhook_secret as string;
    sensitive.add(secret);
    expect(secret).not.toBe(hook.secret);
    const body = '{"after":"rotation"}';
    expect((await deliver(hook.id, body, standard(secret, body))).status).toBe(202);
    const old = await deliver(hook.id, body, standard(hook.secret, body));
    expect({ status: old.status, body: old.body }).toEqual({ status: 401, body: { error: "invalid signature" } });
    expect((await deliver(hook.id, body, github(hook.secret, body))).status).toBe(401);
    expect((await deliver(hook.id, body, github(secret, body))).status).toBe(202);
    // Rotated again while a delivery signed with the secret before is on its way: refused.
    sensitive.add((await member.api.post(`${automations()}/${hook.id}/webhook-secret`)).body.webhook_secret);
    expect((await deliver(hook.id, body, standard(secret, body))).status).toBe(401);
  });

  it("bounds a flood: beyond 100 queued runs, 429 with Retry-After, nothing stored; taken again once they drain", async () => {
    // The one run worker waits on a social post whose answer is held: every run queued behind it waits.
    const held = Promise.withResolvers<void>();
    social.handle(async () => {
      await held.promise;
      return Response.json({ data: { id: "1" } });
    });
    const post = await member.api.post(automations(), {
      name: "Blocker",
      kind: "social_post",
      status: "active",
      oauth_token: "token",
      config: { endpoint: `${social.origin}/2/tweets` },
    });
    await member.api.post(`${automations()}/${post.body.automation.id}/run`, { text: "wait" });
    for (let i = 0; i < 200 && social.requests.length === 0; i++) await Bun.sleep(10);
    expect(social.requests.length).toBe(1);

    const hook = await webhook({ channel: "general" });
    const send = (n: number) => {
      const body = JSON.stringify({ n });
      return deliver(hook.id, body, standard(hook.secret, body, { id: `msg_flood_${n}` }));
    };
    const taken = await Promise.all(Array.from({ length: 100 }, (_, n) => send(n)));
    expect(taken.map((r) => r.status)).toEqual(Array(100).fill(202));
    const refused = await send(100);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("10");
    expect(refused.body).toEqual({
      error: "too many runs waiting: at most 100 queued per automation; try again later",
    });
    // A delivery already taken is still answered with its run.
    expect((await send(5)).body).toEqual(taken[5]?.body);
    const listed = (await member.api.get(`${automations()}/${hook.id}/runs?limit=200`)).body.runs;
    expect(listed.length).toBe(100);
    expect(listed.every((r: { status: string }) => r.status === "queued")).toBe(true);

    held.resolve();
    for (let i = 0; i < 400; i++) {
      if ((await runs(hook.id)).every((r) => r.status === "succeeded")) break;
      await Bun.sleep(50);
    }
    const retried = await send(100);
    expect(retried.status).toBe(202);
    expect((await finished(hook.id, retried.body.run_id)).status).toBe("succeeded");
  });

  it("never logs a secret or a signature", () => {
    expect(sensitive.size).toBeGreaterThan(20);
    const log = server.logs.join("\n");
    expect(log).toContain("/api/v1/hooks/");
    for (const value of sensitive) expect(log.includes(value)).toBe(false);
  });
});

describe("webhook deliveries across a restart", () => {
  it("are still known after a restart; those older than 24 hours are forgotten by the server's maintenance", async () => {
    const dataDir = tempDir();
    let first: TestServer | undefined = await startTestServer({ dataDir });
    let second: TestServer | undefined;
    try {
      const acme = await setupOrg(first);
      const space = (await acme.owner.api.post(`/api/v1/organizations/${acme.id}/spaces`, { name: "Ops" })).body.id;
      const created = await acme.owner.api.post(`/api/v1/organizations/${acme.id}/spaces/${space}/automations`, {
        name: "Deploys",
        kind: "webhook",
        status: "active",
        config: { channel: "general" },
      });
      const id = created.body.automation.id as string;
      const secret = created.body.webhook_secret as string;
      const send = (target: TestServer, delivery: string) => {
        const body = JSON.stringify({ delivery });
        return request(target.url, "POST", `/api/v1/hooks/${id}`, {
          raw: body,
          contentType: "application/json",
          headers: standard(secret, body, { id: delivery }),
        });
      };
      const kept = await send(first, "msg_recent");
      expect(kept.status).toBe(202);
      expect((await send(first, "msg_yesterday")).status).toBe(202);
      await first.stop();
      first = undefined;

      const db = openDataDirDatabase(dataDir);
      const left = () =>
        db.query("SELECT delivery_id FROM webhook_deliveries ORDER BY delivery_id").all() as { delivery_id: string }[];
      try {
        db.exec("PRAGMA busy_timeout = 5000");
        db.query("UPDATE webhook_deliveries SET created_at = created_at - ? WHERE delivery_id = 'msg_yesterday'").run(
          24 * 3600 * 1000 + 1000,
        );
        // The first round of maintenance runs a second after the server starts.
        second = await startTestServer({ dataDir });
        for (let i = 0; i < 100 && left().length > 1; i++) await Bun.sleep(50);
        expect(left()).toEqual([{ delivery_id: "msg_recent" }]);
      } finally {
        db.close();
      }
      const again = await send(second, "msg_recent");
      expect({ status: again.status, body: again.body }).toEqual({ status: 202, body: kept.body });
    } finally {
      await first?.stop();
      await second?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
