/**
 * Reverse tunnels (contract §8): the connector's WebSocket, the one-time link a browser opens a tunnel with,
 * and `/tunnels/{automationId}/…`, relayed to the connector. Their callers are checked by the macro below, as
 * the permission macro checks the API's: the tunnel paths name no organization or space, and a browser proves
 * who it is there with the tunnel's cookie rather than a bearer token.
 */
import type { ServerWebSocket } from "bun";
import { Elysia } from "elysia";
import { z } from "zod";
import { notFound } from "../../core/errors";
import type { Need } from "../../core/permissions";
import type { AuthMacro } from "../../http/auth";
import { clientAddress } from "../../http/base";
import { doc } from "../../http/docs";
import { noBodyIn } from "../../http/schemas";
import { assertUpgradable, takeFrames, upgradeRequired } from "../../http/sockets";
import type { Logger } from "../../lib/log";
import { NODE_TUNNEL_PREFIX } from "./tunnels.nodes";
import { TUNNEL_PREFIX } from "./tunnels.policy";
import type { Admission, TunnelsService, Visit } from "./tunnels.service";

/** Route metadata for the docs and the default-deny test; Elysia types `detail` as an OpenAPI operation. */
const mark = (meta: Record<string, unknown>) => meta as Record<string, unknown>;

/** Distinguishes the macro of each app built in one process (Elysia dedupes plugins by name and seed). */
let instances = 0;

const VISIT_ACCESS =
  "A member who sees the automation's space and holds `files.read`: with a bearer token, or in a browser with the tunnel's cookie (from a one-time link)";
const CONNECT_ACCESS =
  "A person or staff member holding `files.write` in the automation's space: an access token, an `sa_` token, or the resume token of an earlier connection";
const NODE_ACCESS =
  "Another node of this install on the same PostgreSQL database, its request signed with the shared JWT_SECRET; anyone else gets 404";

/**
 * The macro of the tunnel routes: `tunnelVisitor` (a one-time link, the tunnel's cookie or a bearer token) and
 * `tunnelConnector` (a bearer token or a resume token), each naming the permission it needs in the automation's
 * space. The check runs in `transform`, before the route's handler, as the permission macro's does.
 */
function tunnelMacro(tunnels: TunnelsService) {
  const resolved = new WeakMap<Request, unknown>();
  const take = <T>(request: Request) => resolved.get(request) as T;
  return new Elysia({ name: "tunnel-macro", seed: ++instances }).macro({
    tunnelVisitor: (need: Need) => ({
      detail: mark({ "x-permission": need, "x-access": VISIT_ACCESS }),
      transform: async ({ params, request }) => {
        const { automationId } = params as { automationId: string };
        resolved.set(request, await tunnels.visit(request, automationId, need));
      },
      resolve: ({ request }) => ({ visit: take<Visit>(request) }),
    }),
    tunnelConnector: (need: Need) => ({
      detail: mark({ "x-permission": need, "x-access": CONNECT_ACCESS }),
      transform: async ({ params, request }) => {
        const { automationId } = params as { automationId: string };
        resolved.set(request, await tunnels.admit(request, automationId, need));
      },
      resolve: ({ request }) => ({ admission: take<Admission>(request) }),
    }),
    /** A request of another node (tunnels.nodes.ts): from anyone else, the route does not exist. */
    tunnelNode: (_enabled: true) => ({
      detail: mark({ "x-public": true, "x-access": NODE_ACCESS }),
      transform: ({ request }) => {
        if (!tunnels.fromNode(request)) throw notFound("page not found");
      },
    }),
  });
}

const raw = (ws: { raw: unknown }) => ws.raw as ServerWebSocket<unknown>;

export function tunnelsRoutes(auth: AuthMacro, tunnels: TunnelsService, log: Logger) {
  const relay = ({ visit, request, server, set }: { visit: Visit; request: Request; server: unknown; set: object }) =>
    tunnels.relay(visit, request, clientAddress({ server: server as never, request, set }));
  return (
    new Elysia()
      .use(auth)
      .use(tunnelMacro(tunnels))
      // The tunnel origin serves tunnels and nothing else: the web UI there would keep its session where tunnel
      // pages can read it.
      .onRequest(({ request }) => {
        if (!tunnels.onTunnelOrigin(request)) return;
        const path = new URL(request.url).pathname;
        if (!path.startsWith(TUNNEL_PREFIX)) throw notFound("page not found");
      })
      .post(
        "/api/v1/organizations/:orgId/spaces/:spaceId/automations/:automationId/tunnel-link",
        ({ actor, params, request }) => ({ url: tunnels.link(actor, params.automationId, request) }),
        {
          space: "files.read",
          body: noBodyIn,
          detail: doc(
            "A one-time link (valid 5 minutes) that opens the tunnel in a browser as the caller: it sets the tunnel's cookie and leads to `/tunnels/{automationId}/`",
            () => ({ 200: z.object({ url: z.string() }), 400: "`not a reverse_tunnel automation`" }),
          ),
        },
      )
      .ws("/api/v1/tunnels/:automationId/connect", {
        tunnelConnector: "files.write",
        beforeHandle: ({ request }: { request: Request }) => assertUpgradable(request),
        open: (ws) => {
          takeFrames(raw(ws), (socket, frame) => tunnels.message(socket, frame), log);
          tunnels.open(raw(ws), (ws.data as { admission: Admission }).admission);
        },
        close: (ws, code) => tunnels.closed(raw(ws), code),
        detail: doc(
          "The connector of a `reverse_tunnel` automation (`tandem tunnel`): while this socket is open and the automation active, `/tunnels/{automationId}/…` is relayed over it (the framing: docs/api.md, Reverse tunnels). A member's newer connector replaces their older one; another member's is refused while it is up",
          () => ({
            400: "`not a reverse_tunnel automation`; a plain GET, without the upgrade: `websocket upgrade required`",
            409: "`automation is not active`; `tunnel already connected by another member`",
            429: "`too many open tunnel connectors: at most 20 per person`",
          }),
        ),
      })
      .get("/api/v1/tunnels/:automationId/connect", () => upgradeRequired(), {
        tunnelConnector: "files.write",
        detail: { hide: true },
      })
      // Below the prefix, anything: the local service's paths, every method. Not in the OpenAPI document (a
      // path of any depth is not something it can say); docs/api.md describes it.
      .all("/tunnels/:automationId", relay, { tunnelVisitor: "files.read", detail: { hide: true } })
      .all("/tunnels/:automationId/*", relay, { tunnelVisitor: "files.read", detail: { hide: true } })
      // A visit another node took, carried to this node, which holds the tunnel's connector.
      .post(
        `${NODE_TUNNEL_PREFIX}:automationId`,
        ({ params, request }) => tunnels.relayForNode(request, params.automationId),
        {
          tunnelNode: true,
          detail: { hide: true },
        },
      )
  );
}
