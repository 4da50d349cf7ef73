/**
 * Requests between the nodes of one install on PostgreSQL (contract §9): a node signs what it sends another with
 * a key derived from the JWT_SECRET every node shares, over the method, the path, the time, a nonce and both
 * nodes' ids. The receiver takes a request only within `WINDOW_MS` of its time (nodes' clocks roughly agree, as
 * job leases need), only if it names this node, and only once (a nonce seen is refused): nothing from outside
 * carries a valid signature, and one seen on the wire cannot be sent again.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** How far a request's time may be from the receiver's clock. */
export const WINDOW_MS = 30_000;

/** The headers a signed request carries. */
export const NODE_HEADERS = {
  from: "x-tandem-node",
  to: "x-tandem-node-to",
  time: "x-tandem-node-time",
  nonce: "x-tandem-node-nonce",
  signature: "x-tandem-node-signature",
} as const;

/** Nonces remembered at most: a flood past this many within the window is refused until they age out. */
const MAX_NONCES = 100_000;

export class NodeRequests {
  private readonly key: Buffer;
  /** Nonces taken, with the time their request is too old to be taken anyway. */
  private readonly seen = new Map<string, number>();
  private pruned = 0;

  /** `secret`: the install's JWT_SECRET; `self`: this node's id. */
  constructor(
    secret: Uint8Array,
    readonly self: string,
  ) {
    if (secret.byteLength === 0) throw new Error("node requests need the shared JWT_SECRET");
    this.key = createHmac("sha256", secret).update("tandem node requests").digest();
  }

  /** The headers that sign a request of `method` to `path` (with its query) for the node `to`. */
  sign(method: string, path: string, to: string, now = Date.now()): Record<string, string> {
    const time = String(now);
    const nonce = randomBytes(16).toString("base64url");
    const signature = this.mac(method, path, time, nonce, this.self, to).toString("base64url");
    return {
      [NODE_HEADERS.from]: this.self,
      [NODE_HEADERS.to]: to,
      [NODE_HEADERS.time]: time,
      [NODE_HEADERS.nonce]: nonce,
      [NODE_HEADERS.signature]: signature,
    };
  }

  /** The node that sent `request`, if it is signed for this node, in time, and new; null otherwise. */
  verify(request: Request, now = Date.now()): string | null {
    const header = (name: string) => request.headers.get(name) ?? "";
    const from = header(NODE_HEADERS.from);
    const to = header(NODE_HEADERS.to);
    const time = header(NODE_HEADERS.time);
    const nonce = header(NODE_HEADERS.nonce);
    const given = Buffer.from(header(NODE_HEADERS.signature), "base64url");
    if (!from || to !== this.self || !/^\d{1,15}$/.test(time) || !/^[\w-]{16,64}$/.test(nonce)) return null;
    if (Math.abs(now - Number(time)) > WINDOW_MS) return null;
    const url = new URL(request.url);
    const expected = this.mac(request.method, url.pathname + url.search, time, nonce, from, to);
    if (given.byteLength !== expected.byteLength || !timingSafeEqual(given, expected)) return null;
    if (!this.take(nonce, Number(time) + WINDOW_MS, now)) return null;
    return from;
  }

  /** Remembers a nonce until its request could no longer be taken; false when it was taken before. */
  private take(nonce: string, until: number, now: number): boolean {
    if (this.seen.has(nonce)) return false;
    if (now - this.pruned > WINDOW_MS || this.seen.size >= MAX_NONCES) {
      this.pruned = now;
      for (const [old, expiry] of this.seen) if (expiry < now) this.seen.delete(old);
      if (this.seen.size >= MAX_NONCES) return false;
    }
    this.seen.set(nonce, until);
    return true;
  }

  private mac(method: string, path: string, time: string, nonce: string, from: string, to: string): Buffer {
    return createHmac("sha256", this.key).update([method, path, time, nonce, from, to].join("\n")).digest();
  }
}
