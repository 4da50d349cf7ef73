/**
 * A provider's `Retry-After` is waited out to the second, not until the job runner next looks at its queue: a
 * social post answered 429 `Retry-After: 2` is sent again 2 s later (the runner wakes for the job's own time). A
 * real server at real pace; the social network is a loopback fake.
 */
import { afterAll, beforeAll, expect, it } from "bun:test";
import { type Org, setupOrg } from "../helpers/factories";
import { type FakeProvider, startFakeProvider } from "../helpers/fake-providers";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let org: Org;
let social: FakeProvider;

beforeAll(async () => {
  social = startFakeProvider();
  server = await startTestServer();
  org = await setupOrg(server);
});
afterAll(async () => {
  await server.stop();
  social.stop();
});

it("sends a post again when the network's Retry-After says, not a poll later", async () => {
  const at: number[] = [];
  social.handle(() => {
    at.push(performance.now());
    if (at.length === 1) return new Response("slow down", { status: 429, headers: { "retry-after": "2" } });
    return Response.json({ data: { id: "9" } });
  });
  const space = (await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Pace" })).body.id;
  const automations = `/api/v1/organizations/${org.id}/spaces/${space}/automations`;
  const created = await org.owner.api.post(automations, {
    name: "Weekly",
    kind: "social_post",
    status: "active",
    oauth_token: "oauth-token",
    config: { endpoint: `${social.origin}/2/tweets`, text: "Hello" },
  });
  expect(created.status).toBe(201);
  const id = created.body.automation.id;
  expect((await org.owner.api.post(`${automations}/${id}/run`)).status).toBe(202);
  const until = Date.now() + 10_000;
  while (at.length < 2 && Date.now() < until) await Bun.sleep(20);
  expect(at.length).toBe(2);
  const gap = ((at[1] as number) - (at[0] as number)) / 1000;
  expect(gap).toBeGreaterThanOrEqual(1.95);
  expect(gap).toBeLessThan(2.4);
});
