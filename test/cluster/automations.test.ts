/**
 * Automations on several nodes (contract §8, §9): every node keeps the schedule, and each tick is taken by one of
 * them, once; a webhook delivery runs once whichever node it reaches, and a delivery id seen by one node is
 * answered by every other with the run it queued.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHmac, randomUUID } from "node:crypto";
import { nodeCluster } from "../helpers/cluster";
import { allMessages, type Org } from "../helpers/factories";
import { type Client, client, request } from "../helpers/http";
import type { SpawnedServer } from "../helpers/server";

const install = nodeCluster("automations");
let nodes: SpawnedServer[];
let org: Org;
let base: string;
let messages: string;

/** The owner's API through `node`. */
const through = (node: SpawnedServer): Client => client(node.url, org.owner.token);
const automations = () => `${base}/automations`;

async function runsOf(id: string): Promise<any[]> {
  return (await org.owner.api.get(`${automations()}/${id}/runs?limit=200`)).body.runs;
}

/** The runs of `id` once none is queued or running; newest first. */
async function settled(id: string): Promise<any[]> {
  for (let i = 0; i < 200; i++) {
    const runs = await runsOf(id);
    if (runs.every((r) => r.status === "succeeded" || r.status === "failed")) return runs;
    await Bun.sleep(25);
  }
  throw new Error(`the runs of ${id} did not finish`);
}

