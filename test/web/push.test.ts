/**
 * Web Push in Chromium against the compiled binary (contract §10). What runs for real here: enabling desktop
 * notifications registers the service worker `/sw.js` for the whole app, asks for the server's key and tries
 * `pushManager.subscribe`; the profile says how that went; the built worker, handed the very payload the server
 * pushed for an item (taken from a loopback push service and decrypted), shows it once, tagged with the item's
 * id, and not while a Tandem window is focused; a window opened by a notification's click (`?inbox_item=`)
 * marks its item read.
 *
 * What does not: headless Chromium has no push service (Chrome's is Google's FCM), and its
 * `pushManager.subscribe` refuses ("Registration failed - permission denied"), so a browser-made subscription
 * never reaches `POST /me/push-subscriptions` here, nor its DELETE at sign-out or "Turn off"; the test takes the
 * subscribed path only where the browser can subscribe. The click itself (`notificationclick`) cannot be
 * dispatched from outside the browser: its handler is tested as a module (service-worker.test.ts).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "bun:test";
import type { Browser, BrowserContext, CDPSession, Page } from "playwright-core";
import { launchBrowser, signedInPage, startWorkspace } from "../helpers/browser";
import { addMember, type Org, type Person, readEverything } from "../helpers/factories";
import { browserSubscription, type FakePushService, startFakePushService } from "../helpers/push-service";
import type { TestServer } from "../helpers/server";

let browser: Browser;
let server: TestServer;
let org: Org;
let ben: Person;
let spaceId: string;
let generalId: string;
let service: FakePushService;
const contexts: BrowserContext[] = [];

const spacePath = () => `/api/v1/organizations/${org.id}/spaces/${spaceId}`;

async function say(content: string): Promise<{ id: string }> {
  const res = await org.owner.api.post(`${spacePath()}/chat-rooms/${generalId}/messages`, { content });
  if (res.status !== 201) throw new Error(`post failed: ${res.status} ${res.text}`);
  return res.body.message;
}

/** Ben's signed-in page at `path`, in a new browser context; notifications allowed for the origin with `allow`. */
async function benAt(path: string, allow = false): Promise<Page> {
  const { context, page } = await signedInPage(browser, server, ben, path, {
    setup: async (p) => {
      if (allow) await p.context().grantPermissions(["notifications"], { origin: server.url });
    },
  });
  contexts.push(context);
  return page;
}

const live = (page: Page) => page.getByRole("img", { name: "Live updates: live" }).first().waitFor();

/** The service worker's registration as the page sees it. */
function registrationOf(page: Page) {
  return page.evaluate(async () => {
    const registration = await navigator.serviceWorker.getRegistration("/");
    return registration
      ? { scope: registration.scope, script: registration.active?.scriptURL ?? null }
      : { scope: null, script: null };
  });
}

/** The notifications the worker is showing. */
function notificationsOf(page: Page) {
  return page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    return (await registration.getNotifications()).map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      data: n.data as unknown,
    }));
  });
}

/** Polls an asynchronous `check` until it holds (the page's `waitForFunction` does not await a promise). */
async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/** Waits until the page's service worker is active. */
function workerActive(page: Page): Promise<void> {
  return eventually(async () => (await registrationOf(page)).script !== null, "an active service worker");
}

/** The id Chromium gave the page's service worker registration, for the DevTools protocol. */
async function registrationId(cdp: CDPSession): Promise<string> {
  const found = new Promise<string>((resolve) => {
    cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations }) => {
      const live = registrations.find((r) => !r.isDeleted && r.scopeURL === `${server.url}/`);
      if (live) resolve(live.registrationId);
    });
  });
  await cdp.send("ServiceWorker.enable");
  return found;
}

/** The payload the server pushes for the next item of Ben's, decrypted as his browser would. */
async function nextPushedPayload(make: () => Promise<unknown>): Promise<string> {
  const path = `/ben-${crypto.randomUUID()}`;
  const stand = browserSubscription(service.origin + path);
  const subscriptions = `/api/v1/me/push-subscriptions?org_id=${org.id}`;
  expect((await ben.api.post(subscriptions, stand.json)).status).toBe(201);
  try {
    await make();
    const until = Date.now() + 5000;
    while (service.to(path).length === 0 && Date.now() < until) await Bun.sleep(20);
    const [push] = service.to(path);
    if (!push) throw new Error("nothing was pushed");
    return stand.decrypt(push.body);
  } finally {
    expect((await ben.api.delete(subscriptions, { body: { endpoint: stand.json.endpoint } })).status).toBe(204);
  }
}

