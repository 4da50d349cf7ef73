/**
 * Reverse tunnels across nodes (contract §8, §9): a connector holds its socket on one node, and a visit reaching
 * another node is carried to it and answered as the holder would answer it: status, headers, bodies streamed
 * both ways, the same limits and timeout. One connector per tunnel holds across nodes; a one-time link asked of
 * one node opens on any; a holder that stopped or died answers as no connector. The node-to-node route exists
 * for nothing but a node of the install.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { NodeRequests } from "../../src/lib/node-requests";
import { NODE_SECRETS, nodeCluster } from "../helpers/cluster";
import { addMember, type Org, type Person } from "../helpers/factories";
import { psql } from "../helpers/postgres";
import type { SpawnedServer } from "../helpers/server";
import { type Connector, connector, localService } from "../helpers/tunnel";

const MiB = 1024 * 1024;

// The local service behind the tunnel.

const service = localService(12 * MiB, 4 * MiB);

async function serveLocally(request: Request): Promise<Response> {
  const common = await service.handle(request);
  if (common) return common;
  switch (new URL(request.url).pathname) {
    case "/beyond":
      return new Response("moved", {
        status: 302,
        headers: [
          ["location", "/echo?from=relative"],
          ["set-cookie", "prefs=dark; Path=/; Domain=127.0.0.1"],
          ["set-cookie", "cart=1; Path=/shop"],
          ["clear-site-data", '"storage"'],
          ["cache-control", "public, max-age=60"],
        ],
      });
    default:
      return new Response("not here", { status: 404 });
  }
}

// The world: two nodes (a third joins later), a space with a tunnel, its connector on node A.

const install = nodeCluster("tunnels", {
  TANDEM_TUNNEL_ANSWER_TIMEOUT_SEC: "1",
  TANDEM_MAX_UPLOAD_BYTES: String(10 * MiB),
});
let local: ReturnType<typeof Bun.serve>;
let a: SpawnedServer;
let b: SpawnedServer;
let org: Org;
let dev: Person;
let viewer: Person;
let spaceId: string;
let tunnelId: string;
let onA: Connector;
let runOnA: string;
const running: Connector[] = [];

const automations = () => `/api/v1/organizations/${org.id}/spaces/${spaceId}/automations`;
const at = (node: SpawnedServer, path = "", id = tunnelId) => `${node.url}/tunnels/${id}/${path}`;
const as = (person: Person, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${person.token}` },
});

function connect(node: SpawnedServer, id = tunnelId, token = dev.token): Connector {
  const c = connector(node.url, id, token, `http://127.0.0.1:${local.port}`);
  running.push(c);
  return c;
}

async function createTunnel(): Promise<string> {
  const body = { name: `Preview ${Math.random()}`, kind: "reverse_tunnel", status: "active" };
  return (await dev.api.post(automations(), body)).body.automation.id;
}

/** The run `runId` of the tunnel `id`, once no longer running (its end is written as the socket closes). */
async function ended(id: string, runId: string): Promise<any> {
  for (let i = 0; i < 100; i++) {
    const run = await runOf(id, runId);
    if (run.status !== "running") return run;
    await Bun.sleep(50);
  }
  throw new Error(`run ${runId} did not end`);
}

async function runOf(id: string, runId: string): Promise<any> {
  const listed = await dev.api.get(`${automations()}/${id}/runs`);
  return listed.body.runs.find((run: { id: string }) => run.id === runId);
}

beforeAll(async () => {
  local = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 60, fetch: serveLocally });
  a = await install.start();
  b = await install.start();
  org = await install.setup(a);
  dev = await addMember(org, ["Member"], "Dana Dev");
  viewer = await addMember(org, ["Viewer"], "Vic Viewer");
  spaceId = (await dev.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Preview", private: true })).body.id;
  await dev.api.post(`/api/v1/organizations/${org.id}/spaces/${spaceId}/members`, { user_id: viewer.id });
  tunnelId = await createTunnel();
  onA = connect(a);
  runOnA = (await onA.connected()).run_id;
}, 60_000);

afterAll(async () => {
  for (const c of running) c.proc.kill("SIGKILL");
  await install.stop();
  local?.stop(true);
});

