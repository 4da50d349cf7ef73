/**
 * Reverse tunnels (contract §8): a real server, a real local web service on loopback, and the connector run as
 * the real CLI (`tandem tunnel` from source, a child process). Requests and bodies both ways, streamed; the
 * one-time link and its cookie; who is let in; 502 and 504; the run of each connection; pausing, replacing,
 * reconnecting; and, in Chromium, what a tunnel page may and may not do on Tandem's origin and on its own.
 */
import { afterAll, beforeAll, describe, expect, it, setSystemTime } from "bun:test";
import type { Socket, TCPSocketListener } from "bun";
import { addMember, addStaff, type Org, type Person, setupOrg } from "../helpers/factories";
import { client, TIMESTAMP, UUID } from "../helpers/http";
import {
  cleanEnv,
  cliCommand,
  type SpawnedServer,
  spawnServer,
  startTestServer,
  type TestServer,
  tempDir,
} from "../helpers/server";
import { eventually, type Listener, listen } from "../helpers/sockets";
import { type Connector, connector, localService } from "../helpers/tunnel";

const MiB = 1024 * 1024;

// The local service behind the tunnel.

const service = localService(24 * MiB, 8 * MiB);

const PAGE = `<!doctype html><html><head><title>loading</title><link rel="stylesheet" href="style.css"></head>
<body><p>preview</p><script src="app.js"></script></body></html>`;
const APP_JS = `(async () => {
  const seen = [];
  try { seen.push("session=" + localStorage.getItem("tandem.session")); } catch (e) { seen.push("session=" + e.name); }
  try { const r = await fetch("api/who"); seen.push("api=" + r.status + ":" + (await r.text())); } catch (e) { seen.push("api=" + e.name); }
  seen.push("color=" + getComputedStyle(document.body).color);
  document.title = seen.join(" ");
})();`;
/** A page with its script inline: on Tandem's origin the sandbox keeps it from the web UI's storage. */
const INLINE_PAGE = `<!doctype html><html><head><title>loading</title></head><body><script>
  const seen = [];
  try { seen.push("session=" + localStorage.getItem("tandem.session")); } catch (e) { seen.push("session=" + e.name); }
  try { seen.push("cookie=" + document.cookie); } catch (e) { seen.push("cookie=" + e.name); }
  document.title = seen.join(" ");
</script></body></html>`;

async function serveLocally(request: Request): Promise<Response> {
  const common = await service.handle(request);
  if (common) return common;
  const url = new URL(request.url);
  switch (url.pathname) {
    case "/beyond":
      return new Response("moved", {
        status: 302,
        headers: [
          ["location", `http://127.0.0.1:${url.port}/echo?from=absolute`],
          ["set-cookie", "prefs=dark; Path=/; Domain=127.0.0.1; HttpOnly"],
          ["set-cookie", "cart=1; Path=/shop"],
          ["set-cookie", "tandem_tunnel=forged; Path=/"],
          ["set-cookie", "__Host-id=1; Path=/; Secure"],
          ["strict-transport-security", "max-age=31536000; includeSubDomains"],
          ["clear-site-data", '"storage"'],
          ["service-worker-allowed", "/"],
          ["cache-control", "public, max-age=60, s-maxage=600"],
        ],
      });
    case "/relative":
      return new Response(null, { status: 307, headers: { location: "/echo?from=relative" } });
    case "/page":
      return new Response(PAGE, { headers: { "content-type": "text/html" } });
    case "/inline":
      return new Response(INLINE_PAGE, { headers: { "content-type": "text/html" } });
    case "/style.css":
      return new Response("body { color: rgb(1, 2, 3); }", { headers: { "content-type": "text/css" } });
    case "/app.js":
      return new Response(APP_JS, { headers: { "content-type": "text/javascript" } });
    case "/api/who":
      return new Response(request.headers.get("x-tandem-user-id") ?? "nobody");
    default:
      return new Response("not here", { status: 404 });
  }
}

// A TCP relay between the connector and the server, whose connections the test can cut.

