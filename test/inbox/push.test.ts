/**
 * Web Push (contract §10): `GET /public/push-key`, `POST|DELETE /me/push-subscriptions`, and inbox items pushed
 * per the `desktop` setting, against a loopback stand-in for a push service. Each push's VAPID JWT is verified
 * with the server's public key, and its payload decrypted with the subscription's private key (RFC 8291).
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { addMember, type Person } from "../helpers/factories";
import { client, TIMESTAMP } from "../helpers/http";
import { ON_POSTGRES } from "../helpers/postgres";
import {
  type BrowserSubscription,
  browserSubscription,
  type FakePushService,
  startFakePushService,
  verifiedVapid,
} from "../helpers/push-service";
import { startTestServer } from "../helpers/server";
import { inbox, say, spacePath, startWorld, type World } from "./world";

let w: World;
let service: FakePushService;
beforeAll(async () => {
  w = await startWorld();
  service = startFakePushService();
});
afterAll(async () => {
  await w.server.stop();
  service.stop();
});

const subscriptions = () => `/api/v1/me/push-subscriptions?org_id=${w.org.id}`;

/** A browser of `who`, subscribed to a path of the stand-in. */
async function subscribe(who: Person, path: string): Promise<BrowserSubscription> {
  const browser = browserSubscription(service.origin + path);
  const res = await who.api.post(subscriptions(), browser.json);
  expect(res.status).toBe(201);
  return browser;
}

/** Waits until `path` has received `count` pushes; then the pushes. */
async function pushesTo(path: string, count: number, timeoutMs = 5000) {
  const until = Date.now() + timeoutMs;
  while (service.to(path).length < count && Date.now() < until) await Bun.sleep(20);
  return service.to(path);
}

async function newTask(title: string, assignee: string) {
  const board = await w.owner.api.get(`${spacePath(w)}/board`);
  const res = await w.owner.api.post(`${spacePath(w)}/tasks`, {
    title,
    column_id: board.body.columns[0].id,
    assignee_user_id: assignee,
  });
  expect(res.status).toBe(201);
  return res.body;
}

describe("GET /api/v1/public/push-key", () => {
  it("answers the VAPID public key: base64url of an uncompressed P-256 point, the same after a restart", async () => {
    const dataDir = join(w.server.dataDir, "..", `push-key-${crypto.randomUUID()}`);
    const first = await startTestServer({ dataDir });
    const res = await client(first.url).get("/api/v1/public/push-key");
    await first.stop();
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["public_key"]);
    const point = Buffer.from(res.body.public_key, "base64url");
    expect(res.body.public_key).toMatch(/^[A-Za-z0-9_-]{87}$/);
    expect(point.length).toBe(65);
    expect(point[0]).toBe(4);
    // On SQLite the key is a file of the data dir; on PostgreSQL the database's, the same for every node.
    if (!ON_POSTGRES) expect(statSync(join(dataDir, "vapid_private_key")).mode & 0o777).toBe(0o600);
    const again = await startTestServer({ dataDir });
    const later = await client(again.url).get("/api/v1/public/push-key");
    await again.stop();
    expect(later.body.public_key).toBe(res.body.public_key);
  });
});

describe("POST /api/v1/me/push-subscriptions", () => {
  it("answers 201 with the subscription, never its keys", async () => {
    const browser = browserSubscription(`${service.origin}/shape`);
    const res = await w.ada.api.post(subscriptions(), { ...browser.json, expirationTime: 1_900_000_000_000 });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(["subscription"]);
    expect(Object.keys(res.body.subscription).sort()).toEqual(["created_at", "endpoint", "expiration_time"]);
    expect(res.body.subscription.endpoint).toBe(`${service.origin}/shape`);
    expect(res.body.subscription.expiration_time).toBe(new Date(1_900_000_000_000).toISOString());
    expect(res.body.subscription.created_at).toMatch(TIMESTAMP);
    expect(res.text).not.toContain(browser.json.keys.auth);
    await w.ada.api.delete(subscriptions(), { body: { endpoint: `${service.origin}/shape` } });
  });

  it("answers 400 naming the field for an endpoint that is not https (plain http only to loopback) or bad keys", async () => {
    const good = browserSubscription("https://push.example.test/x").json;
    const bad = async (body: unknown) => {
      const res = await w.ada.api.post(subscriptions(), body);
      expect(res.status).toBe(400);
      return res.body.error;
    };
    expect(await bad({ ...good, endpoint: "http://push.example.test/x" })).toBe("endpoint: must be an https URL");
    expect(await bad({ ...good, endpoint: "ftp://127.0.0.1/x" })).toBe("endpoint: must be an https URL");
    expect(await bad({ ...good, endpoint: "not a url" })).toBe("endpoint: must be an https URL");
    expect(await bad({ ...good, endpoint: "https://user:pw@push.example.test/x" })).toBe(
      "endpoint: must be an https URL",
    );
    const offCurve = Buffer.alloc(65, 7);
    offCurve[0] = 4;
    expect(await bad({ ...good, keys: { ...good.keys, p256dh: offCurve.toString("base64url") } })).toBe(
      "keys.p256dh: must be a P-256 public key (base64url)",
    );
    expect(await bad({ ...good, keys: { ...good.keys, auth: "c2hvcnQ" } })).toBe(
      "keys.auth: must be 16 bytes (base64url)",
    );
    expect(await bad({ endpoint: good.endpoint })).toBe("keys: required");
  });

  it("takes the install's organization without org_id (the browser's JSON as it is), and 404 for one the caller is not in", async () => {
    const body = browserSubscription("https://push.example.test/y").json;
    const plain = await w.ada.api.post("/api/v1/me/push-subscriptions", body);
    expect(plain.status).toBe(201);
    expect(plain.body.subscription.endpoint).toBe(body.endpoint);
    expect((await w.ada.api.delete("/api/v1/me/push-subscriptions", { body })).status).toBe(204);
    const other = await w.ada.api.post(`/api/v1/me/push-subscriptions?org_id=${crypto.randomUUID()}`, body);
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ error: "organization not found" });
  });
});