describe("a tunnel whose connector is on node A, visited through node B", () => {
  it("answers as through A: the path and query, who asks, without Tandem's credentials", async () => {
    const init = as(viewer, { headers: { cookie: "tandem_tunnel=not-for-you; theme=dark", "x-custom": "kept" } });
    const [viaA, viaB] = await Promise.all([
      fetch(at(a, "echo?b=2&a=%20x"), init),
      fetch(at(b, "echo?b=2&a=%20x"), init),
    ]);
    expect(viaB.status).toBe(200);
    const seenA = await viaA.json();
    const seenB = await viaB.json();
    expect(seenB).toMatchObject({ method: "GET", query: "?b=2&a=%20x", body: null });
    expect(seenB.headers.authorization).toBeUndefined();
    expect(seenB.headers.cookie).toBe("theme=dark");
    expect(seenB.headers["x-custom"]).toBe("kept");
    expect(seenB.headers["x-tandem-user-id"]).toBe(viewer.id);
    expect(seenB.headers["x-forwarded-prefix"]).toBe(`/tunnels/${tunnelId}`);
    // Where the visitor went: node B, as B saw it.
    expect(seenB.headers["x-forwarded-host"]).toBe(new URL(b.url).host);
    // Nothing of the hop between the nodes reaches the service.
    expect(Object.keys(seenB.headers).filter((h) => h.startsWith("x-tandem-node"))).toEqual([]);
    const same = (seen: { headers: Record<string, string> }) => {
      const { "x-forwarded-host": _, ...rest } = seen.headers;
      return { ...seen, headers: rest };
    };
    expect(same(seenB)).toEqual(same(seenA));
    // The service's own status and headers come back as they are.
    const teapot = await fetch(at(b, "echo?status=418"), as(viewer));
    expect(teapot.status).toBe(418);
    expect(teapot.headers.get("content-type")).toContain("application/json");
  });

  it("relays every method's body and the answer's, and a HEAD without a body", async () => {
    const posted = await fetch(at(b, "echo"), {
      ...as(dev, { method: "POST", body: JSON.stringify({ hello: "tunnel" }) }),
      headers: { authorization: `Bearer ${dev.token}`, "content-type": "application/json" },
    });
    expect(posted.status).toBe(200);
    const seen = await posted.json();
    expect(seen).toMatchObject({ method: "POST", body: '{"hello":"tunnel"}' });
    expect(seen.headers["content-type"]).toBe("application/json");
    for (const method of ["PUT", "PATCH", "DELETE"]) {
      const other = await fetch(at(b, "echo"), as(dev, { method, body: method }));
      expect(await other.json()).toMatchObject({ method, body: method });
    }
    const head = await fetch(at(b, "echo"), as(dev, { method: "HEAD" }));
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("streams a large download: the first bytes arrive before the service has made the rest", async () => {
    await service.expectStreamedDownload(await fetch(at(b, "big"), as(viewer)));
  });

  it("streams a large upload: the service has the first bytes before the visitor sent the rest", async () => {
    await service.expectStreamedUpload(at(b, "upload"), as(dev), 8 * MiB);
  });

  it("passes a compressed answer as it is, and keeps redirects and cookies inside the tunnel", async () => {
    const zipped = await fetch(at(b, "gzip"), as(dev, { headers: { "accept-encoding": "gzip" } }));
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(await zipped.text()).toBe("squeezed ".repeat(1000));
    const moved = await fetch(at(b, "beyond"), { ...as(dev), redirect: "manual" });
    expect(moved.status).toBe(302);
    expect(moved.headers.get("location")).toBe(`/tunnels/${tunnelId}/echo?from=relative`);
    expect(moved.headers.getSetCookie()).toEqual([
      `prefs=dark; Path=/tunnels/${tunnelId}/`,
      `cart=1; Path=/tunnels/${tunnelId}/shop`,
    ]);
    expect(moved.headers.get("clear-site-data")).toBeNull();
    expect(moved.headers.get("cache-control")).toBe("private, max-age=60");
    expect(moved.headers.get("content-security-policy")).toContain("sandbox allow-");
  });

  it("answers 504 when the service does not answer within the configured time, and goes on serving", async () => {
    const started = Date.now();
    const res = await fetch(at(b, "slow"), as(dev));
    expect(res.status).toBe(504);
    expect(await res.json()).toEqual({ error: "tunnel did not answer within 1 s" });
    expect(Date.now() - started).toBeLessThan(2500);
    expect((await fetch(at(b, "echo"), as(dev))).status).toBe(200);
  });

  it("answers 413 for a body over the upload limit, declared or streamed, and goes on serving", async () => {
    const declared = await fetch(at(b, "upload"), as(dev, { method: "POST", body: new Uint8Array(11 * MiB) }));
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual({ error: "request body too large" });
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 16 * MiB) return controller.close();
        controller.enqueue(new Uint8Array(256 * 1024));
        sent += 256 * 1024;
      },
    });
    const streamed = await fetch(at(b, "upload"), {
      ...as(dev, { method: "POST", body: endless }),
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toEqual({ error: "request body too large" });
    expect((await fetch(at(b, "echo"), as(dev))).status).toBe(200);
  });

  it("checks the visitor where the visit arrived: 401 without a token, 404 for someone who cannot see it", async () => {
    expect((await fetch(at(b, "echo"))).status).toBe(401);
    const outsider = await addMember(org, ["Member"], "Otto Outsider");
    const hidden = await fetch(at(b, "echo"), as(outsider));
    expect(hidden.status).toBe(404);
    expect(await hidden.json()).toEqual({ error: "automation not found" });
  });

  it("opens a one-time link asked of A through B, once, and its cookie works on both", async () => {
    const asked = await viewer.api.post(`${automations()}/${tunnelId}/tunnel-link`);
    expect(asked.status).toBe(200);
    const link = new URL(asked.body.url);
    const throughB = `${b.url}${link.pathname}${link.search}`;
    const opened = await fetch(throughB, { redirect: "manual" });
    expect(opened.status).toBe(303);
    const pass = (opened.headers.get("set-cookie") ?? "").split(";")[0] as string;
    expect(pass).toStartWith("tandem_tunnel=");
    for (const node of [a, b]) {
      const res = await fetch(at(node, "echo"), { headers: { cookie: pass } });
      expect(res.status).toBe(200);
      expect((await res.json()).headers["x-tandem-user-id"]).toBe(viewer.id);
    }
    for (const node of [a, b]) {
      const again = await fetch(`${node.url}${link.pathname}${link.search}`, { redirect: "manual" });
      expect(again.status).toBe(401);
    }
  });

  it("counts the visits carried from B in the connection's run", async () => {
    expect((await runOf(tunnelId, runOnA)).status).toBe("running");
    await onA.stop();
    const done = await ended(tunnelId, runOnA);
    expect(done.status).toBe("succeeded");
    // Every visit above went over this one connection, through either node.
    expect(done.output.requests).toBeGreaterThanOrEqual(15);
  });
});

