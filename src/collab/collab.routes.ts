/**
 * The collaborative-editing endpoint (contract §5): the y-websocket protocol on a text file's document, at
 * `.../files/collab/ws/{fileId}` (where the stock client puts the room name) and `.../files/collab/ws?file_id=`.
 */
import type { ServerWebSocket } from "bun";
import { Elysia } from "elysia";
import type { SpaceActor } from "../core/actor";
import { invalid } from "../core/errors";
import type { AuthMacro } from "../http/auth";
import { doc } from "../http/docs";
import { assertUpgradable, takeFrames, upgradeRequired } from "../http/sockets";
import { lowerUuid } from "../lib/ids";
import type { Logger } from "../lib/log";
import type { CollabSockets } from "./collab.sockets";

/** What an upgraded socket carries from its upgrade request. */
interface SocketData {
  actor: SpaceActor;
  fileId: string;
}

/**
 * The upgrade request's context. The file is checked in `beforeHandle`, the first hook that runs after the
 * permission macro has resolved the actor; Elysia runs it twice on a WebSocket route, hence the guard.
 */
interface Upgrade {
  actor: SpaceActor;
  request: Request;
  fileId?: string;
}

/** The `?file_id=` of the route without a path id; a missing one is named, as any missing field. */
function fileIdOf(request: Request): string {
  const id = new URL(request.url).searchParams.get("file_id");
  if (!id) throw invalid("file_id: required");
  return lowerUuid(id);
}

const admit = (collab: CollabSockets, context: Upgrade, fileId: string | undefined): void => {
  if (context.fileId !== undefined) return;
  context.fileId = collab.target(context.actor, fileId);
};

const TOO_MANY = "`too many open editing sockets: at most 100 per person`";

const data = (ws: { data: unknown }) => ws.data as SocketData;
const raw = (ws: { raw: unknown }) => ws.raw as ServerWebSocket<unknown>;

export function collabRoutes(auth: AuthMacro, collab: CollabSockets, log: Logger) {
  const socket = {
    urlToken: true as const,
    space: "files.read" as const,
    open: (ws: { data: unknown; raw: unknown }) => {
      takeFrames(raw(ws), (socket, frame) => collab.message(socket, frame), log);
      collab.open(raw(ws), data(ws).actor, data(ws).fileId);
    },
    close: (ws: { raw: unknown }) => collab.closed(raw(ws)),
  };
  const summary =
    'Edits a text file together: the y-websocket protocol on the document whose `getText("content")` is the file; read-only without `files.write` or for a service account';
  return (
    new Elysia({ prefix: "/api/v1/organizations/:orgId/spaces/:spaceId/files/collab/ws" })
      .use(auth)
      .ws("/:fileId", {
        ...socket,
        beforeHandle: (context: Upgrade & { params: { fileId: string } }) => {
          admit(collab, context, context.params.fileId);
          assertUpgradable(context.request);
        },
        detail: doc(summary, () => ({
          400: "A plain GET, without the upgrade: `websocket upgrade required`",
          429: TOO_MANY,
        })),
      })
      .ws("", {
        ...socket,
        beforeHandle: (context: Upgrade) => {
          admit(collab, context, fileIdOf(context.request));
          assertUpgradable(context.request);
        },
        detail: doc(
          `${summary}; the file is \`?file_id=\``,
          () => ({
            400: "`file_id: required`; a plain GET, without the upgrade: `websocket upgrade required`",
            429: TOO_MANY,
          }),
          {
            query: [{ name: "file_id", description: "The text file to edit", required: true }],
          },
        ),
      })
      // Without an upgrade: the same checks, then 400.
      .get(
        "/:fileId",
        (context) => {
          admit(collab, context, context.params.fileId);
          return upgradeRequired();
        },
        {
          space: "files.read",
          detail: { hide: true },
        },
      )
      .get(
        "",
        (context) => {
          admit(collab, context, fileIdOf(context.request));
          return upgradeRequired();
        },
        {
          space: "files.read",
          detail: { hide: true },
        },
      )
  );
}