beforeAll(async () => {
  let ws: { server: TestServer; org: Org };
  [browser, ws] = await Promise.all([launchBrowser(), startWorkspace()]);
  server = ws.server;
  org = ws.org;
  service = startFakePushService();
  ben = await addMember(org, ["Member"], "Ben Member");
  const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Launch" });
  spaceId = space.body.id;
  generalId = (await org.owner.api.get(`${spacePath()}/chat-rooms`)).body.chat_rooms[0].id;
});

afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close().catch(() => {});
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  service?.stop();
});

describe("enabling desktop notifications", () => {
  it("registers the service worker for the whole app and subscribes with the server's key where the browser can", async () => {
    const { context, page } = await signedInPage(browser, server, ben, "/inbox", {
      // Headless Chromium shows no permission prompt (it answers "denied"): the prompt's answer is given here,
      // granting the real permission the moment the page asks, as a person clicking "Allow" would.
      setup: async (p) => {
        await p.exposeFunction("__allowNotifications", () =>
          p.context().grantPermissions(["notifications"], { origin: server.url }),
        );
        await p.addInitScript(() => {
          const real = Object.getOwnPropertyDescriptor(Notification, "permission")?.get as () => NotificationPermission;
          // Once allowed, the browser's own answer (a page opened again finds it allowed).
          let asked = real.call(Notification) === "granted";
          Object.defineProperty(Notification, "permission", {
            configurable: true,
            get: () => (asked ? real.call(Notification) : "default"),
          });
          Notification.requestPermission = async () => {
            await (window as unknown as { __allowNotifications(): Promise<void> }).__allowNotifications();
            asked = true;
            return real.call(Notification);
          };
        });
      },
    });
    contexts.push(context);
    const requests: string[] = [];
    page.on("request", (r) => {
      const url = new URL(r.url());
      if (url.pathname.includes("push")) requests.push(`${r.method()} ${url.pathname}`);
    });
    const posted = page
      .waitForResponse((r) => r.url().includes("/me/push-subscriptions") && r.request().method() === "POST", {
        timeout: 10_000,
      })
      .catch(() => null);
    await live(page);
    expect(await registrationOf(page)).toEqual({ scope: null, script: null });
    await page.getByRole("button", { name: "Enable desktop notifications" }).click();
    await page.getByRole("button", { name: "Enable desktop notifications" }).waitFor({ state: "detached" });

    await workerActive(page);
    expect(await registrationOf(page)).toEqual({ scope: `${server.url}/`, script: `${server.url}/sw.js` });
    expect(requests).toContain("GET /api/v1/public/push-key");

    await page.getByRole("navigation", { name: "Workspace" }).getByRole("link", { name: "Ben Member" }).click();
    await page.getByRole("heading", { name: "Profile" }).waitFor();
    await page
      .getByText(/when Tandem is (open|closed)/)
      .first()
      .waitFor();
    const subscribed = await page.evaluate(async () =>
      Boolean(await (await navigator.serviceWorker.ready).pushManager.getSubscription()),
    );
    if (subscribed) {
      // A browser with a push service: the server has the subscription, and the profile turns it off.
      expect((await posted)?.status()).toBe(201);
      await page.getByText("This browser gets notifications when Tandem is closed.").waitFor();
      const deleted = page.waitForResponse(
        (r) => r.url().includes("/me/push-subscriptions") && r.request().method() === "DELETE",
      );
      await page.getByRole("button", { name: "Turn off" }).click();
      expect((await deleted).status()).toBe(204);
      await page.getByText("This browser shows notifications only while Tandem is open.").waitFor();
      return;
    }
    // Headless Chromium: the browser refuses to subscribe; the profile says why, and nothing reached the server.
    const failed = page.getByText(/^Notifications when Tandem is closed could not be turned on in this browser: /);
    await failed.waitFor();
    expect(await failed.textContent()).toContain("Registration failed");
    expect(requests.some((r) => r.startsWith("POST /api/v1/me/push-subscriptions"))).toBe(false);

    // Opened again, allowed and not subscribed: the worker is there, and the profile offers to try again.
    await page.reload();
    await page.getByText("This browser shows notifications only while Tandem is open.").waitFor();
    await page.getByRole("button", { name: "Also when Tandem is closed" }).click();
    await failed.waitFor();
    expect(requests.filter((r) => r === "GET /api/v1/public/push-key").length).toBe(2);
    expect(requests.some((r) => r.startsWith("POST /api/v1/me/push-subscriptions"))).toBe(false);
  });
});