describe("without a connector, on every node", () => {
  it("answers 502 tunnel not connected through either node", async () => {
    for (const node of [a, b]) {
      const res = await fetch(at(node, "echo"), as(dev));
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual({ error: "tunnel not connected" });
    }
  });
});

describe("one connector per tunnel, across nodes", () => {
  it("refuses another member's connector on B while one is up on A", async () => {
    const id = await createTunnel();
    const first = connect(a, id);
    await first.connected();
    const teammate = await addMember(org, ["Member"], "Tia Teammate");
    await dev.api.post(`/api/v1/organizations/${org.id}/spaces/${spaceId}/members`, { user_id: teammate.id });
    const other = connect(b, id, teammate.token);
    const { code, stderr } = await other.exited;
    expect(code).toBe(1);
    expect(stderr).toBe("tandem: the server refused the tunnel: tunnel already connected by another member\n");
    expect((await fetch(at(b, "echo", id), as(dev))).status).toBe(200);
    await first.stop();
  });

  it("a newer connector of the same member on B replaces the one on A, which exits saying so", async () => {
    const id = await createTunnel();
    const first = connect(a, id);
    const { run_id: firstRun } = await first.connected();
    const second = connect(b, id);
    const { run_id: secondRun } = await second.connected();
    const { code, stderr } = await first.exited;
    expect(code).toBe(1);
    expect(stderr).toBe("tandem: the server closed the tunnel: replaced by a newer connector\n");
    // Now A carries its visits to B.
    const seen = await fetch(at(a, "echo", id), as(dev));
    expect(seen.status).toBe(200);
    expect(await ended(id, firstRun)).toMatchObject({ status: "succeeded", error: null });
    expect(await runOf(id, secondRun)).toMatchObject({ status: "running" });
    await second.stop();
  });

  it("keeps a connection's run running when another node starts (its start ends only runs no live node holds)", async () => {
    const id = await createTunnel();
    const tunnel = connect(b, id);
    const { run_id } = await tunnel.connected();
    const c = await install.start();
    expect(await runOf(id, run_id)).toMatchObject({ status: "running" });
    expect((await fetch(at(c, "echo", id), as(dev))).status).toBe(200);
    await tunnel.stop();
  });
});

