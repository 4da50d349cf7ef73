/**
 * Live events: what changed, for whom. Services publish after their write commits; subscribers (the live-events
 * sockets, caches of read models) receive every event. Small on purpose: a multi-instance deployment would put
 * a broker behind `publish` and feed `subscribe` from it.
 */

/** Every event type a client can receive (contract §5). */
export type EventType =
  | "task.created"
  | "task.updated"
  | "task.deleted"
  | "task.message.created"
  | "chat.room.created"
  | "chat.room.deleted"
  | "chat.message.created"
  | "chat.message.updated"
  | "chat.message.deleted"
  | "chat.reaction.added"
  | "chat.reaction.removed"
  | "file.created"
  | "file.updated"
  | "file.deleted"
  | "file.proposal.created"
  | "file.proposal.updated"
  | "automation.updated"
  | "automation.deleted"
  | "ai.reply.started"
  | "ai.reply.finished"
  | "ai.reply.failed";

/** The envelope of contract §5; the payload is what the REST route answers for the same thing. */
export interface TandemEvent {
  type: EventType;
  organization_id: string;
  space_id: string;
  payload: unknown;
  /**
   * Not sent. Events with the same key may reach the live-event sockets coalesced: the first at once, then at
   * most the latest one per interval (a document being typed into changes its file many times a second).
   */
  coalesce?: string;
}

/** Delivers published events to every subscriber, in order. */
export class EventBus {
  private readonly subscribers = new Set<(event: TandemEvent) => void>();

  /** `onError` hears of a subscriber that threw (the server logs it). */
  constructor(private readonly onError: (error: unknown, event: TandemEvent) => void = () => undefined) {}

  /** Hands `event` to every subscriber; one failing subscriber does not keep it from the others. */
  publish(event: TandemEvent): void {
    for (const subscriber of this.subscribers) {
      try {
        subscriber(event);
      } catch (error) {
        this.onError(error, event);
      }
    }
  }

  /** Receives every event from now on; returns the unsubscribe function. */
  subscribe(subscriber: (event: TandemEvent) => void): () => void {
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  }

  private readonly forgetters = new Set<() => void>();

  /**
   * Rows of any number of spaces changed without an event of their own (a deleted staff member's messages
   * lose their author, its reactions go): whatever was derived from rows is dropped. Clients are not told;
   * what they show of that account already reads as a former member.
   */
  forgetDerived(): void {
    for (const forget of this.forgetters) forget();
  }

  /** Runs `forget` on every `forgetDerived`. */
  onForgetDerived(forget: () => void): void {
    this.forgetters.add(forget);
  }
}