function cuttableRelay(targetPort: number): { port: number; cut(): void; stop(): void } {
  type Side = { peer: Socket<Side> | null; pending: Uint8Array[] };
  const open = new Set<Socket<Side>>();
  const pipe = (to: Socket<Side> | null, chunk: Uint8Array, pending: Uint8Array[]) =>
    to ? to.write(chunk) : pending.push(chunk.slice());
  const listener: TCPSocketListener<Side> = Bun.listen<Side>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      async open(client) {
        client.data = { peer: null, pending: [] };
        open.add(client);
        const upstream = await Bun.connect<Side>({
          hostname: "127.0.0.1",
          port: targetPort,
          socket: {
            open(socket) {
              socket.data = { peer: client, pending: [] };
            },
            data: (_socket, chunk) => void client.write(chunk),
            close: () => void client.end(),
            error: () => void client.end(),
          },
        });
        open.add(upstream);
        client.data.peer = upstream;
        for (const chunk of client.data.pending) upstream.write(chunk);
      },
      data: (client, chunk) => void pipe(client.data.peer, chunk, client.data.pending),
      close: (client) => void client.data.peer?.end(),
      error: (client) => void client.data.peer?.end(),
    },
  });
  return {
    port: listener.port,
    cut: () => {
      for (const socket of open) socket.terminate();
      open.clear();
    },
    stop: () => listener.stop(true),
  };
}

// The world.

let server: TestServer;
let local: ReturnType<typeof Bun.serve>;
let org: Org;
let dev: Person;
let viewer: Person;
let outsider: Person;
let live: Listener;
let spaceId: string;
let tunnelId: string;
const running: Connector[] = [];

const automations = () => `/api/v1/organizations/${org.id}/spaces/${spaceId}/automations`;
const tunnelUrl = (path = "", id = tunnelId) => `${server.url}/tunnels/${id}/${path}`;
const as = (person: Person, init: RequestInit = {}) => ({
  ...init,
  headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${person.token}` },
});

async function createTunnel(status = "active", kind = "reverse_tunnel"): Promise<string> {
  const res = await dev.api.post(automations(), { name: `Preview ${Math.random()}`, kind, status });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body.automation.id;
}

async function runsOf(id: string): Promise<any[]> {
  const res = await dev.api.get(`${automations()}/${id}/runs`);
  expect(res.status).toBe(200);
  return res.body.runs;
}

function connect(id: string, token = dev.token, via: "env" | "stdin" | "flag" = "env", at = server.url) {
  const c = connector(at, id, token, `http://127.0.0.1:${local.port}`, via);
  running.push(c);
  return c;
}

beforeAll(async () => {
  local = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 60, fetch: serveLocally });
  server = await startTestServer({ env: { TANDEM_TUNNEL_ANSWER_TIMEOUT_SEC: "1" } });
  org = await setupOrg(server);
  dev = await addMember(org, ["Member"], "Dana Dev");
  viewer = await addMember(org, ["Viewer"], "Vic Viewer");
  outsider = await addMember(org, ["Member"], "Otto Outsider");
  // A private space: the outsider, a member of the organization, does not see it.
  spaceId = (await dev.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Preview", private: true })).body.id;
  const added = await dev.api.post(`/api/v1/organizations/${org.id}/spaces/${spaceId}/members`, {
    user_id: viewer.id,
  });
  expect(added.status).toBe(201);
  live = await listen(server.url, org.id, dev.token);
  tunnelId = await createTunnel();
});

afterAll(async () => {
  for (const c of running) c.proc.kill("SIGKILL");
  live?.close();
  await server?.stop();
  local?.stop(true);
});

describe("/tunnels/{automationId}/… without a connector", () => {
  it("answers 502 tunnel not connected", async () => {
    const res = await fetch(tunnelUrl("echo"), as(viewer));
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ error: "tunnel not connected" });
  });
});

describe("POST .../automations/{id}/tunnel-link", () => {
  // The server runs in this process: its clock is moved for one request. No connector is up yet, whose
  // heartbeat would count the jump as silence.
  const openAfter = async (ms: number) => {
    const asked = await viewer.api.post(`${automations()}/${tunnelId}/tunnel-link`);
    expect(asked.status).toBe(200);
    setSystemTime(new Date(Date.now() + ms));
    try {
      return await fetch(asked.body.url, { redirect: "manual" });
    } finally {
      setSystemTime();
    }
  };

  it("answers a link that works for 5 minutes", async () => {
    const opened = await openAfter(5 * 60 * 1000 - 2000);
    expect(opened.status).toBe(303);
    expect(opened.headers.get("set-cookie")).toStartWith("tandem_tunnel=");
  });

  it("answers 401 for a link opened after 5 minutes", async () => {
    const late = await openAfter(5 * 60 * 1000 + 1000);
    expect(late.status).toBe(401);
    expect(await late.json()).toEqual({ error: "this tunnel link was used or has expired: ask for a new one" });
    expect(late.headers.get("set-cookie")).toBeNull();
  });
});

