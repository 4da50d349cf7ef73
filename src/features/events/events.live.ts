/**
 * The live-events sockets (contract §5): every event of the bus goes, serialized once, to the sockets of the
 * organization's members who can see its space (a person's own event, `to` them, to their sockets alone),
 * checked at delivery with the same rules as REST (remembered, so this costs a lookup). A member removed from
 * the organization has their sockets closed at once; one whose access changed otherwise hears `access.changed`.
 *
 * Fan-out is this class alone, fed by `EventBus.subscribe`: several instances would each run one, with a
 * broker behind the bus.
 */
import type { ServerWebSocket } from "bun";
import type { Access, AccessChanges } from "../../core/access";
import type { OrgActor, Principal } from "../../core/actor";
import { AppError } from "../../core/errors";
import type { DomainEvent, EventBus, EventType } from "../../core/events";
import { closeFor, OpenSockets, type Sessions, type UserSocket } from "../../http/sockets";

/** The spaces a member belongs to, with their role in each: part of what they may see and do. */
export type Memberships = (actor: OrgActor) => readonly { spaceId: string; role: string }[];

/** Live-event sockets one person may have open: one per browser tab or script, with room to spare. */
export const MAX_SOCKETS_PER_USER = 50;

/**
 * The events clients receive (contract §5, with the proposal and automation deletion extensions, and §10); the
 * others (`task.assigned`, `job.queued`, `user.deleted`, `member.added`...) are the server's own.
 */
const LIVE: ReadonlySet<EventType> = new Set<EventType>([
  "task.created",
  "task.updated",
  "task.deleted",
  "task.message.created",
  "board.column.created",
  "board.column.updated",
  "board.column.deleted",
  "label.created",
  "label.updated",
  "label.deleted",
  "chat.room.created",
  "chat.room.deleted",
  "chat.message.created",
  "chat.message.updated",
  "chat.message.deleted",
  "chat.reaction.added",
  "chat.reaction.removed",
  "file.created",
  "file.updated",
  "file.deleted",
  "file.proposal.created",
  "file.proposal.updated",
  "file.version.created",
  "automation.updated",
  "automation.deleted",
  "automation.run.started",
  "automation.run.finished",
  "ai.reply.started",
  "ai.reply.finished",
  "ai.reply.failed",
  // Contract §10: the live directory (to the whole organization, or a private space's members)...
  "member.joined",
  "member.updated",
  "member.left",
  "space.created",
  // ...and a person's own events (to that person's sockets only).
  "chat.read",
  "inbox.item",
  "inbox.read",
]);

/** Coalesced events (see `EventOf.coalesce`): at most one per key per this interval after the first. */
export const COALESCE_MS = 500;

/** The permission that reading what an event is about needs beyond seeing its space, as REST has it. */
function readPermissionOf(type: string): string | null {
  return type.startsWith("file.") || type.startsWith("automation.") ? "files.read" : null;
}

/** One open live-events socket. */
class EventSocket implements UserSocket {
  constructor(
    readonly ws: ServerWebSocket<unknown>,
    readonly principal: Principal,
    readonly orgId: string,
    /** What its user may do and see, as `accessOf` put it when last told. */
    public access: string,
  ) {}

  get userId(): string {
    return this.principal.userId;
  }

  get sessionId(): string | undefined {
    return this.principal.sessionId;
  }

  close(code: number, reason: string): void {
    this.ws.close(code, reason);
  }
}

/** The open live-events sockets and their fan-out. */
export class LiveEvents {
  private readonly sockets: OpenSockets<EventSocket>;
  private readonly byWs = new WeakMap<object, EventSocket>();
  /** When each coalesce key last went out, and the latest event held back for it. */
  private readonly lastSent = new Map<string, number>();
  private readonly held = new Map<string, { event: DomainEvent; timer: ReturnType<typeof setTimeout> }>();

  constructor(
    bus: EventBus,
    changes: AccessChanges,
    sessions: Sessions,
    private readonly access: Access,
    private readonly memberships: Memberships,
  ) {
    this.sockets = new OpenSockets(
      changes,
      sessions,
      (socket) => this.accessChanged(socket),
      MAX_SOCKETS_PER_USER,
      "live-event sockets",
    );
    bus.subscribe((event) => this.publish(event), "everywhere");
  }

  /** Refuses the upgrade of a person who has as many sockets open as allowed (429). */
  assertRoomFor(userId: string): void {
    this.sockets.assertRoomFor(userId);
  }

  open(ws: ServerWebSocket<unknown>, actor: OrgActor): void {
    const { userId, serviceAccountId, sessionId } = actor;
    const socket = new EventSocket(ws, { userId, serviceAccountId, sessionId }, actor.orgId, this.accessOf(actor));
    this.byWs.set(ws, socket);
    this.sockets.add(socket);
  }

