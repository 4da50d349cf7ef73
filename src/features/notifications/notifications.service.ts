/**
 * Web Push (contract §10): the server's VAPID key, the browsers each person subscribed, and a push for each new
 * inbox item per the person's `desktop` setting. Pushing is a subscriber of `inbox.item`: it runs after the write
 * that made the item committed, and sends in the background, so a chat post never waits for a push service.
 */
import { createECDH } from "node:crypto";
import type { OrgActor } from "../../core/actor";
import { invalid, notFound } from "../../core/errors";
import type { EventBus, EventOf } from "../../core/events";
import type { UnitOfWork } from "../../db/unit";
import { newId } from "../../lib/ids";
import type { Logger } from "../../lib/log";
import { isLoopbackHost } from "../../lib/net";
import type { PushClient } from "../../providers/push";
import { headline, type Notice, pathOf } from "./notifications.render";
import type { PushSubscriptionIn } from "./notifications.schemas";
import type { NotificationsStore, PushSubscriptionRow } from "./notifications.store";

/** What notifications ask of the rest of the organization. */
export interface NotificationsWorld {
  /** The user as a member of the organization; null when they are not one (any more). */
  memberActor(orgId: string, userId: string): OrgActor | null;
  /** The spaces the actor can see, by id, with their names. */
  spaceNames(actor: OrgActor): Map<string, string>;
  /** The person's notification settings (the inbox's). */
  settings(actor: OrgActor): { email: "off" | "digest" | "all"; desktop: "all" | "mentions" | "none" };
  /** An account's address and name. */
  user(userId: string): { email: string; displayName: string } | undefined;
  organizationName(orgId: string): string;
  /** The address people open Tandem at, without a trailing slash. */
  publicUrl(): string;
}

/** The most browsers one person keeps subscribed in an organization; the oldest go beyond it. */
export const MAX_SUBSCRIPTIONS = 20;
/** How long a push service keeps trying to deliver a push to a browser that is offline. */
const PUSH_TTL_SEC = 12 * 3600;
/** Pushes on their way at once; past `MAX_WAITING` more, new ones are dropped (the inbox has them all). */
const PUSH_CONCURRENCY = 8;
const MAX_WAITING = 1000;

const P256 = createECDH("prime256v1");
P256.generateKeys();

/** Base64url as browsers write it (padding allowed), decoded; null for anything else. */
function base64url(text: string): Buffer | null {
  return /^[A-Za-z0-9_-]+={0,2}$/.test(text) ? Buffer.from(text, "base64url") : null;
}

/** The endpoint's URL: https, or plain http to this machine alone (a local push service, a test's stand-in). */
function checkEndpoint(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid("endpoint: must be an https URL");
  }
  const allowed = url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname));
  if (!allowed || url.username !== "" || url.password !== "") throw invalid("endpoint: must be an https URL");
  return raw;
}

/** The browser's keys: a P-256 point (65 bytes, uncompressed) and a 16-byte auth secret. */
function checkKeys(keys: { p256dh: string; auth: string }): void {
  const point = base64url(keys.p256dh);
  let onCurve = point !== null && point.length === 65 && point[0] === 4;
  if (onCurve) {
    try {
      P256.computeSecret(point as Buffer);
    } catch {
      onCurve = false;
    }
  }
  if (!onCurve) throw invalid("keys.p256dh: must be a P-256 public key (base64url)");
  if (base64url(keys.auth)?.length !== 16) throw invalid("keys.auth: must be 16 bytes (base64url)");
}

/** The host of an endpoint, for a log line (the whole URL is a capability). */
function hostOf(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return "";
  }
}

