/**
 * Reverse tunnels (contract §8): a connector (`tandem tunnel`) holds a WebSocket open for an active
 * `reverse_tunnel` automation, and `/tunnels/{automationId}/…` is relayed to it while it does. One connector per
 * automation: a newer one of the same member replaces the older (a connector that lost its network reconnects
 * before the server notices the old socket is dead; refusing it would lock it out until then); another member's
 * is refused while it is up. Each connection is a run of the automation. Pausing or deleting the automation,
 * or its owner losing access, closes the connection at once. With several nodes on PostgreSQL, these hold across
 * nodes, and a visit reaching a node without the connector is carried to the one that has it (tunnels.nodes.ts).
 */
import type { ServerWebSocket } from "bun";
import type { Access, AccessChanges, Authenticator } from "../../core/access";
import type { Principal, SpaceActor } from "../../core/actor";
import { AppError, conflict, invalid, notFound, unauthenticated } from "../../core/errors";
import type { EventBus } from "../../core/events";
import type { Need } from "../../core/permissions";
import { credential } from "../../http/auth";
import { publicOrigin } from "../../http/origin";
import { closeFor, OpenSockets, type Sessions } from "../../http/sockets";
import { isUuid } from "../../lib/ids";
import type { ConnectionRuns } from "../automations/automations.connections";
import { type Answer, Connection, type ExchangeOptions, notConnected, type TunnelPlace } from "./tunnels.connection";
import type { Holder, TunnelNodes } from "./tunnels.nodes";
import { TunnelPasses, VISIT_TTL_MS } from "./tunnels.passes";
import {
  forwardedRequestHeaders,
  LINK_PARAM,
  onTunnelOrigin,
  passCookie,
  passOf,
  TUNNEL_PREFIX,
  tunnelRoot,
  visitorResponseHeaders,
} from "./tunnels.policy";
import { ProtocolError, type RequestHead } from "./tunnels.protocol";

/** What the tunnels are told of the server's settings. */
export interface TunnelOptions {
  answerTimeoutMs: number;
  /** The separate origin tunnels are served on, or null: Tandem's own, sandboxed. */
  origin: string | null;
  maxBodyBytes: number;
}

/** What the tunnels ask of the rest of the server. */
export interface TunnelDeps {
  runs: ConnectionRuns;
  access: Access;
  auth: Authenticator & Sessions;
  changes: AccessChanges;
  events: EventBus;
  /** The server's token secret, which the passes' key derives from. */
  secret: Uint8Array;
  /** The other nodes on the same PostgreSQL database; null: this process alone (SQLite). */
  nodes?: TunnelNodes | null;
}

/** Who may connect: checked at the upgrade, handed to `open`. */
export interface Admission {
  principal: Principal;
  tunnel: TunnelPlace;
  /** Where visitors reach the tunnel, as the connector is told. */
  url: string;
}

/** Who is visiting, and how they proved it. */
export interface Visit {
  principal: Principal;
  tunnel: TunnelPlace;
  /** `link`: a one-time link, answered with the cookie and a redirect rather than relayed. */
  via: "link" | "cookie" | "bearer";
  /** Whether the automation is `active`: only then is the tunnel relayed (contract §8). */
  active: boolean;
}

/** Connectors one person may have open (one per automation): room for a few services each, and a bound. */
export const MAX_CONNECTORS_PER_USER = 20;
/** How often the server pings a connector, and how long one may stay silent before it counts as gone. */
const PING_MS = 25_000;
const SILENT_MS = 75_000;
/** How often a connected connector is handed a fresh resume token. */
const RESUME_EVERY_MS = 3600 * 1000;

/** Close codes of a connector's socket, beside the 4000 + status of `closeFor` (docs/api.md). */
export const TUNNEL_CLOSE = {
  stopping: 1001,
  notActive: 4409,
  replaced: 4409,
  heldByAnother: 4409,
  deleted: 4404,
  badFrame: 4400,
  silent: 4408,
} as const;

const automationNotFound = () => notFound("automation not found");
const HELD_BY_ANOTHER = "tunnel already connected by another member";

