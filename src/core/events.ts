/**
 * Domain events: what was written. A service emits them on the unit of work of its write (`db/unit.ts`); they
 * reach two kinds of listener:
 * - handlers (`onWrite`) run inside the transaction that emitted the event, at the moment it is emitted, and may
 *   write in it (a mention of staff stores the 💭 and the reply job with the message): all of it commits or
 *   none of it;
 * - subscribers (`subscribe`) hear each event once its transaction has committed, in the order emitted, and
 *   never hear of a write that rolled back: the live-event sockets, the caches of derived reads, the job runner.
 *
 * A multi-instance deployment would put a broker behind `publish` and feed `subscribe` from it.
 */
import type { Principal } from "./actor";

/**
 * The payload of each event type. Each feature adds its own types here by declaration merging, in its
 * `<name>.events.ts`: `declare module "../../core/events" { interface EventPayloads { "task.created": TaskOut } }`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the features (declaration merging).
export interface EventPayloads {}

/** Every event type. */
export type EventType = keyof EventPayloads & string;

/** One event; for the types clients receive, the envelope of contract §5 and what the REST route answers. */
export interface EventOf<T extends EventType> {
  type: T;
  organization_id: string;
  /** The space it happened in; "" for an organization-wide event. */
  space_id: string;
  payload: EventPayloads[T];
  /**
   * Not sent. Events with the same key may reach the live-event sockets coalesced: the first at once, then at
   * most the latest one per interval (a document being typed into changes its file many times a second).
   */
  coalesce?: string;
  /**
   * Not sent. A text file's `file.updated` written while people go on typing in it (its text is written again
   * once they stop): what is costly to redo for every such update (indexing a long text) can wait for that one.
   */
  editing?: boolean;
  /** Not sent. Who made the change; absent when the server made it on its own. */
  actor?: Principal;
  /**
   * Not sent. How people name what the event is about where its payload cannot say (a deleted task's title):
   * for the records that outlive it (the audit log).
   */
  label?: string;
  /**
   * Not sent. A person's own event (their read state moved, an item reached their inbox): only that user's
   * sockets hear it, never the rest of the organization, and it changes nothing that others read.
   */
  to?: string;
}

/** Any event, narrowed by its `type`. */
export type DomainEvent = { [T in EventType]: EventOf<T> }[EventType];

/** What a handler writes with: the unit of work of the write that emitted the event. */
export interface Unit {
  /** Records what was written: handlers run now, subscribers hear it once the transaction has committed. */
  emit(event: DomainEvent): void;
  /** Runs `fn` once the transaction has committed, in order with the events; never after a rollback. */
  afterCommit(fn: () => void): void;
}

/** A handler of one event type, inside the emitting transaction. */
export type WriteHandler<T extends EventType> = (event: EventOf<T>, unit: Unit) => void;

/**
 * Whether a handler may write for a change made by `actor` with this text: false lets a writer skip what only
 * a handler's write would need (a savepoint for a chat post that mentions no one). Absent: it may.
 */
export type MayWrite = (actor: Principal, text: string) => boolean;

interface Registered {
  handle: WriteHandler<EventType>;
  mayWrite: MayWrite | undefined;
}

/**
 * Which committed events a subscriber hears. `here` (the default): those written by this process, for work
 * that must happen once (indexing, pushes). `everywhere`: those of every node on the same database as well
 * (PostgreSQL mode), for what each node keeps for its own clients (live sockets, caches, timers). `elsewhere`:
 * only other nodes' events, for what this process keeps right with its own writes as it makes them.
 */
export type Heard = "here" | "everywhere" | "elsewhere";

/** Delivers events to handlers inside the transaction and to subscribers after it. */
export class EventBus {
  private readonly subscribers = new Map<(event: DomainEvent) => void, Heard>();
  private readonly handlers = new Map<string, Registered[]>();
  private readonly everyWrite: ((event: DomainEvent, unit: Unit) => void)[] = [];

  /** `onError` hears of a subscriber (or an after-commit step) that threw; the server logs it. */
  constructor(private readonly onError: (error: unknown, event?: DomainEvent) => void = () => undefined) {}

  /** Runs `handle` inside every transaction that emits an event of `type`, as it is emitted. */
  onWrite<T extends EventType>(type: T, handle: WriteHandler<T>, options: { mayWrite?: MayWrite } = {}): void {
    const list = this.handlers.get(type) ?? [];
    list.push({ handle: handle as unknown as WriteHandler<EventType>, mayWrite: options.mayWrite });
    this.handlers.set(type, list);
  }

  /** Runs `handle` inside the transaction for every event emitted, after the event's own handlers. */
  onEveryWrite(handle: (event: DomainEvent, unit: Unit) => void): void {
    this.everyWrite.push(handle);
  }

  /** Whether a handler of `type` may write for this change (see `MayWrite`). */
  mayWrite(type: EventType, actor: Principal, text: string): boolean {
    return (this.handlers.get(type) ?? []).some((h) => h.mayWrite === undefined || h.mayWrite(actor, text));
  }

  /** Inside the transaction: the event's handlers, in the order they were registered. */
  handle(event: DomainEvent, unit: Unit): void {
    const list = this.handlers.get(event.type);
    if (list) for (const handler of list) handler.handle(event as EventOf<EventType>, unit);
    for (const handle of this.everyWrite) handle(event, unit);
  }

  /** After the commit: hands `event` to every subscriber; one failing does not keep it from the others. */
  publish(event: DomainEvent): void {
    this.deliver(event, "elsewhere");
  }

  /** An event another node committed (PostgreSQL mode): to the subscribers that hear other nodes. */
  publishRemote(event: DomainEvent): void {
    this.deliver(event, "here");
  }

  /** Hears committed events from now on (see `Heard`); returns the unsubscribe function. */
  subscribe(subscriber: (event: DomainEvent) => void, heard: Heard = "here"): () => void {
    this.subscribers.set(subscriber, heard);
    return () => this.subscribers.delete(subscriber);
  }

  /** Reports a failed after-commit step: the write stands, and so do the other steps. */
  failed(error: unknown): void {
    this.onError(error);
  }

  private deliver(event: DomainEvent, except: Heard): void {
    for (const [subscriber, heard] of this.subscribers) {
      if (heard === except) continue;
      try {
        subscriber(event);
      } catch (error) {
        this.onError(error, event);
      }
    }
  }
}

/** The event of a change `actor` made in their space. */
export function spaceEvent<T extends EventType>(
  actor: Principal & { orgId: string; space: { id: string } },
  type: T,
  payload: EventPayloads[T],
): EventOf<T> {
  return { type, organization_id: actor.orgId, space_id: actor.space.id, payload, actor };
}

/** The event of an organization-wide change: made by `actor`, or by the server on its own when there is none. */
export function orgEvent<T extends EventType>(
  orgId: string,
  type: T,
  payload: EventPayloads[T],
  actor?: Principal,
): EventOf<T> {
  return { type, organization_id: orgId, space_id: "", payload, ...(actor ? { actor } : {}) };
}
