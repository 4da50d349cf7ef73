/**
 * The open WebSockets of one kind, by user: when someone's access changes (removed from the organization or a
 * space, roles changed) their sockets are checked again at once, and closed when the access is gone. A socket
 * opened with a sign-in session's token closes when that session ends (signed out, password reset).
 */
import type { ServerWebSocket } from "bun";
import type { AccessChanges } from "../core/access";
import { AppError, invalid, STATUS_OF, unauthenticated } from "../core/errors";
import type { Logger } from "../lib/log";

/** What every socket kept here knows about itself. */
export interface UserSocket {
  readonly userId: string;
  /** The sign-in session of the token it was opened with; undefined for an `sa_` token. */
  readonly sessionId: string | undefined;
  close(code: number, reason: string): void;
}

/** Where sockets learn that sign-in sessions ended (the auth service). */
export interface Sessions {
  sessionLive(sessionId: string): boolean;
  onSessionsEnded(listener: () => void): () => void;
}

/**
 * WebSocket close codes. 4400-4499 mirror the HTTP 4xx statuses (the stock y-websocket client does not
 * reconnect after one of them).
 */
export const CLOSE = {
  /** A frame that is not the protocol: garbage, truncated, the wrong kind. */
  badMessage: 4400,
  /** The file was deleted: REST's 404 `file not found`. */
  fileGone: 4404,
  /** The server could not store what it received; reconnecting resends it. */
  internal: 1011,
  /** The server is stopping; reconnecting reaches the next one. */
  goingAway: 1001,
  /**
   * The caller may edit now, having been read-only: the editor reconnects (as for any code outside 4400-4499)
   * and its sync sends the server what it lacks (HTTP 205, Reset Content).
   */
  rejoin: 4205,
} as const;

/**
 * Closes a socket whose access is gone with the answer REST would give now: 4000 + its status (4404
 * `organization not found`, 4403 `missing permission: files.read`...) and its message as the reason.
 */
export function closeFor(ws: { close(code: number, reason: string): void }, error: AppError): void {
  ws.close(4000 + STATUS_OF[error.kind], error.message);
}

/**
 * The plain-GET twin of a WebSocket route: without an upgrade, an answer in the API's shape rather than
 * Elysia's 404. Declared with `detail: { hide: true }` (a fresh object each time: the permission macro
 * writes into it), so the docs list the socket route alone.
 */
export const upgradeRequired = (): never => {
  throw invalid("websocket upgrade required");
};

/**
 * A request that asks for the upgrade but lacks what the handshake needs (`Sec-WebSocket-Key`, version 13):
 * refused in the API's shape, before the runtime would answer its own plain-text 400.
 */
export function assertUpgradable(request: Request): void {
  const key = request.headers.get("sec-websocket-key")?.trim() ?? "";
  // RFC 6455: the key is 16 random bytes in base64, 24 characters.
  if (!/^[A-Za-z0-9+/]{22}==$/.test(key) || request.headers.get("sec-websocket-version")?.trim() !== "13") {
    throw invalid(
      "invalid websocket upgrade: a Sec-WebSocket-Key (16 bytes in base64) and Sec-WebSocket-Version: 13 are required",
    );
  }
}

/** What a socket's frames go to once `takeFrames` has them. */
export type FrameHandler = (ws: ServerWebSocket<unknown>, frame: unknown) => void;

/**
 * Hands an upgraded socket's frames straight to `handler`, from the route's `open`. Elysia's server calls
 * `ws.data.message(ws, frame)` with the runtime's socket, and by default that wraps each frame in a new `ElysiaWS`
 * (fourteen bound methods) and two promises before the route's `message` runs: on an editing socket, most of
 * what a keystroke allocated, which the heap carried between collections. An error the handler throws would
 * stop the process from here: it is logged, and closes that socket alone.
 */
export function takeFrames(ws: ServerWebSocket<unknown>, handler: FrameHandler, log: Logger): void {
  (ws.data as { message: FrameHandler }).message = (socket, frame) => {
    try {
      handler(socket, frame);
    } catch (err) {
      log.error({ err }, "socket frame failed");
      socket.close(CLOSE.internal, "internal error");
    }
  };
}

/** A set of open sockets of one kind, indexed by user, at most `perUser` each. */
export class OpenSockets<S extends UserSocket> {
  private readonly byUser = new Map<string, Set<S>>();

  /**
   * `recheck` runs for each socket of a user whose access changed (every socket when the change may touch
   * anyone); it closes the socket or adjusts it. A socket whose session ended closes with 4401 `unauthorized`,
   * what REST answers its token now.
   */
  constructor(
    access: AccessChanges,
    sessions: Sessions,
    recheck: (socket: S) => void,
    /** How many a user may have open at once (browser tabs, editors); what is beyond is refused at the upgrade. */
    private readonly perUser: number,
    /** What they are, in the refusal: `live-event sockets`. */
    private readonly what: string,
  ) {
    access.onChange((userId) => {
      const targets = userId === null ? [...this.all()] : [...(this.byUser.get(userId) ?? [])];
      for (const socket of targets) recheck(socket);
    });
    sessions.onSessionsEnded(() => {
      for (const socket of [...this.all()]) {
        if (socket.sessionId !== undefined && !sessions.sessionLive(socket.sessionId)) {
          closeFor(socket, unauthenticated());
        }
      }
    });
  }

  /** Refuses another socket to a user who has `perUser` open: 429, before the upgrade. */
  assertRoomFor(userId: string): void {
    if ((this.byUser.get(userId)?.size ?? 0) >= this.perUser) {
      throw new AppError("too_many", `too many open ${this.what}: at most ${this.perUser} per person`);
    }
  }

  add(socket: S): void {
    let sockets = this.byUser.get(socket.userId);
    if (!sockets) {
      sockets = new Set();
      this.byUser.set(socket.userId, sockets);
    }
    sockets.add(socket);
  }

  delete(socket: S): void {
    const sockets = this.byUser.get(socket.userId);
    if (!sockets) return;
    sockets.delete(socket);
    if (sockets.size === 0) this.byUser.delete(socket.userId);
  }

  /** Users with at least one open socket, with their sockets. */
  users(): IterableIterator<[string, ReadonlySet<S>]> {
    return this.byUser.entries();
  }

  /** The open sockets of one user. */
  of(userId: string): ReadonlySet<S> | undefined {
    return this.byUser.get(userId);
  }

  *all(): Generator<S> {
    for (const sockets of this.byUser.values()) yield* sockets;
  }
}
