/**
 * A reply job yields exactly one reply across a `kill -9` of dist/tandem in the middle of it, and a restarted
 * cloud-agent job goes on polling the run it launched instead of launching another.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { rmSync } from "node:fs";
import { completion, startFakeProvider } from "../helpers/fake-providers";
import type { client } from "../helpers/http";
import { binaryInstall, type SpawnedServer } from "../helpers/server";
import { eventually } from "../helpers/sockets";

const dirs: string[] = [];
const spawned: SpawnedServer[] = [];
const fakes: { stop(): void }[] = [];
afterAll(async () => {
  for (const s of spawned) if (s.proc.exitCode === null) await s.stop("SIGKILL");
  for (const f of fakes) f.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A set-up data dir, a signed-in owner, a space, its general room and a staff member with a key. */
async function prepare(env: Record<string, string>, staff: Record<string, unknown>, provider: string) {
  const { orgId, start } = await binaryInstall("tandem-replies-", { dirs, spawned }, env);
  const first = await start();
  const base = `/api/v1/organizations/${orgId}`;
  expect((await first.api.put(`${base}/integrations/${provider}`, { api_key: "key-1234" })).status).toBe(200);
  const account = (await first.api.post(`${base}/service-accounts`, { name: "Ada", ...staff })).body.service_account;
  const space = (await first.api.post(`${base}/spaces`, { name: "S" })).body;
  const room = (await first.api.get(`${base}/spaces/${space.id}/chat-rooms`)).body.chat_rooms[0].id;
  const messages = `${base}/spaces/${space.id}/chat-rooms/${room}/messages`;
  return { start, first, messages, staffUserId: account.user_id as string };
}

const byStaff = async (api: ReturnType<typeof client>, messages: string, staffUserId: string) =>
  ((await api.get(messages)).body.messages as { author_user_id: string; content: string }[]).filter(
    (m) => m.author_user_id === staffUserId,
  );

describe("a kill -9 in the middle of a reply", () => {
  it("gives exactly one reply once the server is back", async () => {
    const hold = Promise.withResolvers<void>();
    const fake = startFakeProvider(async (_req, nth) => {
      // The first call never gets its answer: the process is killed while waiting for it.
      if (nth === 1) await hold.promise;
      return completion("The answer, once");
    });
    fakes.push(fake);
    const env = { MODELROUTER_API_BASE_URL: `${fake.origin}/api/v1` };
    const { start, first, messages, staffUserId } = await prepare(env, {}, "modelrouter");
    expect((await first.api.post(messages, { content: "@Ada are you there?" })).status).toBe(201);
    await eventually(() => fake.requests.length === 1, "the gateway to be called");
    first.server.proc.kill("SIGKILL");
    await first.server.proc.exited;
    hold.resolve();

    const second = await start();
    await eventually(() => fake.requests.length >= 2, "the job to be resumed", 10_000);
    let replies: { content: string }[] = [];
    for (let i = 0; i < 100 && replies.length === 0; i++) {
      replies = await byStaff(second.api, messages, staffUserId);
      if (replies.length === 0) await Bun.sleep(50);
    }
    // Time for a second reply to appear, were there one.
    await Bun.sleep(300);
    replies = await byStaff(second.api, messages, staffUserId);
    expect(replies.map((m) => m.content)).toEqual(["The answer, once"]);
    expect(fake.requests.length).toBe(2);
    await second.server.stop();
  }, 60_000);
});

