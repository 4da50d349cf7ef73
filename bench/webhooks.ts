/**
 * Signed webhook deliveries (contract §8), measured from outside: `POST /api/v1/hooks/{automationId}` signed the
 * Standard Webhooks way, each request with a new `webhook-id` and a current timestamp, so the server verifies,
 * deduplicates and stores every one. Target: deliveries accepted (202, each storing its run, the run's job and the
 * delivery) at 0.15 of the bare endpoint or more, in the same run.
 *
 * The deliveries of a round are signed here, just before it (well within the 5 minutes a timestamp is good for),
 * and wrk sends them from a file (bench/lua/sign-webhook.lua). Signing each request in wrk's Lua, as a first
 * version did, held wrk to about 20 k requests/s against the bare endpoint: wrk, not the server, set the pace.
 *
 * What is measured is acceptance: what a sender waits for. Two things would otherwise measure something else:
 * - The runs. Each accepted delivery queues a run that posts a message, several writes more than the delivery
 *   itself; on the server's one core the runs would take most of it, and no webhook could be accepted faster
 *   than runs run. So the runs wait: the server has one run worker (TANDEM_STAFF_WORKERS=1), held from the start
 *   by a staff reply whose model gateway (a loopback fake here) never answers. The runs it queues stay queued.
 * - The flood cap. At most 100 runs of one automation wait; beyond, 429 (which fails the scenario). Each round
 *   sends to a fresh set of automations, `PER_AUTOMATION` deliveries each, enough that none reaches the cap: the
 *   cap's count runs on every delivery as in use, over up to 80 queued runs.
 *
 * How deliveries spread over automations decides much of their cost: each one writes to three indexes keyed by
 * its automation (its run's history and the queued runs, the delivery ids), and a commit writes every index page
 * touched since the last. The target row sends each automation its deliveries in a row, as a busy sender does (a
 * repository's pushes, a CI loop); the second row, for information, sends them round-robin over the 2,500
 * automations of the round, so that one commit's deliveries touch as many pages as they can.
 */
import { createHmac } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type LoadScenario, luaWith, opts, type Server, startTandem, tempDir } from "./harness";
import { api, space, times } from "./seed";

/** A delivery rate above any this bench expects, which sizes a round's automations and deliveries (requests/s). */
const ASSUMED_MAX_RATE = 40_000;
/** Queued runs per automation a round may reach at that rate (the cap is 100). */
const PER_AUTOMATION = 80;

/** A model gateway that takes every request and never answers: the reply job that asks it holds its worker. */
function silentGateway() {
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      await req.arrayBuffer();
      requests++;
      return new Promise<Response>(() => undefined);
    },
  });
  let requests = 0;
  return { url: `http://127.0.0.1:${server.port}`, asked: () => requests, stop: () => server.stop(true) };
}

/** A server whose one run worker is held by a staff reply; its space. */
async function heldServer() {
  const gateway = silentGateway();
  const server = await startTandem(undefined, {
    TANDEM_STAFF_WORKERS: "1",
    MODELROUTER_API_BASE_URL: gateway.url,
    MODELROUTER_CHAT_TOOL_STEP_TIMEOUT_SEC: "3600",
  });
  const s = await space(server, "webhooks");
  await api(server, "PUT", `/api/v1/organizations/${s.org}/integrations/modelrouter`, { api_key: "bench-key" });
  await api(server, "POST", `/api/v1/organizations/${s.org}/service-accounts`, { name: "Ada" });
  await api(server, "POST", `${s.base}/chat-rooms/${s.room}/messages`, { content: "@Ada take your time" });
  for (let i = 0; gateway.asked() === 0; i++) {
    if (i > 500) throw new Error("the staff reply never reached the gateway");
    await Bun.sleep(10);
  }
  return { server, s, gateway };
}

/** `n` active webhook automations posting in the space's room: their ids and their secrets' keys. */
async function webhooks(server: Server, base: string, n: number, round: string) {
  const hooks: { id: string; key: Buffer }[] = [];
  await times(n, 16, async (i) => {
    const { automation, webhook_secret } = await api<{ automation: { id: string }; webhook_secret: string }>(
      server,
      "POST",
      `${base}/automations`,
      {
        name: `Deploys ${round}-${i}`,
        kind: "webhook",
        status: "active",
        config: { channel: "general", template: "Deployed {{app.name}} {{version}}" },
      },
    );
    hooks.push({ id: automation.id, key: Buffer.from(webhook_secret.slice("whsec_".length), "base64") });
  });
  return hooks;
}

/**
 * A file of `count` deliveries signed now, `burst` in a row to each of `hooks` in turn, one per line for
 * bench/lua/sign-webhook.lua.
 */
function signedDeliveries(hooks: { id: string; key: Buffer }[], count: number, burst: number, round: string) {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const lines: string[] = [];
  for (let n = 0; n < count; n++) {
    const hook = hooks[Math.floor(n / burst) % hooks.length] as { id: string; key: Buffer };
    const id = `msg_${round}_${n}`;
    const body = `{"type":"deploy.finished","app":{"name":"shop"},"version":"v1.${n}"}`;
    const signature = createHmac("sha256", hook.key).update(`${id}.${timestamp}.${body}`).digest("base64");
    lines.push(`/api/v1/hooks/${hook.id}\t${id}\t${timestamp}\tv1,${signature}\t${body}`);
  }
  const file = join(tempDir("tandem-bench-hooks-"), "deliveries.tsv");
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

/**
 * A delivery scenario on a server of its own: deliveries go to each automation `burst` in a row (1: round-robin
 * over the round's automations).
 */
function deliveries(name: string, burst: number, minRatio?: number): LoadScenario {
  let held: Awaited<ReturnType<typeof heldServer>> | undefined;
  let rounds = 0;
  return {
    kind: "load",
    name,
    async start() {
      held = await heldServer();
      return held.server;
    },
    async request(server) {
      if (!held) throw new Error("not started");
      const round = `r${++rounds}`;
      const count = opts.duration * ASSUMED_MAX_RATE;
      const hooks = await webhooks(server, held.s.base, Math.ceil(count / PER_AUTOMATION), round);
      const file = signedDeliveries(hooks, count, burst, round);
      const threads = Math.min(opts.threads, opts.connections);
      return { path: "/api/v1/hooks/", lua: luaWith("sign-webhook.lua", { FILE: file, THREADS: threads }) };
    },
    ...(minRatio === undefined ? {} : { minRatio }),
  };
}

export const webhookScenarios = [
  deliveries("POST signed webhook delivery (runs held)", PER_AUTOMATION, 0.15),
  deliveries("POST signed webhook delivery, round-robin", 1),
];
