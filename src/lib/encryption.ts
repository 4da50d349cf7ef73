/**
 * AES-256-GCM for secrets at rest (provider keys, OAuth tokens). Ciphertext is `v1:<base64url(nonce|ct|tag)>`
 * with a fresh 12-byte random nonce each time; the version prefix lets a later scheme coexist.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const VERSION = "v1:";
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** Raised when a ciphertext is malformed, of an unknown version, or fails authentication. */
export class DecryptError extends Error {}

/** Encrypts `plaintext` under a 32-byte key. */
export function encryptSecret(key: Uint8Array, plaintext: string): string {
  if (key.length !== 32) throw new Error("encryption key must be 32 bytes");
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return VERSION + Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64url");
}

/** Decrypts what `encryptSecret` produced; throws DecryptError on any tampering or wrong key. */
export function decryptSecret(key: Uint8Array, ciphertext: string): string {
  if (!ciphertext.startsWith(VERSION)) throw new DecryptError("unknown ciphertext version");
  const raw = Buffer.from(ciphertext.slice(VERSION.length), "base64url");
  if (raw.length < NONCE_BYTES + TAG_BYTES) throw new DecryptError("ciphertext too short");
  const nonce = raw.subarray(0, NONCE_BYTES);
  const tag = raw.subarray(raw.length - TAG_BYTES);
  const body = raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES);
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, nonce);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
  } catch {
    throw new DecryptError("ciphertext failed authentication");
  }
}

/** Below this length a secret's last four characters would give away too much of it. */
const HINTED_LENGTH = 12;

/**
 * The display hint of a secret: `****` and its last four characters, or only `****` for a secret shorter
 * than 12 characters (no real provider key is), whose last four would be most or all of it. Characters are
 * code points: a hint never ends in half of an emoji.
 */
export function secretHint(secret: string): string {
  const characters = [...secret];
  return characters.length < HINTED_LENGTH ? "****" : `****${characters.slice(-4).join("")}`;
}
