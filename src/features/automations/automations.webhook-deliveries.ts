/**
 * Inbound webhook deliveries (contract §8): a signed POST to `/api/v1/hooks/{automationId}` queues a run of the
 * webhook automation, whose job posts, asks staff or creates the task (`automations.job.ts`).
 *
 * What a delivery is checked for, in this order: the automation exists and is a webhook (404, before the body is
 * read); the body is at most 1 MiB (413, the route's read); the signature and its timestamp (401,
 * `automations.webhook-signatures.ts`); the body is JSON (400); then, in the transaction that would queue the
 * run: a delivery id seen within 24 hours answers the run it queued and runs nothing; the automation is active
 * (409) and its config complete (409, the problem as message, as Run now says it); fewer than
 * `MAX_QUEUED_RUNS` of its runs wait to start (429 with `Retry-After`). Only then are the run, its job and the
 * delivery stored, in one unit.
 *
 * Deliveries share the group commit's transaction of their turn (as chat posts do): a burst costs one commit
 * per turn rather than one per delivery. Everything decided from the database is decided again inside it.
 */
import { conflict, invalid, notFound, tooMany, unauthenticated } from "../../core/errors";
import { assertStorableJson } from "../../core/json";
import type { GroupCommit } from "../../db/group-commit";
import { decryptSecret } from "../../lib/encryption";
import { isUuid, newId } from "../../lib/ids";
import type { AutomationsService } from "./automations.service";
import type { AutomationsStore, WebhookState } from "./automations.store";
import {
  type DeliveryHeaders,
  type VerifiedDelivery,
  verifyDelivery,
  type WebhookSecret,
  webhookSecret,
} from "./automations.webhook-signatures";

/** The largest delivery body read (the API's usual JSON cap): 413 beyond. */
export const MAX_DELIVERY_BYTES = 1024 * 1024;

/**
 * How many runs of one automation may wait to start. A sender that floods a webhook (a loop in a CI script) gets
 * 429 beyond it rather than a queue that takes hours to drain and holds the runs of everything else back.
 */
export const MAX_QUEUED_RUNS = 100;

/** What a refused sender is asked to wait, in seconds: a queue of `MAX_QUEUED_RUNS` drains in well under that. */
export const QUEUE_FULL_RETRY_AFTER_S = 10;

/** How long a delivery id is remembered: the same id again within it runs nothing. */
export const DELIVERY_MEMORY_MS = 24 * 60 * 60 * 1000;

/** The longest delivery id remembered (a Standard Webhooks `msg_…` id is about 30 characters, GitHub's 36). */
const MAX_DELIVERY_ID = 255;
/** The longest event name kept in a run's input. */
const MAX_EVENT = 200;

/** Webhooks known at most (`WebhookDeliveries.known`); one delivered to after that many others is read again. */
const KNOWN_WEBHOOKS = 10_000;

const automationNotFound = () => notFound("automation not found");
/** Strict: a body that is not UTF-8 is not JSON. */
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A webhook as deliveries know it between transactions: its secret's ciphertext, and the secret it decrypts to. */
interface KnownWebhook {
  ciphertext: string | null;
  secret: WebhookSecret | null;
}

export class WebhookDeliveries {
  /**
   * Webhooks seen, by id. A read outside a transaction costs a read transaction of its own, several times the read:
   * a delivery to a webhook seen before reads nothing until the transaction that stores it, where what decides
   * (the kind, the status, the secret) is read again. Kept decrypted, so a busy webhook is not decrypted per
   * delivery.
   */
  private readonly known = new Map<string, KnownWebhook>();

  constructor(
    private readonly store: AutomationsStore,
    private readonly automations: Pick<AutomationsService, "queueRun">,
    private readonly writes: Pick<GroupCommit, "run">,
    private readonly encryptionKey: Uint8Array | null,
  ) {}

  /** Takes one delivery: the id of the run it queued (or queued before, for a delivery seen already). */
  async deliver(automationId: string, headers: DeliveryHeaders, readBody: () => Promise<Uint8Array>): Promise<string> {
    const id = automationId.toLowerCase();
    const cached = this.known.get(id) ?? this.look(id);
    const body = await readBody();
    const { known, verified } = this.verified(id, cached, headers, body);
    const { deliveryId, event } = verified;
    if (deliveryId !== null && deliveryId.length > MAX_DELIVERY_ID) {
      throw invalid(`delivery id: must be at most ${MAX_DELIVERY_ID} characters`);
    }
    const input = `{"payload":${payloadOf(body, headers.contentType)},"event":${JSON.stringify(event?.slice(0, MAX_EVENT) ?? null)}}`;
    return this.writes.run(() => {
      const automation = this.store.webhookState(id);
      if (automation?.kind !== "webhook") {
        this.known.delete(id);
        throw automationNotFound();
      }
      // The secret changed since it was read (a new one made meanwhile): the delivery is checked with the one
      // that counts now, and the old one is refused at once.
      if (automation.secretCiphertext !== known.ciphertext) verify(this.remember(automation), headers, body);
      try {
        return this.accept(automation, deliveryId, input);
      } catch (error) {
        // Remembered, but deleted since with its space (a cascade the store does not see): not found.
        if ((error as { code?: unknown }).code !== "SQLITE_CONSTRAINT_FOREIGNKEY") throw error;
        this.store.forgetWebhook(id);
        this.known.delete(id);
        throw automationNotFound();
      }
    });
  }