describe("pushes of inbox items", () => {
  it("a mention reaches the person's browser: VAPID-signed for the push service, the item encrypted to the browser", async () => {
    const browser = await subscribe(w.bob, "/bob");
    const message = await say(w, w.ada, "@Bob Builder the launch <checklist> is ready");
    const [push] = await pushesTo("/bob", 1);
    if (!push) throw new Error("no push arrived");
    expect(push.headers["content-encoding"]).toBe("aes128gcm");
    expect(push.headers.ttl).toBe(String(12 * 3600));
    const key = (await client(w.server.url).get("/api/v1/public/push-key")).body.public_key;
    const { claims, key: signedWith } = verifiedVapid(push.headers.authorization ?? "");
    expect(signedWith).toBe(key);
    expect(claims.aud).toBe(service.origin);
    expect(claims.sub).toBe("mailto:tandem@127.0.0.1");
    expect(claims.exp as number).toBeGreaterThan(Date.now() / 1000);
    const payload = JSON.parse(browser.decrypt(push.body));
    const item = (await inbox(w, w.bob)).items.find((i) => i.message_id === message.id);
    expect(payload.type).toBe("inbox.item");
    expect(payload.organization_id).toBe(w.org.id);
    expect(payload.title).toBe("Ada Lovelace mentioned you in Launch");
    expect(payload.body).toBe("@Bob Builder the launch <checklist> is ready");
    expect(payload.url).toBe(`${w.server.url}/spaces/${w.spaceId}/chat/${w.roomId}`);
    expect(payload.item).toEqual(item);
  });

  it("follows `desktop`: `mentions` pushes mentions but not assignments, `none` pushes nothing", async () => {
    const carl = await addMember(w.org, ["Member"], "Carl Desktop");
    await subscribe(carl, "/carl");
    const settings = `/api/v1/me/notifications?org_id=${w.org.id}`;
    expect((await carl.api.put(settings, { desktop: "mentions" })).status).toBe(200);
    await newTask("Carl's task", carl.id);
    await say(w, w.ada, "@Carl Desktop look");
    const [first, second] = await pushesTo("/carl", 2, 1000);
    expect(second).toBeUndefined();
    expect(first?.body.length).toBeGreaterThan(0);
    expect((await carl.api.put(settings, { desktop: "none" })).status).toBe(200);
    await say(w, w.ada, "@Carl Desktop again");
    await newTask("Carl's other task", carl.id);
    await Bun.sleep(300);
    expect(service.to("/carl")).toHaveLength(1);
  });

  it("a subscription the push service says is gone (410) is removed: the next item is not pushed there", async () => {
    const dana = await addMember(w.org, ["Member"], "Dana Gone");
    service.answer("/gone", 410);
    await subscribe(dana, "/gone");
    await say(w, w.ada, "@Dana Gone one");
    await pushesTo("/gone", 1);
    await Bun.sleep(100);
    await say(w, w.ada, "@Dana Gone two");
    await Bun.sleep(300);
    expect(service.to("/gone")).toHaveLength(1);
  });

  it("DELETE removes the caller's subscription (204), and a push no longer goes there", async () => {
    const eve = await addMember(w.org, ["Member"], "Eve Leaves");
    await subscribe(eve, "/eve");
    // Another person cannot remove it.
    const other = await w.bob.api.delete(subscriptions(), { body: { endpoint: `${service.origin}/eve` } });
    expect(other.status).toBe(204);
    await say(w, w.ada, "@Eve Leaves first");
    await pushesTo("/eve", 1);
    const res = await eve.api.delete(subscriptions(), { body: { endpoint: `${service.origin}/eve` } });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    await say(w, w.ada, "@Eve Leaves second");
    await Bun.sleep(300);
    expect(service.to("/eve")).toHaveLength(1);
  });

  it("a slow push service does not slow the chat post", async () => {
    const finn = await addMember(w.org, ["Member"], "Finn Slow");
    service.answer("/slow", 201, 3000);
    await subscribe(finn, "/slow");
    const started = performance.now();
    await say(w, w.ada, "@Finn Slow hello");
    expect(performance.now() - started).toBeLessThan(1000);
    await pushesTo("/slow", 1);
  });

  it("nothing of a private space is pushed to someone who is not in it", async () => {
    await subscribe(w.bob, "/bob-private");
    await say(w, w.owner, "@Bob Builder secret plans", w.privateRoomId, w.privateId);
    await say(w, w.owner, "@Bob Builder public note");
    const pushes = await pushesTo("/bob-private", 1);
    await Bun.sleep(300);
    expect(service.to("/bob-private")).toHaveLength(1);
    expect(pushes[0]?.body.toString()).not.toContain("secret");
  });
});