beforeAll(async () => {
  nodes = [await install.start(), await install.start(), await install.start()];
  org = await install.setup(nodes[0] as SpawnedServer);
  const space = (await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Launch" })).body;
  base = `/api/v1/organizations/${org.id}/spaces/${space.id}`;
  const room = (await org.owner.api.get(`${base}/chat-rooms`)).body.chat_rooms[0].id;
  messages = `${base}/chat-rooms/${room}/messages`;
}, 60_000);

afterAll(() => install.stop());

describe("a scheduled automation on three nodes", () => {
  it("runs once per tick, not once per node, and posts once per run", async () => {
    const [a, b, c] = nodes as [SpawnedServer, SpawnedServer, SpawnedServer];
    const made = await through(b).post(automations(), {
      name: "Every second",
      kind: "scheduled",
      status: "active",
      config: { cron: "* * * * * *", channel: "general", message: "tick" },
    });
    expect(made.status).toBe(201);
    const id = made.body.automation.id as string;
    const started = Date.now();
    await Bun.sleep(4500);
    expect((await through(c).patch(`${automations()}/${id}`, { status: "paused" })).status).toBe(200);
    const elapsed = (Date.now() - started) / 1000;
    const runs = (await settled(id)).reverse();
    expect(runs.length).toBeGreaterThanOrEqual(3);
    // A tick a second: as many runs as seconds went by, at most, however many nodes kept the schedule.
    expect(runs.length).toBeLessThanOrEqual(Math.ceil(elapsed) + 1);
    expect(runs.every((r) => r.trigger === "schedule" && r.status === "succeeded")).toBe(true);
    // Two nodes taking one tick would make two runs within milliseconds of each other.
    const times = runs.map((r) => Date.parse(r.created_at));
    for (let i = 1; i < times.length; i++) expect((times[i] as number) - (times[i - 1] as number)).toBeGreaterThan(500);
    const posted = (await allMessages(through(a), messages)).filter((m) => m.automation_id === id);
    expect(posted.map((m) => m.id).sort()).toEqual(runs.map((r) => r.output.message_id).sort());
  }, 30_000);
});

describe("a webhook created on node A, delivered to every node", () => {
  let hook: { id: string; secret: string };

  /** Standard Webhooks headers for `body`, signed with the webhook's secret, with the delivery id `id`. */
  function signed(body: string, id: string): Record<string, string> {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const key = Buffer.from(hook.secret.slice("whsec_".length), "base64");
    const signature = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
    return { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": `v1,${signature}` };
  }

  const deliver = (node: SpawnedServer, id: string, event = "deploy") => {
    const body = JSON.stringify({ event, id });
    const headers = signed(body, id);
    return request(node.url, "POST", `/api/v1/hooks/${hook.id}`, {
      raw: body,
      contentType: "application/json",
      headers,
    });
  };

  beforeAll(async () => {
    const [a] = nodes as [SpawnedServer];
    const made = await through(a).post(automations(), {
      name: "Deploys",
      kind: "webhook",
      status: "active",
      config: { channel: "general", template: "{{event}} {{id}}" },
    });
    expect(made.status).toBe(201);
    hook = { id: made.body.automation.id, secret: made.body.webhook_secret };
  });

  it("runs each delivery once, whichever node takes it", async () => {
    const [a, b] = nodes as [SpawnedServer, SpawnedServer];
    const onB = await deliver(b, "msg_on_b");
    const onA = await deliver(a, "msg_on_a");
    expect(onB.status).toBe(202);
    expect(onA.status).toBe(202);
    expect(onB.body.run_id).not.toBe(onA.body.run_id);
    const runs = await settled(hook.id);
    expect(runs.map((r) => r.id).sort()).toEqual([onA.body.run_id, onB.body.run_id].sort());
    expect(runs.every((r) => r.trigger === "webhook" && r.status === "succeeded")).toBe(true);
    const posted = (await allMessages(through(b), messages)).filter((m) => m.automation_id === hook.id);
    expect(posted.map((m) => m.content).sort()).toEqual(["deploy msg_on_a", "deploy msg_on_b"]);
  });

  it("answers a delivery id one node took with its run on every node, and runs nothing again", async () => {
    const [a, b, c] = nodes as [SpawnedServer, SpawnedServer, SpawnedServer];
    const first = await deliver(b, "msg_again");
    expect(first.status).toBe(202);
    for (const node of [a, b, c]) {
      const again = await deliver(node, "msg_again");
      expect(again.status).toBe(202);
      expect(again.body.run_id).toBe(first.body.run_id);
    }
    // A new id reaching the three nodes at once: one run, named by every answer.
    const id = `msg_${randomUUID()}`;
    const race = await Promise.all([a, b, c].map((node) => deliver(node, id)));
    expect(race.map((r) => r.status)).toEqual([202, 202, 202]);
    expect(new Set(race.map((r) => r.body.run_id)).size).toBe(1);
    const runs = await settled(hook.id);
    // msg_on_b, msg_on_a, msg_again and the raced one.
    expect(runs).toHaveLength(4);
    const posted = (await allMessages(through(c), messages)).filter((m) => m.automation_id === hook.id);
    expect(posted).toHaveLength(4);
  });

  it("takes a new secret or a pause made on one node at once on the others", async () => {
    const [a, b, c] = nodes as [SpawnedServer, SpawnedServer, SpawnedServer];
    // Every node has delivered with the current secret, so each knows it.
    for (const node of [a, b, c]) expect((await deliver(node, `msg_${randomUUID()}`)).status).toBe(202);
    const old = hook.secret;
    const rotated = await through(a).post(`${automations()}/${hook.id}/webhook-secret`);
    expect(rotated.status).toBe(200);
    for (const node of [b, c]) {
      hook.secret = old;
      const stale = await deliver(node, `msg_${randomUUID()}`);
      expect(stale.status).toBe(401);
      hook.secret = rotated.body.webhook_secret;
      expect((await deliver(node, `msg_${randomUUID()}`)).status).toBe(202);
    }
    expect((await through(b).patch(`${automations()}/${hook.id}`, { status: "paused" })).status).toBe(200);
    for (const node of [a, c]) {
      const paused = await deliver(node, `msg_${randomUUID()}`);
      expect(paused.status).toBe(409);
      expect(paused.body.error).toBe("automation is not active");
    }
  });
});