  /** Forgets deliveries older than the memory window (the server's hourly maintenance). */
  pruneDeliveries(now = Date.now()): void {
    this.store.pruneDeliveries(now - DELIVERY_MEMORY_MS);
  }

  /**
   * The rest of the decision, in the transaction that stores the run. The delivery is recorded first, with the
   * id its run will have: an id taken already answers its run; a refusal after that (409, 429) rolls the
   * record back with the rest of this delivery's savepoint.
   */
  private accept(automation: WebhookState, deliveryId: string | null, input: string): string {
    const now = Date.now();
    const since = now - DELIVERY_MEMORY_MS;
    const runId = newId();
    if (deliveryId !== null) {
      const delivery = { automationId: automation.id, deliveryId, runId, createdAt: now };
      if (!this.store.takeDelivery(delivery, since)) {
        const seen = this.store.deliveryRun(automation.id, deliveryId, since);
        if (seen !== undefined) return seen;
      }
    }
    assertRunnable(automation);
    // The count remembered may be high (a run it counted rolled back): it is counted again before a refusal.
    if (
      automation.queuedRuns >= MAX_QUEUED_RUNS &&
      (this.store.webhookState(automation.id, true)?.queuedRuns ?? 0) >= MAX_QUEUED_RUNS
    ) {
      throw tooMany(
        `too many runs waiting: at most ${MAX_QUEUED_RUNS} queued per automation; try again later`,
        QUEUE_FULL_RETRY_AFTER_S,
      );
    }
    return this.automations.queueRun(automation, "webhook", input, runId).id;
  }

  /**
   * The delivery checked with the secret known; refused, with the secret stored now if that is another (a new
   * one made since it was read).
   */
  private verified(id: string, known: KnownWebhook, headers: DeliveryHeaders, body: Uint8Array) {
    try {
      return { known, verified: verify(known, headers, body) };
    } catch (error) {
      const current = this.look(id);
      if (current.ciphertext === known.ciphertext) throw error;
      return { known: current, verified: verify(current, headers, body) };
    }
  }

  /** A webhook not seen yet (or seen with another secret): 404 unless it is one. */
  private look(id: string): KnownWebhook {
    const automation = isUuid(id) ? this.store.webhookState(id) : undefined;
    if (automation?.kind !== "webhook") throw automationNotFound();
    return this.remember(automation);
  }

  private remember(automation: WebhookState): KnownWebhook {
    const ciphertext = automation.secretCiphertext;
    let secret: WebhookSecret | null = null;
    if (ciphertext !== null) {
      if (!this.encryptionKey) throw new Error("the encryption key is not loaded");
      secret = webhookSecret(decryptSecret(this.encryptionKey, ciphertext));
    }
    const known = { ciphertext, secret };
    this.known.delete(automation.id);
    if (this.known.size >= KNOWN_WEBHOOKS) this.known.delete(this.known.keys().next().value as string);
    this.known.set(automation.id, known);
    return known;
  }
}

/** Checks a delivery's signature with what is known of its webhook (a webhook without a secret takes none). */
function verify(known: KnownWebhook, headers: DeliveryHeaders, body: Uint8Array): VerifiedDelivery {
  if (known.secret === null) throw unauthenticated("invalid signature");
  return verifyDelivery(known.secret, headers, body, Date.now());
}

/** A signed delivery for an automation that cannot run: 409, saying why. */
function assertRunnable(automation: WebhookState): void {
  if (automation.status !== "active") throw conflict("automation is not active");
  if (automation.configProblem !== null) throw conflict(automation.configProblem);
}

/**
 * The payload of a delivery, as JSON text: its body, whatever the Content-Type says (the signature vouches for the
 * bytes, and senders label JSON loosely), or the `payload` field of a form, which is how GitHub sends when its
 * content type is set to `application/x-www-form-urlencoded`; `null` for an empty body. Parsed to be checked, and
 * kept as it came: written again, a large payload (GitHub's are tens of KB) would cost as much as its parse.
 */
export function payloadOf(body: Uint8Array, contentType: string | null): string {
  if (body.byteLength === 0) return "null";
  let text: string | null;
  let value: unknown;
  try {
    text = utf8.decode(body);
  } catch {
    throw invalid("invalid json");
  }
  if (contentType?.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    text = new URLSearchParams(text).get("payload");
    if (text === null) throw invalid("invalid json");
  }
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid("invalid json");
  }
  assertStorableJson(value, text);
  return text;
}
