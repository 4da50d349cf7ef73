/**
 * Servers whose `modelrouter` staff answer through a loopback fake gateway: from source with the organization's
 * key, a space `Launch` and its `general` room, and the owner's live-events listener (`gatewayWorld`); or the
 * compiled binary with a browser (`browserGatewayWorld`).
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchBrowser, signedInPage, startWorkspace } from "./browser";
import { type Org, OWNER, setupOrg } from "./factories";
import { completion, type FakeHandler, type FakeProvider, startFakeProvider } from "./fake-providers";
import { startTestServer, type TestServer } from "./server";
import { type Listener, listen } from "./sockets";

export interface GatewayWorld {
  server: TestServer;
  fake: FakeProvider;
  org: Org;
  spaceId: string;
  roomId: string;
  /** `/api/v1/organizations/{orgId}/spaces/{spaceId}` */
  spacePath: string;
  listener: Listener;
  stop(): Promise<void>;
}

export async function gatewayWorld(handler: FakeHandler = () => completion("ok")): Promise<GatewayWorld> {
  const fake = startFakeProvider(handler);
  const server = await startTestServer({
    env: { MODELROUTER_API_BASE_URL: `${fake.origin}/api/v1` },
    jobs: { reply: { timeScale: 0.001 } },
  });
  const org = await setupOrg(server);
  const key = await org.owner.api.put(`/api/v1/organizations/${org.id}/integrations/modelrouter`, {
    api_key: "sk-test-key-1234",
  });
  if (key.status !== 200) throw new Error(`key not set: ${key.status} ${key.text}`);
  const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Launch" });
  if (space.status !== 201) throw new Error(`space create failed: ${space.status} ${space.text}`);
  const spacePath = `/api/v1/organizations/${org.id}/spaces/${space.body.id}`;
  const roomId = (await org.owner.api.get(`${spacePath}/chat-rooms`)).body.chat_rooms[0].id as string;
  const listener = await listen(server.url, org.id, org.owner.token);
  return {
    server,
    fake,
    org,
    spaceId: space.body.id,
    roomId,
    spacePath,
    listener,
    async stop() {
      listener.close();
      await server.stop();
      fake.stop();
    },
  };
}

/** The compiled binary with a fake gateway and Chromium: pages opened signed in, closed after each test. */
export interface BrowserGatewayWorld {
  browser: Browser;
  server: TestServer;
  org: Org;
  fake: FakeProvider;
  /** A new signed-in page of the owner at `path`. */
  open(path: string): Promise<Page>;
  /** Closes the pages opened so far: a page left open goes on receiving every later test's events. */
  closePages(): Promise<void>;
  stop(): Promise<void>;
}

/** `dist/tandem` whose `modelrouter` staff answer through a loopback fake gateway, and a browser. */
export async function browserGatewayWorld(handler: FakeHandler = () => completion("ok")): Promise<BrowserGatewayWorld> {
  const fake = startFakeProvider(handler);
  const [browser, { server, org }] = await Promise.all([
    launchBrowser(),
    startWorkspace({ MODELROUTER_API_BASE_URL: `${fake.origin}/api/v1` }),
  ]);
  const contexts: BrowserContext[] = [];
  return {
    browser,
    server,
    org,
    fake,
    async open(path) {
      const { context, page } = await signedInPage(browser, server, OWNER, path);
      contexts.push(context);
      return page;
    },
    async closePages() {
      for (const context of contexts.splice(0)) await context.close().catch(() => {});
    },
    async stop() {
      await browser.close();
      await server.stop();
      fake.stop();
    },
  };
}