  /** Closes every open socket (the server is stopping); clients reconnect to the next server. */
  closeAll(code: number, reason: string): void {
    for (const [, sockets] of [...this.sockets.users()])
      for (const socket of [...sockets]) socket.ws.close(code, reason);
  }

  closed(ws: ServerWebSocket<unknown>): void {
    const socket = this.byWs.get(ws);
    if (!socket) return;
    this.byWs.delete(ws);
    this.sockets.delete(socket);
  }

  private publish(event: DomainEvent): void {
    if (!LIVE.has(event.type)) return;
    const key = event.coalesce;
    if (key === undefined) {
      this.settleHeld(event);
      this.deliver(event);
      return;
    }
    const held = this.held.get(key);
    if (held) {
      held.event = event;
      return;
    }
    const now = Date.now();
    const wait = (this.lastSent.get(key) ?? 0) + COALESCE_MS - now;
    if (wait <= 0) {
      this.sent(key, now);
      this.deliver(event);
      return;
    }
    const timer = setTimeout(() => this.flush(key), wait);
    timer.unref?.();
    this.held.set(key, { event, timer });
  }

  /** Sends what is held for `key`. */
  private flush(key: string): void {
    const held = this.held.get(key);
    if (!held) return;
    clearTimeout(held.timer);
    this.held.delete(key);
    this.sent(key, Date.now());
    this.deliver(held.event);
  }

  /**
   * Keeps commit order within a space: before any other event of the space goes out, what is held for it
   * goes first (an update of a file, then the deletion of its folder, never the other way round).
   */
  private settleHeld(event: DomainEvent): void {
    if (this.held.size === 0) return;
    for (const [key, held] of this.held) if (held.event.space_id === event.space_id) this.flush(key);
  }

  private sent(key: string, now: number): void {
    this.lastSent.set(key, now);
    if (this.lastSent.size > 10_000) {
      for (const [k, at] of this.lastSent) if (now - at >= COALESCE_MS) this.lastSent.delete(k);
    }
  }

  /**
   * Sends the event to every socket of a member who sees its space and may read what it is about (file and
   * automation events need `files.read`, as their REST routes do); serialized once.
   */
  private deliver(event: DomainEvent): void {
    let json: string | undefined;
    const need = readPermissionOf(event.type);
    for (const [, sockets] of this.audience(event)) {
      let sees: boolean | undefined;
      for (const socket of sockets) {
        if (socket.orgId !== event.organization_id) continue;
        if (sees === undefined) {
          const actor = this.reach(socket);
          sees =
            actor !== undefined &&
            (need === null || actor.permissions.has(need)) &&
            (event.space_id === "" || this.access.sees(actor, event.space_id));
        }
        if (!sees) break;
        json ??= JSON.stringify({
          type: event.type,
          organization_id: event.organization_id,
          // An organization-wide event (the directory's `member.*`) is about no space: null, as `access.changed`.
          space_id: event.space_id === "" ? null : event.space_id,
          payload: event.payload,
        });
        socket.ws.sendText(json);
      }
    }
  }

  /** The users who may hear the event, with their sockets: everyone's, or only its addressee's. */
  private audience(event: DomainEvent): Iterable<[string, ReadonlySet<EventSocket>]> {
    if (event.to === undefined) return this.sockets.users();
    const sockets = this.sockets.of(event.to);
    return sockets ? [[event.to, sockets]] : [];
  }

  /**
   * The user's access may have changed (roles, their permissions, space memberships): a socket of someone no
   * longer a member closes; the others hear `access.changed` (an extension, no payload) when what the user may
   * do or see did change, so the UI can look again. (A role nobody holds, edited, tells no one.)
   */
  private accessChanged(socket: EventSocket): void {
    const actor = this.reach(socket);
    if (!actor) return;
    const access = this.accessOf(actor);
    if (access === socket.access) return;
    socket.access = access;
    socket.ws.sendText(
      JSON.stringify({ type: "access.changed", organization_id: socket.orgId, space_id: null, payload: null }),
    );
  }

  /**
   * What a member may do and see, in one comparable string: their permissions, and their role in each space
   * they are a member of (which private spaces they see, which spaces' members they manage; `org.manage`
   * holders see every private space whatever their memberships).
   */
  private accessOf(actor: OrgActor): string {
    const permissions = [...actor.permissions].sort().join(",");
    const roles = this.memberships(actor).map((m) => `${m.spaceId}:${m.role}`);
    return `${permissions}|${roles.sort().join(",")}`;
  }

  /** The socket's user as a member of its organization; closes the socket when they no longer are. */
  private reach(socket: EventSocket): OrgActor | undefined {
    try {
      return this.access.orgActor(socket.principal, socket.orgId, "member");
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      closeFor(socket.ws, error);
      return undefined;
    }
  }
}
