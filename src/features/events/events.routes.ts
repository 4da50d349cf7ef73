/** The live-events socket of an organization (contract §5). */
import type { ServerWebSocket } from "bun";
import { Elysia } from "elysia";
import type { OrgActor } from "../../core/actor";
import type { AuthMacro } from "../../http/auth";
import { doc } from "../../http/docs";
import { assertUpgradable, takeFrames, upgradeRequired } from "../../http/sockets";
import type { Logger } from "../../lib/log";
import type { LiveEvents } from "./events.live";

export function eventsRoutes(auth: AuthMacro, live: LiveEvents, log: Logger) {
  return new Elysia({ prefix: "/api/v1/organizations/:orgId" })
    .use(auth)
    .ws("/ws", {
      urlToken: true,
      permission: "member",
      beforeHandle: ({ request, actor }) => {
        assertUpgradable(request);
        live.assertRoomFor(actor.userId);
      },
      open: (ws) => {
        const socket = ws.raw as ServerWebSocket<unknown>;
        // Nothing is read from the client: the socket only delivers.
        takeFrames(socket, () => undefined, log);
        live.open(socket, (ws.data as { actor: OrgActor }).actor);
      },
      close: (ws) => live.closed(ws.raw as ServerWebSocket<unknown>),
      detail: doc(
        "Live events: `{type, organization_id, space_id, payload}` for every change in a space the caller can see; the payload is what the REST route answers for the same thing",
        () => ({
          400: "A plain GET, without the upgrade: `websocket upgrade required`",
          429: "`too many open live-event sockets: at most 50 per person`",
        }),
      ),
    })
    .get("/ws", () => upgradeRequired(), { permission: "member", detail: { hide: true } });
}