export class TunnelsService {
  private readonly passes: TunnelPasses;
  private readonly connections = new Map<string, Connection>();
  private readonly byWs = new WeakMap<object, Connection>();
  private readonly sockets: OpenSockets<Connection>;
  private readonly resumedAt = new WeakMap<Connection, number>();
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly deps: TunnelDeps,
    private readonly options: TunnelOptions,
  ) {
    this.passes = new TunnelPasses(deps.secret, deps.nodes ?? undefined);
    this.sockets = new OpenSockets(
      deps.changes,
      deps.auth,
      (connection) => this.recheck(connection),
      MAX_CONNECTORS_PER_USER,
      "tunnel connectors",
    );
    // After the commit: a paused, sent back or deleted automation's connector is closed at once.
    deps.events.subscribe((event) => {
      if (event.type === "automation.updated" && event.payload.status !== "active") {
        this.connections.get(event.payload.id)?.close(TUNNEL_CLOSE.notActive, "automation is not active", null);
      } else if (event.type === "automation.deleted") {
        this.connections.get(event.payload.id)?.close(TUNNEL_CLOSE.deleted, "automation not found", null);
      }
    }, "everywhere");
    // A newer connector of the same member connected through another node: this one is replaced.
    deps.nodes?.onTaken((automationId, runId) => {
      const connection = this.connections.get(automationId);
      if (connection && connection.runId !== runId) {
        connection.close(TUNNEL_CLOSE.replaced, "replaced by a newer connector", null);
      }
    });
  }

  /**
   * The serving process starts: runs its previous process left `running` end (with other nodes: the runs no live
   * node holds), and connectors get pinged.
   */
  start(): void {
    this.endLeftRunning();
    this.timer = setInterval(() => this.heartbeat(), PING_MS);
    this.timer.unref?.();
  }

  private endLeftRunning(): void {
    const nodes = this.deps.nodes;
    this.deps.runs.endLeftRunning(nodes ? () => nodes.heldRuns() : undefined);
  }

  /** The server stops: every connector is closed (they reconnect to the next one), and their runs end. */
  closeAll(): void {
    if (this.timer) clearInterval(this.timer);
    for (const connection of [...this.connections.values()]) {
      connection.close(TUNNEL_CLOSE.stopping, "server stopping", null);
    }
  }

  // Connectors

  /**
   * Who may connect the tunnel of `automationId`, as its upgrade (and the plain GET beside it) is checked: a
   * token (access, `sa_`, or the resume token of an earlier connection) of someone with `need` in the
   * automation's space; a `reverse_tunnel`; `active`.
   */
  async admit(request: Request, automationId: string, need: Need): Promise<Admission> {
    const id = automationId.toLowerCase();
    if (!isUuid(id)) throw automationNotFound();
    // The `Authorization` header alone: the connector is no browser, and a token in a URL ends up in logs.
    const principal = await this.connectorOf(credential(request), id);
    const automation = this.reach(principal, id, need);
    if (automation.kind !== "reverse_tunnel") throw invalid("not a reverse_tunnel automation");
    if (automation.status !== "active") throw conflict("automation is not active");
    if (this.heldByAnother(id, principal) || this.deps.nodes?.heldByAnother(id, principal.userId)) {
      throw conflict(HELD_BY_ANOTHER);
    }
    this.sockets.assertRoomFor(principal.userId);
    return { principal, tunnel: placeOf(automation), url: `${this.originOf(request)}${tunnelRoot(id)}` };
  }

  /** A connector's socket opened: its run starts, and it replaces any older connector of the automation. */
  open(ws: ServerWebSocket<unknown>, { principal, tunnel, url }: Admission): void {
    // Another member connected it between the check at the upgrade and now.
    if (this.heldByAnother(tunnel.id, principal)) {
      ws.close(TUNNEL_CLOSE.heldByAnother, HELD_BY_ANOTHER);
      return;
    }
    let run: ReturnType<ConnectionRuns["start"]>;
    try {
      // With other nodes: taken in the run's own transaction, unless another member's connector holds it there.
      run = this.deps.runs.start(tunnel.id, (started) => {
        if (this.deps.nodes && !this.deps.nodes.claim(tunnel.id, principal.userId, started.id)) {
          throw conflict(HELD_BY_ANOTHER);
        }
      });
    } catch (error) {
      if (!(error instanceof AppError) || error.message !== HELD_BY_ANOTHER) throw error;
      ws.close(TUNNEL_CLOSE.heldByAnother, HELD_BY_ANOTHER);
      return;
    }
    if (!run) {
      ws.close(TUNNEL_CLOSE.deleted, "automation not found");
      return;
    }
    const connection = new Connection(ws, principal, tunnel, run.id);
    const older = this.connections.get(tunnel.id);
    this.connections.set(tunnel.id, connection);
    this.byWs.set(ws, connection);
    this.sockets.add(connection);
    older?.close(TUNNEL_CLOSE.replaced, "replaced by a newer connector", null);
    this.resumedAt.set(connection, Date.now());
    connection.sendControl({
      type: "hello",
      run_id: run.id,
      automation_id: tunnel.id,
      url,
      resume: this.passes.resumeToken(principal, tunnel.id),
    });
    // Paused between the check at the upgrade and now: its event found no connection to close.
    if (this.deps.runs.automation(tunnel.id)?.status !== "active") {
      connection.close(TUNNEL_CLOSE.notActive, "automation is not active", null);
    }
  }

  message(ws: ServerWebSocket<unknown>, data: unknown): void {
    const connection = this.byWs.get(ws);
    if (!connection) return;
    try {
      connection.receive(data);
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      connection.close(TUNNEL_CLOSE.badFrame, error.message);
    }
  }

  /** The socket closed, whoever closed it: its exchanges fail, its run ends. */
  closed(ws: ServerWebSocket<unknown>, code: number): void {
    const connection = this.byWs.get(ws);
    if (!connection) return;
    this.byWs.delete(ws);
    this.sockets.delete(connection);
    if (this.connections.get(connection.tunnel.id) === connection) this.connections.delete(connection.tunnel.id);
    connection.closed();
    this.deps.runs.end(connection.runId, { requests: connection.requests, error: connection.endError(code) }, () =>
      this.deps.nodes?.release(connection.tunnel.id, connection.runId),
    );
  }

  /**
   * Whether another member's connector holds the tunnel: theirs is not replaced (a member cannot take over a
   * teammate's tunnel while it is up); one's own is (a reconnection after the network changed).
   */
  private heldByAnother(id: string, principal: Principal): boolean {
    const current = this.connections.get(id);
    return current !== undefined && current.userId !== principal.userId;
  }

  /** The principal of a connector's token: a resume token of this tunnel, or what the API takes. */
  private async connectorOf(authorization: string | null, automationId: string): Promise<Principal> {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
    const resumed = token === undefined ? null : this.passes.resumer(token, automationId);
    if (resumed === null) return this.deps.auth.authenticate(authorization);
    if (resumed.sessionId !== undefined && !this.deps.auth.sessionLive(resumed.sessionId)) throw unauthenticated();
    return resumed;
  }

  /** Someone's access changed: their connectors are checked again, and closed with REST's answer if it is gone. */
  private recheck(connection: Connection): void {
    try {
      this.reach(connection.principal, connection.tunnel.id, "files.write");
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      closeFor(connection, error);
    }
  }

  /**
   * Pings every connector; one silent for too long is gone (its network, its machine). With other nodes, the runs
   * of a node that went away (`kill -9`) are ended here, as its own start would have.
   */
  private heartbeat(): void {
    if (this.deps.nodes) {
      try {
        this.endLeftRunning();
      } catch {
        // The database is away for a moment: the next round ends them.
      }
    }
    const now = Date.now();
    for (const connection of this.connections.values()) {
      if (now - connection.lastHeard > SILENT_MS) {
        connection.close(TUNNEL_CLOSE.silent, "connector stopped answering");
        continue;
      }
      connection.sendControl({ type: "ping" });
      if (now - (this.resumedAt.get(connection) ?? 0) >= RESUME_EVERY_MS) {
        this.resumedAt.set(connection, now);
        connection.sendControl({
          type: "resume",
          token: this.passes.resumeToken(connection.principal, connection.tunnel.id),
        });
      }
    }
  }

  // Visitors

  /**
   * A one-time link to the tunnel for the caller (valid 5 minutes): opened in a browser, it sets the tunnel's
   * cookie and leads to the tunnel, as this person. On the tunnel origin when one is configured.
   */
  link(actor: SpaceActor, automationId: string, request: Request): string {
    const automation = this.deps.runs.automation(automationId);
    if (!automation || automation.spaceId !== actor.space.id) throw automationNotFound();
    if (automation.kind !== "reverse_tunnel") throw invalid("not a reverse_tunnel automation");
    const token = this.passes.newLink(actor, automation.id);
    return `${this.originOf(request)}${tunnelRoot(automation.id)}?${LINK_PARAM}=${token}`;
  }

  /** Where tunnels are reached: the tunnel origin, else the origin `request` came to. */
  private originOf(request: Request): string {
    const { proto, host } = publicOrigin(request);
    return this.options.origin ?? `${proto}://${host}`;
  }

  /**
   * Who is visiting `/tunnels/{automationId}/…`: a one-time link's holder, the tunnel's cookie, or a bearer
   * token, who sees the automation's space and holds `need`. Others get what the API would answer: 401, or
   * 404 `automation not found` for an automation they cannot see.
   */
  async visit(request: Request, automationId: string, need: Need): Promise<Visit> {
    const id = automationId.toLowerCase();
    if (!isUuid(id)) throw automationNotFound();
    const { principal, via } = await this.visitorOf(request, id);
    const automation = this.reach(principal, id, need);
    if (automation.kind !== "reverse_tunnel") throw automationNotFound();
    return { principal, tunnel: placeOf(automation), via, active: automation.status === "active" };
  }

  private async visitorOf(request: Request, id: string): Promise<Pick<Visit, "principal" | "via">> {
    const link = new URL(request.url).searchParams.get(LINK_PARAM);
    if (link !== null) {
      const principal = this.passes.takeLink(link, id);
      if (principal === null) throw unauthenticated("this tunnel link was used or has expired: ask for a new one");
      return { principal, via: "link" };
    }
    const pass = passOf(request.headers.get("cookie"));
    const fromPass = pass === null ? null : this.passes.visitor(pass, id);
    if (fromPass !== null && (fromPass.sessionId === undefined || this.deps.auth.sessionLive(fromPass.sessionId))) {
      return { principal: fromPass, via: "cookie" };
    }
    const authorization = request.headers.get("authorization");
    if (authorization === null && fromPass === null && this.crossSiteFromSandbox(request)) {
      throw unauthenticated(
        "unauthorized: a tunnel page's own requests carry no cookie on Tandem's origin; serve tunnels on their own origin (TANDEM_TUNNEL_ORIGIN)",
      );
    }
    return { principal: await this.deps.auth.authenticate(authorization), via: "bearer" };
  }

  /**
   * A request a sandboxed tunnel page made itself (a script, a style, a fetch): browsers send it as cross-site,
   * without the cookie, so it is refused saying why rather than with a bare 401.
   */
  private crossSiteFromSandbox(request: Request): boolean {
    return (
      !onTunnelOrigin(request, this.options.origin) &&
      request.headers.get("sec-fetch-site") === "cross-site" &&
      request.headers.get("sec-fetch-dest") !== "document"
    );
  }

  /**
   * Relays a visit to the connector and answers what it answers, streamed. A one-time link is answered here:
   * the cookie, and a redirect to the same place without the link's token.
   */
  async relay(visit: Visit, request: Request, address: string): Promise<Response> {
    const url = new URL(request.url);
    const id = visit.tunnel.id;
    // What follows `/tunnels/{id}` as the visitor wrote it (the id may have been in capitals).
    const rest = url.pathname.slice(TUNNEL_PREFIX.length + id.length);
    const origin = publicOrigin(request);
    if (visit.via === "link") {
      url.searchParams.delete(LINK_PARAM);
      const pass = this.passes.visitPass(visit.principal, id);
      return new Response(null, {
        status: 303,
        headers: {
          location: `${tunnelRoot(id)}${rest.replace(/^\//, "")}${url.search}`,
          "set-cookie": passCookie(pass, id, VISIT_TTL_MS / 1000, origin.proto === "https"),
        },
      });
    }
    // `/tunnels/{id}`: pages' relative links resolve below the tunnel only from `/tunnels/{id}/`.
    if (rest === "")
      return new Response(null, { status: 308, headers: { location: `${tunnelRoot(id)}${url.search}` } });
    // Paused or deleted a moment ago, its connector's socket closing: not relayed meanwhile.
    const local = visit.active ? this.connections.get(id) : undefined;
    // Held through another node: carried there.
    const holder = visit.active && !local ? (this.deps.nodes?.holder(id) ?? null) : null;
    if ((!local || local.closing) && !holder) throw notConnected();
    const declared = Number(request.headers.get("content-length") ?? 0);
    if (declared > this.options.maxBodyBytes) throw new AppError("too_large", "request body too large");
    const headers = forwardedRequestHeaders(request.headers, {
      proto: origin.proto,
      host: origin.host,
      prefix: `${TUNNEL_PREFIX}${id}`,
      address,
      userId: visit.principal.userId,
    });
    // Without an Accept-Encoding of the visitor's, the service is asked for none: its bytes pass as they are.
    if (!request.headers.has("accept-encoding")) headers.push(["accept-encoding", "identity"]);
    const hasBody = request.body !== null && request.method !== "GET" && request.method !== "HEAD";
    const head: RequestHead = { method: request.method, path: `${rest}${url.search}`, headers, body: hasBody };
    const body = hasBody ? request.body : null;
    const answer = await this.exchange(local ?? (holder as Holder), id, head, body, request.signal);
    return new Response(answer.body, {
      status: answer.status,
      headers: visitorResponseHeaders(answer.headers, id, {
        sandbox: !onTunnelOrigin(request, this.options.origin),
        head: request.method === "HEAD",
      }),
    });
  }

  /** One exchange, over this node's connector or through the node holding it. */
  private exchange(
    via: Connection | Holder,
    id: string,
    head: RequestHead,
    body: ReadableStream<Uint8Array> | null,
    signal: AbortSignal,
  ): Promise<Answer> {
    const options: ExchangeOptions = {
      signal,
      timeoutMs: this.options.answerTimeoutMs,
      maxBodyBytes: this.options.maxBodyBytes,
    };
    if (via instanceof Connection) return via.exchange(head, body, options);
    return (this.deps.nodes as TunnelNodes).forward(via, id, head, body, options);
  }

  /** Whether `request` is another node's, signed for this one (tunnels.nodes.ts); never one from outside. */
  fromNode(request: Request): boolean {
    return this.deps.nodes?.accepts(request) ?? false;
  }

  /**
   * A visit another node carried here, its visitor checked there: relayed over this node's connector as a visit
   * of its own, with the same limits and timeout, and answered framed. Never forwarded again: without the
   * connector here, 502 `tunnel not connected`.
   */
  async relayForNode(request: Request, automationId: string): Promise<Response> {
    const nodes = this.deps.nodes as TunnelNodes;
    const id = automationId.toLowerCase();
    const connection = this.connections.get(id);
    if (!connection || connection.closing) throw notConnected();
    const { head, body } = await nodes.received(request);
    return nodes.answer(await this.exchange(connection, id, head, body, request.signal));
  }

  /** Whether the request came to the tunnel origin, which answers tunnels only. */
  onTunnelOrigin(request: Request): boolean {
    return onTunnelOrigin(request, this.options.origin);
  }

  /**
   * The automation as `principal` may reach it: a member who sees the automation's space and holds `need`. An
   * automation they cannot see answers as one that does not exist.
   */
  private reach(principal: Principal, id: string, need: Need): Automation {
    const automation = this.deps.runs.automation(id);
    if (!automation) throw automationNotFound();
    try {
      this.deps.access.spaceActor(principal, automation.orgId, automation.spaceId, need);
    } catch (error) {
      if (error instanceof AppError && error.kind === "not_found") throw automationNotFound();
      throw error;
    }
    return automation;
  }
}

type Automation = NonNullable<ReturnType<ConnectionRuns["automation"]>>;

const placeOf = (automation: Automation): TunnelPlace => ({
  id: automation.id,
  orgId: automation.orgId,
  spaceId: automation.spaceId,
});
