/** Opaque tokens: random, shown once, stored only as a SHA-256 hash. */
import { randomBytes } from "node:crypto";
import { sha256Hex } from "./hash";

/** A random token with a readable prefix (`sa_`, `rt_`, `inv_`). */
export function newToken(prefix: string): string {
  return prefix + randomBytes(32).toString("base64url");
}

/** The stored form of an opaque token. High-entropy tokens need no salt or slow hash. */
export function hashToken(token: string): string {
  return sha256Hex(token);
}