describe("a kill -9 between a tool that proposes and the answer", () => {
  it("resumes the tool loop: one proposal, the first question not asked again, both rounds in the activity", async () => {
    const fake = startFakeProvider(async (_req, nth) => {
      if (nth === 1) {
        return completion(null, [
          { name: "propose_file_patch", arguments: { path: "notes.md", proposed_content: "v2", note: "once" } },
        ]);
      }
      // The answer to the tool's result never comes: the process is killed while waiting for it.
      if (nth === 2) await new Promise(() => undefined);
      return completion("Proposed it.");
    });
    fakes.push(fake);
    const env = { MODELROUTER_API_BASE_URL: `${fake.origin}/api/v1` };
    const { start, first, messages, staffUserId } = await prepare(env, {}, "modelrouter");
    const files = messages.replace(/chat-rooms\/[^/]+\/messages$/, "files");
    const file = (await first.api.post(`${files}/text`, { name: "notes.md", content: "v1" })).body.node;
    expect((await first.api.post(messages, { content: "@Ada tidy notes.md" })).status).toBe(201);
    await eventually(() => fake.requests.length === 2, "the tool's result to be sent", 10_000);
    first.server.proc.kill("SIGKILL");
    await first.server.proc.exited;

    const second = await start();
    let replies: { content: string }[] = [];
    for (let i = 0; i < 200 && replies.length === 0; i++) {
      replies = await byStaff(second.api, messages, staffUserId);
      if (replies.length === 0) await Bun.sleep(50);
    }
    await Bun.sleep(300);
    const proposals = (await second.api.get(`${files}/${file.id}/proposals`)).body.proposals;
    expect(proposals.map((p: { note: string }) => p.note)).toEqual(["once"]);
    // The answer links the proposal made before the kill.
    const link = `/spaces/${file.space_id}/files/${file.id}?proposal=${proposals[0].id}`;
    expect((await byStaff(second.api, messages, staffUserId)).map((m) => m.content)).toEqual([
      `Proposed it.\n\n→ [Proposed change to notes.md](${link})`,
    ]);
    // Three requests in all: the resumed loop sent the saved conversation with the tool's result again.
    expect(fake.requests).toHaveLength(3);
    const resumed = fake.requests[2]?.body as { messages: { role: string; tool_call_id?: string }[] };
    expect(resumed.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    const orgBase = messages.slice(0, messages.indexOf("/spaces/"));
    const activity = (await second.api.get(`${orgBase}/staff-activity`)).body.activity;
    expect(activity).toHaveLength(1);
    expect(activity[0].tool_calls.map((c: { name: string }) => c.name)).toEqual(["propose_file_patch"]);
    expect(activity[0].status).toBe("done");
    await second.server.stop();
  }, 60_000);
});

describe("a restart while a reply waits out a Retry-After", () => {
  it("resumes the job no earlier than the pause the gateway asked for", async () => {
    const calls: number[] = [];
    const fake = startFakeProvider((_req, nth) => {
      calls.push(Date.now());
      return nth === 1
        ? Response.json({ error: { message: "slow down" } }, { status: 429, headers: { "retry-after": "4" } })
        : completion("After the pause");
    });
    fakes.push(fake);
    const env = { MODELROUTER_API_BASE_URL: `${fake.origin}/api/v1` };
    const { start, first, messages, staffUserId } = await prepare(env, {}, "modelrouter");
    expect((await first.api.post(messages, { content: "@Ada are you there?" })).status).toBe(201);
    await eventually(() => calls.length === 1, "the gateway to be called");
    await Bun.sleep(300);
    first.server.proc.kill("SIGKILL");
    await first.server.proc.exited;

    const second = await start();
    await eventually(() => calls.length >= 2, "the job to be resumed", 15_000);
    expect((calls[1] as number) - (calls[0] as number)).toBeGreaterThanOrEqual(3900);
    let replies: { content: string }[] = [];
    for (let i = 0; i < 100 && replies.length === 0; i++) {
      replies = await byStaff(second.api, messages, staffUserId);
      if (replies.length === 0) await Bun.sleep(50);
    }
    expect(replies.map((m) => m.content)).toEqual(["After the pause"]);
    await second.server.stop();
  }, 60_000);
});

describe("a restart while a cloud-agent run is going", () => {
  it("polls the same run and posts its link and its result once each", async () => {
    let finished = false;
    const fake = startFakeProvider((req) => {
      if (req.method === "POST" && req.path === "/v0/agents") {
        return Response.json({ id: "bc_1", status: "CREATING", target: { url: "https://agents.example/bc_1" } });
      }
      if (req.path === "/v0/agents/bc_1")
        return Response.json({ id: "bc_1", status: finished ? "FINISHED" : "RUNNING" });
      if (req.path === "/v0/agents/bc_1/conversation") {
        return Response.json({ id: "bc_1", messages: [{ id: "m", type: "assistant_message", text: "Done." }] });
      }
      return new Response("not found", { status: 404 });
    });
    fakes.push(fake);
    const env = { AGENT_API_BASE_URL: fake.origin };
    const { start, first, messages, staffUserId } = await prepare(env, { provider: "agent" }, "agent");
    expect((await first.api.post(messages, { content: "@Ada fix the build" })).status).toBe(201);
    await eventually(() => fake.to("/v0/agents/bc_1").length >= 1, "the run to be polled", 10_000);
    first.server.proc.kill("SIGKILL");
    await first.server.proc.exited;
    finished = true;

    const second = await start();
    await eventually(() => fake.to("/v0/agents/bc_1/conversation").length === 1, "the result to be read", 15_000);
    let replies: { content: string }[] = [];
    for (let i = 0; i < 100 && replies.length < 2; i++) {
      replies = await byStaff(second.api, messages, staffUserId);
      if (replies.length < 2) await Bun.sleep(50);
    }
    await Bun.sleep(300);
    replies = await byStaff(second.api, messages, staffUserId);
    expect(replies.length).toBe(2);
    expect(replies[0]?.content).toContain("https://agents.example/bc_1");
    expect(replies[1]?.content).toBe("Done.");
    expect(fake.requests.filter((r) => r.method === "POST").length).toBe(1);
    await second.server.stop();
  }, 60_000);
});