describe("a holder that dies", () => {
  it("answers 502 tunnel not connected through the others once the holder is killed -9", async () => {
    const doomed = await install.start();
    const id = await createTunnel();
    const tunnel = connect(doomed, id);
    const { run_id } = await tunnel.connected();
    expect((await fetch(at(b, "echo", id), as(dev))).status).toBe(200);
    doomed.proc.kill("SIGKILL");
    await doomed.proc.exited;
    for (const wait of [0, 6000]) {
      await Bun.sleep(wait);
      const started = Date.now();
      const res = await fetch(at(b, "echo", id), as(dev));
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual({ error: "tunnel not connected" });
      expect(Date.now() - started).toBeLessThan(2000);
    }
    // The dead node's run is ended by the next node to start.
    tunnel.proc.kill("SIGKILL");
    await install.start();
    expect(await ended(id, run_id)).toMatchObject({
      status: "failed",
      error: "the server stopped while the tunnel was connected",
    });
  }, 30_000);
});

describe("POST /api/v1/cluster/tunnels/{automationId}", () => {
  it("does not exist for anyone but a node of the install: unsigned or forged requests answer 404", async () => {
    const path = `/api/v1/cluster/tunnels/${tunnelId}`;
    const unsigned = await fetch(`${a.url}${path}`, { method: "POST", body: "x" });
    expect(unsigned.status).toBe(404);
    expect(await unsigned.json()).toEqual({ error: "page not found" });
    const forged = await fetch(`${a.url}${path}`, {
      method: "POST",
      body: "x",
      headers: {
        "x-tandem-node": "someone",
        "x-tandem-node-to": "anyone",
        "x-tandem-node-time": String(Date.now()),
        "x-tandem-node-nonce": "0123456789abcdef0123",
        "x-tandem-node-signature": "AAAA",
        authorization: `Bearer ${dev.token}`,
      },
    });
    expect(forged.status).toBe(404);
  });

  it("relays a node's visit over the connector held here, never forwards one, and takes each signed request once", async () => {
    const id = await createTunnel();
    const tunnel = connect(a, id);
    await tunnel.connected();
    const nodeOf = (node: SpawnedServer) =>
      psql(install.databaseUrl, `SELECT id FROM cluster_nodes WHERE url = '${node.url}'`).trim();
    const signer = new NodeRequests(new TextEncoder().encode(NODE_SECRETS.JWT_SECRET), "a-node-of-the-test");
    const path = `/api/v1/cluster/tunnels/${id}`;
    const head = new TextEncoder().encode(
      JSON.stringify({ method: "GET", path: "/echo?via=node", headers: [["x-tandem-user-id", dev.id]], body: false }),
    );
    const framed = new Uint8Array(4 + head.byteLength);
    new DataView(framed.buffer).setUint32(0, head.byteLength);
    framed.set(head, 4);
    const send = (node: SpawnedServer, headers: Record<string, string>) =>
      fetch(`${node.url}${path}`, { method: "POST", body: framed, headers });
    // B does not hold the tunnel: it answers as without a connector, and does not carry it on to A.
    const toB = await send(b, signer.sign("POST", path, nodeOf(b)));
    expect(toB.status).toBe(502);
    expect(await toB.json()).toEqual({ error: "tunnel not connected" });
    // A holds it: the connector's answer, framed (its head's length, the head, then the body).
    const signed = signer.sign("POST", path, nodeOf(a));
    const toA = await send(a, signed);
    expect(toA.status).toBe(200);
    const bytes = new Uint8Array(await toA.arrayBuffer());
    const length = new DataView(bytes.buffer).getUint32(0);
    expect(JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + length))).status).toBe(200);
    expect(JSON.parse(new TextDecoder().decode(bytes.subarray(4 + length))).query).toBe("?via=node");
    // The same signed request again: refused, as from anyone.
    expect((await send(a, signed)).status).toBe(404);
    await tunnel.stop();
  });
});