export class PushService {
  private inFlight = 0;
  private readonly waiting: (() => Promise<void>)[] = [];

  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: NotificationsStore,
    /** Null where no VAPID key is loaded (CLI commands): nothing is pushed. */
    private readonly client: PushClient | null,
    private readonly world: NotificationsWorld,
    private readonly log: Logger | null,
  ) {}

  /** Subscriptions go with their person's membership; each new inbox item is pushed once committed. */
  listen(events: EventBus): void {
    events.onWrite("member.removed", (event) => this.store.deletePerson(event.organization_id, event.payload.user_id));
    events.subscribe((event) => {
      if (event.type === "inbox.item") this.itemArrived(event as EventOf<"inbox.item">);
    });
  }

  /** The VAPID public key browsers subscribe with. */
  publicKey(): string {
    if (!this.client) throw notFound("push is not available");
    return this.client.publicKey;
  }

  /**
   * Stores the caller's browser subscription, or replaces the one of the same endpoint (its keys change when the
   * browser subscribes again; another person signed in on that browser takes it over). A person keeps at most
   * `MAX_SUBSCRIPTIONS` browsers: the one not renewed the longest goes.
   */
  subscribe(actor: OrgActor, input: PushSubscriptionIn): PushSubscriptionRow {
    const endpoint = checkEndpoint(input.endpoint);
    checkKeys(input.keys);
    return this.uow.write(() => {
      const now = Date.now();
      const known = this.store.byEndpoint(endpoint);
      this.store.upsert({
        id: known?.id ?? newId(),
        orgId: actor.orgId,
        userId: actor.userId,
        endpoint,
        p256dh: input.keys.p256dh,
        auth: input.keys.auth,
        expirationTime: input.expirationTime ?? null,
        createdAt: known?.createdAt ?? now,
        updatedAt: now,
      });
      const mine = this.store.ofPerson(actor.orgId, actor.userId);
      for (const old of mine.slice(MAX_SUBSCRIPTIONS)) this.store.deleteGone(old.id, old.endpoint);
      return this.store.byEndpoint(endpoint) as PushSubscriptionRow;
    });
  }

  /** Removes the caller's subscription of that endpoint; one that is not theirs (or unknown) is left as it is. */
  unsubscribe(actor: OrgActor, endpoint: string): void {
    this.uow.write(() => this.store.deleteOwn(actor.orgId, actor.userId, endpoint));
  }

  /** A new item: pushed to each of the person's browsers, if their `desktop` setting asks for it. */
  private itemArrived(event: EventOf<"inbox.item">): void {
    if (!this.client || event.to === undefined) return;
    const item = event.payload;
    const subscriptions = this.store.pushTargets(event.organization_id, event.to);
    if (subscriptions.length === 0) return;
    const actor = this.world.memberActor(event.organization_id, event.to);
    if (!actor) return;
    const { desktop } = this.world.settings(actor);
    if (desktop === "none" || (desktop === "mentions" && item.kind !== "mention")) return;
    // The item was delivered because its person sees its space; asked again, as they may have lost it since.
    const spaceName = this.world.spaceNames(actor).get(item.space_id);
    if (spaceName === undefined) return;
    const notice: Notice = {
      kind: item.kind,
      spaceId: item.space_id,
      spaceName,
      actorName: item.actor_user_id ? (this.world.user(item.actor_user_id)?.displayName ?? null) : null,
      chatRoomId: item.chat_room_id,
      taskId: item.task_id,
      automationId: item.automation_id,
      proposalId: item.proposal_id,
      summary: item.summary,
    };
    const payload = JSON.stringify({
      type: "inbox.item",
      organization_id: event.organization_id,
      title: headline(notice),
      body: item.summary,
      url: this.world.publicUrl() + pathOf(notice),
      item,
    });
    for (const subscription of subscriptions) this.queue(() => this.push(subscription, payload));
  }

  /** Runs `send` when fewer than `PUSH_CONCURRENCY` pushes are on their way. */
  private queue(send: () => Promise<void>): void {
    if (this.inFlight >= PUSH_CONCURRENCY) {
      if (this.waiting.length >= MAX_WAITING) return;
      this.waiting.push(send);
      return;
    }
    this.inFlight++;
    void send().finally(() => {
      this.inFlight--;
      const next = this.waiting.shift();
      if (next) this.queue(next);
    });
  }

  /**
   * One push. A push service that says the subscription is gone (404, 410) has it removed; any other failure is
   * logged and the push dropped: it would be late by the time a retry got through, and the inbox keeps the item.
   */
  private async push(subscription: PushSubscriptionRow, payload: string): Promise<void> {
    const target = { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } };
    try {
      const status = await (this.client as PushClient).send(target, payload, {
        ttlSec: PUSH_TTL_SEC,
        urgency: "normal",
      });
      if (status === 404 || status === 410) {
        this.uow.write(() => this.store.deleteGone(subscription.id, subscription.endpoint));
        return;
      }
      if (status < 200 || status >= 300) {
        this.log?.warn({ push_host: hostOf(subscription.endpoint), status }, "a push service refused a push");
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.log?.warn({ push_host: hostOf(subscription.endpoint), err: { message } }, "a push could not be sent");
    }
  }
}
