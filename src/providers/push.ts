/**
 * Web Push (RFC 8030) to a browser's push service: web-push signs the VAPID JWT (RFC 8292) and encrypts the
 * payload (RFC 8291, aes128gcm) to the subscription's keys; the request itself goes out here with `fetch`, so it
 * has a deadline and a loopback stand-in for a push service can be plain HTTP. Nothing here logs: an endpoint
 * is a capability URL.
 */
import { createECDH } from "node:crypto";

/**
 * web-push and what it brings (ASN.1, big numbers, JWS), loaded with the first push: a server that never pushes
 * keeps neither their code nor their objects in memory.
 */
const webPush = () => require("web-push") as typeof import("web-push");

/** Where a push goes: a browser's `PushSubscription`. */
export interface PushTarget {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** How long a push service may take to answer. */
const PUSH_TIMEOUT_MS = 10_000;

/** The public half of a VAPID private key, base64url of the uncompressed point (65 bytes), as browsers take it. */
export function vapidPublicKey(privateKey: Uint8Array): string {
  const ecdh = createECDH("prime256v1");
  ecdh.setPrivateKey(privateKey);
  return ecdh.getPublicKey().toString("base64url");
}

/** Sends pushes signed with one VAPID key pair. */
export class PushClient {
  readonly publicKey: string;
  private readonly privateKey: string;

  constructor(
    privateKey: Uint8Array,
    /** The contact push services are given (`sub`): an `https:` URL or a `mailto:` address. */
    private readonly subject: () => string,
  ) {
    this.publicKey = vapidPublicKey(privateKey);
    this.privateKey = Buffer.from(privateKey).toString("base64url");
  }

  /**
   * Encrypts `payload` to the target and posts it; the push service's status (201 accepted; 404 and 410: the
   * subscription is gone). Throws when no answer came (a connection error, the deadline).
   */
  async send(target: PushTarget, payload: string, options: { ttlSec: number; urgency: "normal" | "high" }) {
    const details = webPush().generateRequestDetails(target, payload, {
      vapidDetails: { subject: this.subject(), publicKey: this.publicKey, privateKey: this.privateKey },
      TTL: options.ttlSec,
      urgency: options.urgency,
    });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(details.headers)) {
      if (name.toLowerCase() !== "content-length") headers[name] = String(value);
    }
    const res = await fetch(details.endpoint, {
      method: details.method,
      headers,
      body: details.body as BodyInit | null,
      redirect: "manual",
      signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
    });
    await res.body?.cancel();
    return res.status;
  }
}