describe("the service worker", () => {
  it("shows the item the server pushed once, tagged with its id, unless a Tandem window is focused", async () => {
    await readEverything(org, ben);
    const page = await benAt("/inbox", true);
    await live(page);
    await workerActive(page);
    const cdp = await page.context().newCDPSession(page);
    const id = await registrationId(cdp);

    const payload = await nextPushedPayload(() => say("@Ben Member is the deck ready?"));
    const pushed = JSON.parse(payload);
    expect(pushed.type).toBe("inbox.item");
    const deliver = () =>
      cdp.send("ServiceWorker.deliverPushMessage", { origin: server.url, registrationId: id, data: payload });

    // Tandem focused and visible: the page shows the item itself, the worker shows nothing.
    await deliver();
    await Bun.sleep(300);
    expect(await notificationsOf(page)).toEqual([]);

    // Another window in front: shown, with the server's title and the item's summary, for the item's place.
    // Headless Chromium tells the worker that the Tandem window lost focus a moment after another comes to the
    // front: the push is delivered again until it is shown (the same item replaces itself, so at most one).
    const elsewhere = await page.context().newPage();
    await elsewhere.bringToFront();
    await eventually(async () => {
      await deliver();
      return (await notificationsOf(page)).length > 0;
    }, "a notification");
    const shown = await notificationsOf(page);
    expect(shown).toEqual([
      {
        title: "Olivia Owner mentioned you in Launch",
        body: "@Ben Member is the deck ready?",
        tag: pushed.item.id,
        data: { path: `/spaces/${spaceId}/chat/${generalId}`, organization_id: org.id, item: pushed.item },
      },
    ]);
    // The same item pushed again (another tab's worth, a retry) replaces it: still one.
    await deliver();
    await Bun.sleep(300);
    expect((await notificationsOf(page)).length).toBe(1);
  });

  it("answers at /sw.js from the binary as JavaScript that revalidates, with no fetch handler", async () => {
    const res = await fetch(`${server.url}/sw.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    const text = await res.text();
    expect(text).toContain('"push"');
    expect(text).toContain('"notificationclick"');
    // Every request keeps going to the network: nothing is cached or answered by the worker.
    expect(text).not.toContain('"fetch"');
  });
});

describe("a window a notification opened", () => {
  it("marks the item it was opened for read, and takes it out of the address", async () => {
    await readEverything(org, ben);
    const board = await org.owner.api.get(`${spacePath()}/board`);
    const task = await org.owner.api.post(`${spacePath()}/tasks`, {
      title: "Check the venue",
      column_id: board.body.columns[0].id,
      assignee_user_id: ben.id,
    });
    expect(task.status).toBe(201);
    const inbox = await ben.api.get(`/api/v1/me/inbox?org_id=${org.id}&unread_only=true`);
    const item = inbox.body.items[0];
    expect(item.task_id).toBe(task.body.id);

    const page = await benAt(`/spaces/${spaceId}/board?task=${task.body.id}&inbox_item=${item.id}`);
    await page.waitForURL(new RegExp(`/spaces/${spaceId}/board\\?task=${task.body.id}$`));
    await page
      .getByRole("navigation", { name: "Workspace" })
      .getByRole("link", { name: "Inbox", exact: true })
      .waitFor();
    const after = await ben.api.get(`/api/v1/me/inbox?org_id=${org.id}`);
    expect(after.body.unread).toBe(0);
    expect(after.body.items.find((i: { id: string }) => i.id === item.id).read_at).not.toBeNull();
  });
});
