/**
 * The collaborative-editing sockets: who may open which document, and what happens when that changes. The
 * upgrade passes the same checks as REST (token, organization, space, `files.read`, a live text file); a
 * caller without `files.write`, and every service account, joins read-only. When someone's access changes,
 * their sockets are checked again; when a file is deleted, its document closes.
 */
import type { ServerWebSocket } from "bun";
import type { Access, AccessChanges } from "../core/access";
import type { Principal, SpaceActor } from "../core/actor";
import { AppError } from "../core/errors";
import type { EventBus } from "../core/events";
import { canEditTogether } from "../features/files/files.policy";
import type { FilesService } from "../features/files/files.service";
import { CLOSE, closeFor, OpenSockets, type Sessions, type UserSocket } from "../http/sockets";
import type { Logger } from "../lib/log";
import { BadMessage } from "./protocol";
import type { DocRegistry, LiveDoc, Peer } from "./registry";

/** What opening a document needs, as REST's file reads (the route declares the same). */
const READ = "files.read";

/** One collaborator's socket on one document. */
class CollabSocket implements Peer, UserSocket {
  live: LiveDoc | undefined;

  constructor(
    readonly ws: ServerWebSocket<unknown>,
    readonly principal: Principal,
    readonly orgId: string,
    readonly spaceId: string,
    readonly nodeId: string,
    public canWrite: boolean,
  ) {}

  get userId(): string {
    return this.principal.userId;
  }

  get sessionId(): string | undefined {
    return this.principal.sessionId;
  }

  send(message: Uint8Array): void {
    this.ws.sendBinary(message);
  }

  /** The document's sockets share a topic: the server writes a relayed frame to each of them itself. */
  sendToOthers(message: Uint8Array): void {
    this.ws.publishBinary(topicOf(this.nodeId), message);
  }

  close(code: number, reason: string): void {
    this.ws.close(code, reason);
  }
}

/** The publish topic of a document's sockets. */
const topicOf = (nodeId: string) => `collab:${nodeId}`;

/** Editing sockets one person may have open: a file per tab, many tabs, with room to spare. */
export const MAX_EDITORS_PER_USER = 100;

/** The open collaborative-editing sockets. */
export class CollabSockets {
  private readonly sockets: OpenSockets<CollabSocket>;
  private readonly byWs = new WeakMap<object, CollabSocket>();

  constructor(
    private readonly registry: DocRegistry,
    sessions: Sessions,
    private readonly access: Access,
    private readonly files: FilesService,
    changes: AccessChanges,
    events: EventBus,
    private readonly log: Logger,
  ) {
    this.sockets = new OpenSockets(
      changes,
      sessions,
      (socket) => this.recheck(socket),
      MAX_EDITORS_PER_USER,
      "editing sockets",
    );
    events.subscribe((event) => {
      if (event.type === "file.deleted") this.closeDeleted(event.space_id);
    }, "everywhere");
  }

  /** The file a socket may open: a live text file of the space (404 / 400 exactly as REST). */
  target(actor: SpaceActor, fileId: string | undefined): string {
    const id = this.files.textFile(actor, fileId ?? "").id;
    this.sockets.assertRoomFor(actor.userId);
    return id;
  }

  /** A socket was upgraded: joins the document. */
  open(ws: ServerWebSocket<unknown>, actor: SpaceActor, nodeId: string): void {
    const socket = new CollabSocket(ws, actor, actor.orgId, actor.space.id, nodeId, canEditTogether(actor));
    const live = this.registry.join(nodeId, { orgId: actor.orgId, spaceId: actor.space.id }, socket);
    if (!live) {
      ws.close(CLOSE.fileGone, "file not found");
      return;
    }
    socket.live = live;
    ws.subscribe(topicOf(nodeId));
    this.byWs.set(ws, socket);
    this.sockets.add(socket);
  }

  /** A frame arrived: binary y-websocket messages only; anything else closes this socket alone. */
  message(ws: ServerWebSocket<unknown>, data: unknown): void {
    const socket = this.byWs.get(ws);
    if (!socket?.live) return;
    if (!(data instanceof Uint8Array)) {
      socket.close(CLOSE.badMessage, "binary messages only");
      return;
    }
    try {
      this.registry.receive(socket.live, socket, data);
    } catch (error) {
      if (error instanceof BadMessage) {
        socket.close(CLOSE.badMessage, error.message);
      } else if (error instanceof AppError) {
        // An update that would take the text over its limit: 4413 `text file too large`, nothing applied.
        closeFor(socket, error);
      } else {
        this.log.error({ err: error, file_id: socket.nodeId }, "collab message failed");
        socket.close(CLOSE.internal, "internal error");
      }
    }
  }

  closed(ws: ServerWebSocket<unknown>): void {
    const socket = this.byWs.get(ws);
    if (!socket) return;
    this.byWs.delete(ws);
    this.sockets.delete(socket);
    if (socket.live) this.registry.leave(socket.live, socket);
  }

  /** The caller's access changed: the same checks as at the upgrade, closing with REST's message if one fails. */
  private recheck(socket: CollabSocket): void {
    try {
      const actor = this.access.spaceActor(socket.principal, socket.orgId, socket.spaceId, READ);
      this.files.textFile(actor, socket.nodeId);
      const canWrite = canEditTogether(actor);
      if (canWrite && !socket.canWrite) {
        // Its edits while read-only were dropped (and deleted again in its copy), and what it types next builds
        // on those items, which the server lacks: it could never apply that. Rejoining syncs the two again.
        socket.close(CLOSE.rejoin, "you can edit now: reconnect");
        return;
      }
      socket.canWrite = canWrite;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      closeFor(socket, error);
    }
  }

  /** A file of the space was deleted (with everything below it): documents of deleted files close. */
  private closeDeleted(spaceId: string): void {
    for (const live of [...this.registry.all()]) {
      if (live.scope.spaceId === spaceId && !this.files.isLive(spaceId, live.nodeId)) {
        this.registry.close(live, CLOSE.fileGone, "file not found");
      }
    }
  }
}
