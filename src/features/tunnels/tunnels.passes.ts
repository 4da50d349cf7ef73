/**
 * The credentials of tunnels, each good for one tunnel only:
 * - a one-time link's token: random, kept for 5 minutes and taken once; in memory (a restart forgets links not
 *   yet opened; their holders ask for another), or with several nodes in the database (`LinkBook`), so a link one
 *   node made opens on any;
 * - a visitor's pass (the tunnel's cookie) and a connector's resume token: signed (HMAC-SHA256 under a key
 *   derived from the server's token secret), so they outlive a restart; a person's names their sign-in session,
 *   and ends with it (signed out, password reset). Each is checked against the person's access at every use.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Principal } from "../../core/actor";

/** How long a one-time link may wait to be opened. */
export const LINK_TTL_MS = 5 * 60 * 1000;
/** How long a visitor's pass (its cookie) lasts: a working day. */
export const VISIT_TTL_MS = 12 * 3600 * 1000;
/** How long a connector may reconnect with its resume token; a connected one gets a fresh one every hour. */
export const RESUME_TTL_MS = 24 * 3600 * 1000;
/** The prefix that tells a resume token from an access token or an `sa_` token. */
export const RESUME_PREFIX = "tnr_";

/** Links waiting to be opened, at most: each is 5 minutes old at most, so this is a flood, not use. */
const MAX_LINKS = 10_000;

/** What a signed pass says. */
interface Signed {
  /** What it is for: a visitor's cookie or a connector's reconnection. */
  p: "visit" | "connect";
  /** The automation (the tunnel) it is good for. */
  a: string;
  u: string;
  sa: string | null;
  s: string | null;
  /** Expiry, ms since the epoch. */
  e: number;
}

/** A one-time link waiting to be opened. */
export interface Link {
  principal: Principal;
  automationId: string;
  expiresAt: number;
}

/** Where links wait, by their token's SHA-256 (hex). */
export interface LinkBook {
  put(hash: string, link: Link): void;
  /** The link of `hash` for the tunnel of `automationId`, removed; undefined when there is none. */
  take(hash: string, automationId: string): Link | undefined;
}

/** Links in this process's memory: one node. */
class MemoryLinks implements LinkBook {
  private readonly links = new Map<string, Link>();

  put(hash: string, link: Link): void {
    if (this.links.size >= MAX_LINKS) {
      const now = Date.now();
      for (const [key, old] of this.links) if (old.expiresAt <= now) this.links.delete(key);
      if (this.links.size >= MAX_LINKS) this.links.delete(this.links.keys().next().value as string);
    }
    this.links.set(hash, link);
  }

  take(hash: string, automationId: string): Link | undefined {
    const link = this.links.get(hash);
    if (!link || link.automationId !== automationId) return undefined;
    this.links.delete(hash);
    return link;
  }
}

export class TunnelPasses {
  private readonly key: Buffer;

  /**
   * `secret`: the server's token secret; empty (a CLI process, which never checks a pass) means a key of its own.
   * `links`: where links wait (this process's memory unless another is given).
   */
  constructor(
    secret: Uint8Array,
    private readonly links: LinkBook = new MemoryLinks(),
  ) {
    this.key =
      secret.byteLength > 0
        ? createHmac("sha256", secret).update("tandem reverse tunnel passes").digest()
        : randomBytes(32);
  }

  /** A one-time link's token for `principal` to open the tunnel of `automationId`. */
  newLink(principal: Principal, automationId: string): string {
    const token = randomBytes(24).toString("base64url");
    const { userId, serviceAccountId, sessionId } = principal;
    this.links.put(hashOf(token), {
      principal: { userId, serviceAccountId, sessionId },
      automationId,
      expiresAt: Date.now() + LINK_TTL_MS,
    });
    return token;
  }

  /** Takes a link: its principal once, if it is for this tunnel and not expired; null otherwise. */
  takeLink(token: string, automationId: string): Principal | null {
    const link = this.links.take(hashOf(token), automationId);
    return link && link.expiresAt > Date.now() ? link.principal : null;
  }

  /** A visitor's pass (its cookie's value) for the tunnel of `automationId`. */
  visitPass(principal: Principal, automationId: string): string {
    return this.sign(principal, automationId, "visit", VISIT_TTL_MS);
  }

  /** A connector's resume token for the tunnel of `automationId`. */
  resumeToken(principal: Principal, automationId: string): string {
    return RESUME_PREFIX + this.sign(principal, automationId, "connect", RESUME_TTL_MS);
  }

  /** The principal of a visitor's pass for this tunnel, or null (forged, expired, another tunnel's). */
  visitor(pass: string, automationId: string): Principal | null {
    return this.verify(pass, automationId, "visit");
  }

  /** The principal of a resume token for this tunnel, or null. */
  resumer(token: string, automationId: string): Principal | null {
    return token.startsWith(RESUME_PREFIX)
      ? this.verify(token.slice(RESUME_PREFIX.length), automationId, "connect")
      : null;
  }

  private sign(principal: Principal, automationId: string, p: Signed["p"], ttlMs: number): string {
    const signed: Signed = {
      p,
      a: automationId,
      u: principal.userId,
      sa: principal.serviceAccountId,
      s: principal.sessionId ?? null,
      e: Date.now() + ttlMs,
    };
    const body = Buffer.from(JSON.stringify(signed)).toString("base64url");
    return `${body}.${this.mac(body).toString("base64url")}`;
  }

  private verify(token: string, automationId: string, p: Signed["p"]): Principal | null {
    const [body = "", mac = "", extra] = token.split(".");
    if (extra !== undefined) return null;
    const given = Buffer.from(mac, "base64url");
    const expected = this.mac(body);
    if (given.byteLength !== expected.byteLength || !timingSafeEqual(given, expected)) return null;
    let signed: Signed;
    try {
      signed = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Signed;
    } catch {
      return null;
    }
    if (signed.p !== p || signed.a !== automationId || !(signed.e > Date.now())) return null;
    return { userId: signed.u, serviceAccountId: signed.sa, sessionId: signed.s ?? undefined };
  }

  private mac(body: string): Buffer {
    return createHmac("sha256", this.key).update(body).digest();
  }
}

/** How a link's token is kept: never as itself, so a database dump holds no link that opens a tunnel. */
const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");