describe("a connected tunnel", () => {
  let tunnel: Connector;
  let hello: Record<string, any>;

  beforeAll(async () => {
    tunnel = connect(tunnelId);
    hello = await tunnel.connected();
  });

  it("says where it is reached and which run it is", () => {
    expect(hello).toMatchObject({ event: "connected", url: tunnelUrl(), to: `http://127.0.0.1:${local.port}` });
    expect(hello.run_id).toMatch(UUID);
  });

  it("relays a GET with its path and query, without Tandem's credentials, saying who asks", async () => {
    const res = await fetch(tunnelUrl("echo?b=2&a=%20x"), {
      ...as(viewer),
      headers: {
        authorization: `Bearer ${viewer.token}`,
        cookie: "tandem_tunnel=not-for-you; theme=dark",
        "x-tandem-user-id": "someone-else",
        "x-forwarded-for": "10.9.9.9",
        "x-custom": "kept",
      },
    });
    expect(res.status).toBe(200);
    const seen = await res.json();
    expect(seen).toMatchObject({ method: "GET", path: "/echo", query: "?b=2&a=%20x", body: null });
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.headers.cookie).toBe("theme=dark");
    expect(seen.headers["x-custom"]).toBe("kept");
    expect(seen.headers["x-tandem-user-id"]).toBe(viewer.id);
    expect(seen.headers["x-forwarded-for"]).toBe("127.0.0.1");
    expect(seen.headers["x-forwarded-prefix"]).toBe(`/tunnels/${tunnelId}`);
    expect(seen.headers["x-forwarded-host"]).toBe(new URL(server.url).host);
    expect(seen.headers.host).toBe(`127.0.0.1:${local.port}`);
  });

  it("relays a POST's body and the answer's, with their types", async () => {
    const res = await fetch(tunnelUrl("echo"), {
      ...as(dev, { method: "POST", body: JSON.stringify({ hello: "tunnel" }) }),
      headers: { authorization: `Bearer ${dev.token}`, "content-type": "application/json" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    const seen = await res.json();
    expect(seen).toMatchObject({ method: "POST", body: '{"hello":"tunnel"}' });
    expect(seen.headers["content-type"]).toBe("application/json");
    for (const method of ["PUT", "PATCH", "DELETE"]) {
      const other = await fetch(tunnelUrl("echo"), as(dev, { method, body: method }));
      expect((await other.json()).method).toBe(method);
    }
    const head = await fetch(tunnelUrl("echo"), as(dev, { method: "HEAD" }));
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("streams a large download: the first bytes arrive before the service has made the rest", async () => {
    await service.expectStreamedDownload(await fetch(tunnelUrl("big"), as(viewer)));
  });

  it("streams a large upload: the service has the first bytes before the visitor sent the rest", async () => {
    await service.expectStreamedUpload(tunnelUrl("upload"), as(dev), 16 * MiB);
  });

  it("passes a compressed answer as it is, for the visitor to decode", async () => {
    const res = await fetch(tunnelUrl("gzip"), as(dev, { headers: { "accept-encoding": "gzip" } }));
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(await res.text()).toBe("squeezed ".repeat(1000));
  });

  it("keeps the service's redirects and cookies inside the tunnel, drops what reaches beyond it, sandboxes pages", async () => {
    const res = await fetch(tunnelUrl("beyond"), { ...as(dev), redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`/tunnels/${tunnelId}/echo?from=absolute`);
    expect(res.headers.getSetCookie()).toEqual([
      `prefs=dark; Path=/tunnels/${tunnelId}/; HttpOnly`,
      `cart=1; Path=/tunnels/${tunnelId}/shop`,
    ]);
    for (const name of ["strict-transport-security", "clear-site-data", "service-worker-allowed"]) {
      expect(res.headers.get(name)).toBeNull();
    }
    expect(res.headers.get("cache-control")).toBe("private, max-age=60");
    expect(res.headers.get("content-security-policy")).toContain("sandbox allow-");
    expect(res.headers.get("content-security-policy")).not.toContain("allow-same-origin");
    const relative = await fetch(tunnelUrl("relative"), { ...as(dev), redirect: "manual" });
    expect(relative.headers.get("location")).toBe(`/tunnels/${tunnelId}/echo?from=relative`);
    const bare = await fetch(`${server.url}/tunnels/${tunnelId}?x=1`, { ...as(dev), redirect: "manual" });
    expect(bare.status).toBe(308);
    expect(bare.headers.get("location")).toBe(`/tunnels/${tunnelId}/?x=1`);
  });

  it("answers 504 when the service does not answer within the configured time", async () => {
    const started = Date.now();
    const res = await fetch(tunnelUrl("slow"), as(dev));
    expect(res.status).toBe(504);
    expect(await res.json()).toEqual({ error: "tunnel did not answer within 1 s" });
    expect(Date.now() - started).toBeLessThan(2500);
    // The tunnel goes on serving.
    expect((await fetch(tunnelUrl("echo"), as(dev))).status).toBe(200);
  });

  it("lets in members who see the space; answers others as the API would", async () => {
    expect((await fetch(tunnelUrl("echo"))).status).toBe(401);
    expect(await (await fetch(tunnelUrl("echo"))).json()).toEqual({ error: "unauthorized" });
    expect((await fetch(tunnelUrl("echo"), as({ ...viewer, token: "nonsense" }))).status).toBe(401);
    const hidden = await fetch(tunnelUrl("echo"), as(outsider));
    expect(hidden.status).toBe(404);
    expect(await hidden.json()).toEqual({ error: "automation not found" });
    const unknown = await fetch(tunnelUrl("echo", "01a21e55-0000-7000-8000-000000000000"), as(dev));
    expect(unknown.status).toBe(404);
    const other = await createTunnel("active", "scheduled");
    expect((await fetch(tunnelUrl("echo", other), as(dev))).status).toBe(404);
    expect((await fetch(tunnelUrl("echo"), as(viewer))).status).toBe(200);
  });

  it("opens in a browser through a one-time link whose cookie is kept to the tunnel's path", async () => {
    const asked = await viewer.api.post(`${automations()}/${tunnelId}/tunnel-link`);
    expect(asked.status).toBe(200);
    expect(Object.keys(asked.body)).toEqual(["url"]);
    const link = new URL(asked.body.url);
    expect(`${link.origin}${link.pathname}`).toBe(tunnelUrl());
    const opened = await fetch(link, { redirect: "manual" });
    expect(opened.status).toBe(303);
    expect(opened.headers.get("location")).toBe(`/tunnels/${tunnelId}/`);
    const cookie = opened.headers.get("set-cookie") ?? "";
    const attributes = cookie.split("; ").slice(1);
    expect(attributes).toEqual([`Path=/tunnels/${tunnelId}/`, "Max-Age=43200", "HttpOnly", "SameSite=Lax"]);
    const pass = cookie.split(";")[0] as string;
    expect(pass).toStartWith("tandem_tunnel=");
    const res = await fetch(tunnelUrl("echo"), { headers: { cookie: `${pass}; theme=light` } });
    expect(res.status).toBe(200);
    const seen = await res.json();
    expect(seen.headers["x-tandem-user-id"]).toBe(viewer.id);
    expect(seen.headers.cookie).toBe("theme=light");
    // Once only.
    const again = await fetch(link, { redirect: "manual" });
    expect(again.status).toBe(401);
    expect((await again.json()).error).toBe("this tunnel link was used or has expired: ask for a new one");
    // The pass is this tunnel's, and no bearer token anywhere else.
    const other = await createTunnel();
    expect((await fetch(tunnelUrl("echo", other), { headers: { cookie: pass } })).status).toBe(401);
    expect((await fetch(`${server.url}/api/v1/me`, { headers: { cookie: pass } })).status).toBe(401);
    // Over https (as a proxy in front says), the cookie is Secure.
    const secure = await viewer.api.post(`${automations()}/${tunnelId}/tunnel-link`);
    const viaProxy = await fetch(secure.body.url, { redirect: "manual", headers: { "x-forwarded-proto": "https" } });
    expect(viaProxy.headers.get("set-cookie")).toEndWith("; Secure");
  });

  it("refuses a link for what is not a tunnel, or an automation of another space", async () => {
    const scheduled = await createTunnel("draft", "scheduled");
    const res = await dev.api.post(`${automations()}/${scheduled}/tunnel-link`);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("not a reverse_tunnel automation");
    const elsewhere = (await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Other" })).body.id;
    const wrong = await dev.api.post(
      `/api/v1/organizations/${org.id}/spaces/${elsewhere}/automations/${tunnelId}/tunnel-link`,
    );
    expect(wrong.status).toBe(404);
    expect(wrong.body.error).toBe("automation not found");
    const hidden = await outsider.api.post(`${automations()}/${tunnelId}/tunnel-link`);
    expect(hidden.status).toBe(404);
  });

  it("refuses another member's connector while this one is up", async () => {
    const teammate = await addMember(org, ["Member"], "Tia Teammate");
    await dev.api.post(`/api/v1/organizations/${org.id}/spaces/${spaceId}/members`, { user_id: teammate.id });
    const other = connect(tunnelId, teammate.token);
    const { code, stderr } = await other.exited;
    expect(code).toBe(1);
    expect(stderr).toBe("tandem: the server refused the tunnel: tunnel already connected by another member\n");
    expect((await fetch(tunnelUrl("echo"), as(dev))).status).toBe(200);
  });

  it("is a run while connected: running, its trigger the connection, last_run_at set, announced live", async () => {
    const [run] = await runsOf(tunnelId);
    expect(run).toMatchObject({
      id: hello.run_id,
      automation_id: tunnelId,
      trigger: "connection",
      status: "running",
      attempt: 1,
      finished_at: null,
      output: null,
      error: null,
    });
    expect(run.started_at).toMatch(TIMESTAMP);
    const automation = (await dev.api.get(`${automations()}/${tunnelId}`)).body.automation;
    expect(automation.last_run_at).toBe(run.started_at);
    await eventually(
      () => live.events.some((e) => e.type === "automation.run.started" && e.payload.id === hello.run_id),
      "automation.run.started",
    );
  });
});

describe("the connection's end", () => {
  it("pausing closes it at once: the connector exits saying why, the run succeeds with its requests", async () => {
    const id = await createTunnel();
    const tunnel = connect(id);
    const { run_id } = await tunnel.connected();
    for (let i = 0; i < 3; i++) expect((await fetch(tunnelUrl("echo", id), as(dev))).status).toBe(200);
    const paused = await dev.api.patch(`${automations()}/${id}`, { status: "paused" });
    expect(paused.status).toBe(200);
    // At once: not relayed while the connector's socket is still closing.
    const right = await fetch(tunnelUrl("echo", id), as(dev));
    expect(right.status).toBe(502);
    expect(await right.json()).toEqual({ error: "tunnel not connected" });
    const { code, stderr } = await tunnel.exited;
    expect(code).toBe(1);
    expect(stderr).toBe("tandem: the server closed the tunnel: automation is not active\n");
    const [run] = await runsOf(id);
    expect(run).toMatchObject({ id: run_id, status: "succeeded", output: { requests: 3 }, error: null });
    expect(run.finished_at).toMatch(TIMESTAMP);
    await eventually(
      () => live.events.some((e) => e.type === "automation.run.finished" && e.payload.id === run_id),
      "automation.run.finished",
    );
    const res = await fetch(tunnelUrl("echo", id), as(dev));
    expect(res.status).toBe(502);
  });

  it("deleting closes it, and the connector says the automation is gone", async () => {
    const id = await createTunnel();
    const tunnel = connect(id);
    await tunnel.connected();
    expect((await dev.api.delete(`${automations()}/${id}`)).status).toBe(204);
    const { code, stderr } = await tunnel.exited;
    expect(code).toBe(1);
    expect(stderr).toBe("tandem: the server closed the tunnel: automation not found\n");
  });

  it("closes when its owner can no longer see the space, and the run fails saying so", async () => {
    const leaving = await addMember(org, ["Member"], "Lee Leaving");
    await dev.api.post(`/api/v1/organizations/${org.id}/spaces/${spaceId}/members`, { user_id: leaving.id });
    const id = await createTunnel();
    const tunnel = connect(id, leaving.token, "flag");
    const { run_id } = await tunnel.connected();
    const removed = await dev.api.delete(`/api/v1/organizations/${org.id}/spaces/${spaceId}/members/${leaving.id}`);
    expect(removed.status).toBe(204);
    const { code, stderr } = await tunnel.exited;
    expect(code).toBe(1);
    expect(stderr).toBe("tandem: the server closed the tunnel: automation not found\n");
    const [run] = await runsOf(id);
    expect(run).toMatchObject({ id: run_id, status: "failed", error: "automation not found", output: { requests: 0 } });
    expect((await dev.api.get(`${automations()}/${id}`)).body.automation.last_error).toBe("automation not found");
  });

  it("a newer connector replaces the older, which exits saying so", async () => {
    const id = await createTunnel();
    const first = connect(id);
    const { run_id: firstRun } = await first.connected();
    const second = connect(id, dev.token, "stdin");
    const { run_id: secondRun } = await second.connected();
    const { code, stderr } = await first.exited;
    expect(code).toBe(1);
    expect(stderr).toBe("tandem: the server closed the tunnel: replaced by a newer connector\n");
    const seen = await fetch(tunnelUrl("echo", id), as(dev));
    expect(seen.status).toBe(200);
    const runs = await runsOf(id);
    expect(runs.find((r) => r.id === firstRun)).toMatchObject({ status: "succeeded", error: null });
    expect(runs.find((r) => r.id === secondRun)).toMatchObject({ status: "running" });
    await second.stop();
    expect((await second.exited).code).toBe(0);
    await eventually(() => second.events.some((e) => e.event === "stopped"), "the stopped event");
    const [last] = await runsOf(id);
    expect(last).toMatchObject({ id: secondRun, status: "succeeded", output: { requests: 1 } });
  });

  it("reconnects with backoff when the connection drops, as a new run", async () => {
    const id = await createTunnel();
    const relay = cuttableRelay(Number(new URL(server.url).port));
    try {
      const tunnel = connect(id, dev.token, "env", `http://127.0.0.1:${relay.port}`);
      const { run_id: before } = await tunnel.connected();
      relay.cut();
      const { run_id: after } = await tunnel.connected(2);
      expect(after).not.toBe(before);
      const dropped = tunnel.events.find((e) => e.event === "disconnected");
      expect(dropped?.retry_in_ms).toBeGreaterThanOrEqual(800);
      expect((await fetch(tunnelUrl("echo", id), as(dev))).status).toBe(200);
      const runs = await runsOf(id);
      expect(runs.find((r) => r.id === before)).toMatchObject({ status: "failed" });
      expect(runs.find((r) => r.id === before).error).toStartWith("the connection was lost");
      expect(runs.find((r) => r.id === after)).toMatchObject({ status: "running" });
      await tunnel.stop();
    } finally {
      relay.stop();
    }
  });
});

describe("tandem tunnel refused", () => {
  const refused = async (id: string, token: string, message: string) => {
    const tunnel = connect(id, token);
    const { code, stderr } = await tunnel.exited;
    expect(code).toBe(1);
    expect(stderr).toBe(`tandem: the server refused the tunnel: ${message}\n`);
  };

  it("exits with the server's reason: a bad token, no permission, not a tunnel, not active, unknown", async () => {
    await refused(tunnelId, "not-a-token", "unauthorized");
    await refused(tunnelId, viewer.token, "missing permission: files.write");
    await refused(tunnelId, outsider.token, "automation not found");
    await refused(await createTunnel("active", "scheduled"), dev.token, "not a reverse_tunnel automation");
    await refused(await createTunnel("paused"), dev.token, "automation is not active");
    await refused("01a21e55-0000-7000-8000-000000000000", dev.token, "automation not found");
  });

  it("needs a token, an automation id and an http(s) service", async () => {
    const run = async (args: string[], env: Record<string, string> = {}) => {
      const proc = Bun.spawn([...cliCommand("source"), "tunnel", ...args], {
        env: cleanEnv(env),
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      return { code: await proc.exited, stderr: await new Response(proc.stderr).text() };
    };
    const base = ["--server", server.url, "--automation", tunnelId];
    const noToken = await run([...base, "--to", "http://127.0.0.1:1"]);
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toContain(
      "a token is needed: --token TOKEN, --token - (read from standard input) or TANDEM_TOKEN",
    );
    const ftp = await run([...base, "--to", "ftp://127.0.0.1:21"], { TANDEM_TOKEN: "x" });
    expect(ftp.code).not.toBe(0);
    expect(ftp.stderr).toContain("must be an http(s) URL");
    const badId = await run(["--server", server.url, "--automation", "42", "--to", "http://127.0.0.1:1"]);
    expect(badId.stderr).toContain("must be an automation id");
    const help = Bun.spawnSync([...cliCommand("source"), "tunnel", "--help"], { env: cleanEnv() });
    const text = help.stdout.toString();
    expect(text).toContain("TANDEM_TOKEN");
    expect(text).toContain("standard input");
    expect(text).toContain("shows in `ps`");
  });
});

describe("connectors", () => {
  it("a staff member's sa_ token connects too, given files.write in the space", async () => {
    const staff = await addStaff(org, { name: "Previewer" });
    await dev.api.post(`/api/v1/organizations/${org.id}/spaces/${spaceId}/members`, { user_id: staff.account.user_id });
    const id = await createTunnel();
    const tunnel = connect(id, staff.token);
    await tunnel.connected();
    const seen = await fetch(tunnelUrl("echo", id), as(viewer));
    expect(seen.status).toBe(200);
    await tunnel.stop();
    expect((await tunnel.exited).code).toBe(0);
  });

  it("speaks the protocol: hello with a resume token good for this tunnel alone, and a bad frame closes it", async () => {
    const id = await createTunnel();
    const connectUrl = `${server.url}/api/v1/tunnels/${id}/connect`;
    const ws = new WebSocket(connectUrl.replace(/^http/, "ws"), {
      headers: { authorization: `Bearer ${dev.token}` },
    } as unknown as string[]);
    ws.binaryType = "arraybuffer";
    const hello = await new Promise<any>((resolve) => {
      ws.onmessage = (event) => resolve(JSON.parse(event.data as string));
    });
    expect(hello).toMatchObject({ type: "hello", automation_id: id, url: tunnelUrl("", id) });
    expect(hello.resume).toStartWith("tnr_");
    const ask = (url: string, token: string) => fetch(url, { headers: { authorization: `Bearer ${token}` } });
    const resumed = await ask(connectUrl, hello.resume);
    expect(resumed.status).toBe(400);
    expect(await resumed.json()).toEqual({ error: "websocket upgrade required" });
    expect((await ask(connectUrl, `${hello.resume}x`)).status).toBe(401);
    expect((await ask(`${server.url}/api/v1/tunnels/${tunnelId}/connect`, hello.resume)).status).toBe(401);
    expect((await ask(`${server.url}/api/v1/me`, hello.resume)).status).toBe(401);
    expect((await fetch(tunnelUrl("echo", id), as({ ...dev, token: hello.resume }))).status).toBe(401);
    const closed = new Promise<{ code: number; reason: string }>((resolve) => {
      ws.onclose = (event) => resolve({ code: event.code, reason: event.reason });
    });
    ws.send(new Uint8Array([9, 0, 0, 0, 1]));
    expect(await closed).toEqual({ code: 4400, reason: "unknown frame type 9" });
    let run: any;
    for (let tries = 0; tries < 100 && run?.status !== "failed"; tries++) {
      [run] = await runsOf(id);
      if (run.status !== "failed") await Bun.sleep(20);
    }
    expect(run).toMatchObject({ id: hello.run_id, status: "failed", error: "unknown frame type 9" });
  });

  it("rides out a restart and a crash of the server: each run ends, and it connects again by itself", async () => {
    const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const port = probe.port as number;
    probe.stop(true);
    const dataDir = tempDir();
    const start = () => spawnServer({ dataDir, args: ["--port", String(port)] });
    let child = await start();
    try {
      const o = await setupOrg({
        url: child.url,
        dataDir,
        setupToken: new URL(child.setupUrl as string).searchParams.get("token"),
        logs: child.output,
        stop: async () => undefined,
      });
      const place = `/api/v1/organizations/${o.id}/spaces`;
      const space = (await o.owner.api.post(place, { name: "Restarts" })).body.id;
      const created = await o.owner.api.post(`${place}/${space}/automations`, {
        name: "Preview",
        kind: "reverse_tunnel",
        status: "active",
      });
      const id = created.body.automation.id;
      const runs = async () =>
        (await client(child.url, o.owner.token).get(`${place}/${space}/automations/${id}/runs`)).body.runs;
      const tunnel = connect(id, o.owner.token, "env", child.url);
      const { run_id: first } = await tunnel.connected();
      expect(await child.stop("SIGTERM")).toBe(0);
      child = await start();
      const { run_id: second } = await tunnel.connected(2);
      expect((await runs()).find((r: any) => r.id === first)).toMatchObject({
        status: "succeeded",
        output: { requests: 0 },
      });
      child.proc.kill("SIGKILL");
      await child.proc.exited;
      child = await start();
      const { run_id: third } = await tunnel.connected(3);
      const after = await runs();
      expect(after.find((r: any) => r.id === second)).toMatchObject({
        status: "failed",
        error: "the server stopped while the tunnel was connected",
        output: null,
      });
      expect(after.find((r: any) => r.id === third)).toMatchObject({ status: "running" });
      expect((await fetch(`${child.url}/tunnels/${id}/echo`, as(o.owner))).status).toBe(200);
      await tunnel.stop();
    } finally {
      await child.stop();
    }
  });
});

describe("tunnel pages in a browser", () => {
  let child: SpawnedServer;
  let childOrg: Org;
  let childTunnel: string;
  let browser: import("playwright-core").Browser;
  let port: number;

  beforeAll(async () => {
    const { launchBrowser } = await import("../helpers/browser");
    const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    port = probe.port as number;
    probe.stop(true);
    // Tandem at 127.0.0.1, its tunnels at localhost: two origins (two sites) of one server.
    child = await spawnServer({
      dataDir: tempDir(),
      args: ["--port", String(port)],
      env: { TANDEM_TUNNEL_ORIGIN: `http://localhost:${port}` },
    });
    childOrg = await setupOrg({
      url: child.url,
      dataDir: "",
      setupToken: new URL(child.setupUrl as string).searchParams.get("token"),
      logs: child.output,
      stop: async () => undefined,
    });
    const space = (await childOrg.owner.api.post(`/api/v1/organizations/${childOrg.id}/spaces`, { name: "Web" })).body
      .id;
    const created = await childOrg.owner.api.post(`/api/v1/organizations/${childOrg.id}/spaces/${space}/automations`, {
      name: "Preview",
      kind: "reverse_tunnel",
      status: "active",
    });
    childTunnel = created.body.automation.id;
    const tunnel = connect(childTunnel, childOrg.owner.token, "env", child.url);
    expect((await tunnel.connected()).url).toBe(`http://localhost:${port}/tunnels/${childTunnel}/`);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await child?.stop();
  });

  const linkTo = async (path: string) => {
    const res = await childOrg.owner.api.post(
      `/api/v1/organizations/${childOrg.id}/spaces/${(await childOrg.owner.api.get(`/api/v1/organizations/${childOrg.id}/spaces`)).body.spaces.find((s: { name: string }) => s.name === "Web").id}/automations/${childTunnel}/tunnel-link`,
    );
    const url = new URL(res.body.url);
    url.pathname += path;
    return url;
  };

  /** A page whose web UI on Tandem's origin holds a session, as a signed-in browser's does. */
  const withSession = async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${child.url}/api/docs`);
    await page.evaluate(() => localStorage.setItem("tandem.session", '{"refresh_token":"rt_secret"}'));
    return { context, page };
  };

  it("on the tunnel origin: the page loads its scripts, styles and calls as the visitor, and cannot read Tandem's storage", async () => {
    const { context, page } = await withSession();
    const link = await linkTo("page");
    expect(link.origin).toBe(`http://localhost:${port}`);
    await page.goto(link.href);
    await page.waitForFunction(() => document.title !== "loading", null, { timeout: 15_000 });
    expect(page.url()).toBe(`http://localhost:${port}/tunnels/${childTunnel}/page`);
    expect(await page.title()).toBe(`session=null api=200:${childOrg.owner.id} color=rgb(1, 2, 3)`);
    // The tunnel origin serves tunnels alone: no web UI, no API there.
    for (const path of ["/", "/spaces", "/api/v1/me"]) {
      expect((await fetch(`http://localhost:${port}${path}`)).status).toBe(404);
    }
    await context.close();
  });

  it("on Tandem's own origin: the page runs sandboxed, away from the web UI's session", async () => {
    const { context, page } = await withSession();
    const link = await linkTo("inline");
    // The same link, opened on Tandem's origin rather than the tunnel origin.
    await page.goto(`${child.url}${link.pathname}${link.search}`);
    await page.waitForFunction(() => document.title !== "loading", null, { timeout: 15_000 });
    expect(page.url()).toBe(`${child.url}/tunnels/${childTunnel}/inline`);
    expect(await page.title()).toBe("session=SecurityError cookie=SecurityError");
    await context.close();
  });
});
