/**
 * Automations across a stop of dist/tandem (contract §8: every run is durable, runs once): a tick missed while
 * the server was down runs once at start, not once per tick missed; a run cut off by `kill -9` is finished by
 * the next server, as the same run.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { rmSync } from "node:fs";
import { startFakeProvider } from "../helpers/fake-providers";
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

/** A set-up data dir with a space; `start` serves it with dist/tandem and signs the owner in. */
async function prepare() {
  const { orgId, start } = await binaryInstall("tandem-automations-", { dirs, spawned });
  const first = await start();
  const space = (await first.api.post(`/api/v1/organizations/${orgId}/spaces`, { name: "S" })).body;
  const base = `/api/v1/organizations/${orgId}/spaces/${space.id}`;
  const room = (await first.api.get(`${base}/chat-rooms`)).body.chat_rooms[0].id;
  return { start, first, base, messages: `${base}/chat-rooms/${room}/messages` };
}

describe("a tick missed while the server was down", () => {
  it("runs once at start, and the schedule goes on from now", async () => {
    const { start, first, base, messages } = await prepare();
    // Four ticks, a second apart, within one minute (UTC): all of them fall while the server is down.
    while (new Date().getUTCSeconds() > 45) await Bun.sleep(200);
    const at = new Date(Date.now() + 3000);
    const s = at.getUTCSeconds();
    const cron = `${s},${s + 1},${s + 2},${s + 3} ${at.getUTCMinutes()} ${at.getUTCHours()} * * *`;
    const created = await first.api.post(`${base}/automations`, {
      name: "Stand-up",
      kind: "scheduled",
      status: "active",
      config: { cron, channel: "general", message: "Stand-up!" },
    });
    expect(created.status).toBe(201);
    const id = created.body.automation.id;
    expect(Date.parse(created.body.automation.next_run_at)).toBe(Math.floor(at.getTime() / 1000) * 1000);
    await first.server.stop("SIGTERM");
    await Bun.sleep(Math.max(0, at.getTime() + 4500 - Date.now()));

    const second = await start();
    let runs: { trigger: string; status: string }[] = [];
    await (async () => {
      for (let i = 0; i < 200; i++) {
        runs = (await second.api.get(`${base}/automations/${id}/runs`)).body.runs;
        if (runs.some((r) => r.status === "succeeded")) return;
        await Bun.sleep(50);
      }
    })();
    // Time for more runs to appear, were there any.
    await Bun.sleep(1500);
    runs = (await second.api.get(`${base}/automations/${id}/runs`)).body.runs;
    expect(runs.map((r) => [r.trigger, r.status])).toEqual([["schedule", "succeeded"]]);
    const posted = (await second.api.get(messages)).body.messages.filter(
      (m: { automation_id?: string }) => m.automation_id === id,
    );
    expect(posted.map((m: { content: string }) => m.content)).toEqual(["Stand-up!"]);
    const after = (await second.api.get(`${base}/automations/${id}`)).body.automation;
    expect(Date.parse(after.next_run_at) - Date.now()).toBeGreaterThan(23 * 3600 * 1000);
    await second.server.stop();
  }, 30_000);
});

describe("a kill -9 in the middle of a run", () => {
  it("is finished by the next server as the same run: one run record, one post that answered", async () => {
    const hold = Promise.withResolvers<void>();
    const network = startFakeProvider(async (_req, nth) => {
      // The first post never gets its answer: the process is killed while waiting for it.
      if (nth === 1) await hold.promise;
      return Response.json({ data: { id: `post-${nth}` } }, { status: 201 });
    });
    fakes.push(network);
    const { start, first, base } = await prepare();
    const created = await first.api.post(`${base}/automations`, {
      name: "Announce",
      kind: "social_post",
      status: "active",
      oauth_token: "oauth-token",
      config: { endpoint: `${network.origin}/2/tweets`, text: "We launched" },
    });
    const id = created.body.automation.id;
    const queued = await first.api.post(`${base}/automations/${id}/run`);
    expect(queued.status).toBe(202);
    await eventually(() => network.requests.length === 1, "the network to be called");
    first.server.proc.kill("SIGKILL");
    await first.server.proc.exited;
    hold.resolve();

    const second = await start();
    let runs: { id: string; status: string; attempt: number; output: unknown }[] = [];
    for (let i = 0; i < 300; i++) {
      runs = (await second.api.get(`${base}/automations/${id}/runs`)).body.runs;
      if (runs.some((r) => r.status === "succeeded")) break;
      await Bun.sleep(100);
    }
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ id: queued.body.run.id, status: "succeeded", attempt: 2 });
    expect(runs[0]?.output).toEqual({ status: 201, id: "post-2" });
    await second.server.stop();
  }, 60_000);
});
