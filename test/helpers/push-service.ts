/**
 * A loopback stand-in for a browser's push service, and the browser's side of a subscription: its P-256 key
 * pair and auth secret, made here with node:crypto, so a test can check the VAPID JWT of each request and decrypt
 * its payload (RFC 8291, aes128gcm) as a browser would.
 */
import { createDecipheriv, createECDH, createHmac, createPublicKey, randomBytes, verify } from "node:crypto";

/** One push as the stand-in received it. */
export interface SeenPush {
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

export interface FakePushService {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  pushes: SeenPush[];
  to(path: string): SeenPush[];
  /** What the stand-in answers for a path (default 201). */
  answer(path: string, status: number, delayMs?: number): void;
  stop(): void;
}

export function startFakePushService(): FakePushService {
  const pushes: SeenPush[] = [];
  const answers = new Map<string, { status: number; delayMs: number }>();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const body = Buffer.from(await request.arrayBuffer());
      pushes.push({ path, headers: Object.fromEntries(request.headers), body });
      const answer = answers.get(path) ?? { status: 201, delayMs: 0 };
      if (answer.delayMs > 0) await Bun.sleep(answer.delayMs);
      return new Response(null, { status: answer.status });
    },
  });
  return {
    origin: `http://127.0.0.1:${server.port}`,
    pushes,
    to: (path) => pushes.filter((p) => p.path === path),
    answer(path, status, delayMs = 0) {
      answers.set(path, { status, delayMs });
    },
    stop: () => void server.stop(true),
  };
}

/** A browser's subscription: what it sends to the server, and the private half it decrypts with. */
export interface BrowserSubscription {
  json: { endpoint: string; expirationTime: null; keys: { p256dh: string; auth: string } };
  decrypt(body: Buffer): string;
}

const hmac = (key: Buffer, data: Buffer) => createHmac("sha256", key).update(data).digest();

/** A new subscription to `endpoint`, as `pushManager.subscribe` makes one. */
export function browserSubscription(endpoint: string): BrowserSubscription {
  const ecdh = createECDH("prime256v1");
  const publicKey = ecdh.generateKeys();
  const authSecret = randomBytes(16);
  return {
    json: {
      endpoint,
      expirationTime: null,
      keys: { p256dh: publicKey.toString("base64url"), auth: authSecret.toString("base64url") },
    },
    // RFC 8291 §3.4 and RFC 8188: salt | record size | key id (the sender's public key) | one record.
    decrypt(body) {
      const salt = body.subarray(0, 16);
      const idLength = body[20] as number;
      const senderKey = body.subarray(21, 21 + idLength);
      const record = body.subarray(21 + idLength);
      const shared = ecdh.computeSecret(senderKey);
      const prkKey = hmac(authSecret, shared);
      const keyInfo = Buffer.concat([Buffer.from("WebPush: info\0"), publicKey, senderKey]);
      const ikm = hmac(prkKey, Buffer.concat([keyInfo, Buffer.from([1])]));
      const prk = hmac(salt, ikm);
      const cek = hmac(prk, Buffer.from("Content-Encoding: aes128gcm\0\x01")).subarray(0, 16);
      const nonce = hmac(prk, Buffer.from("Content-Encoding: nonce\0\x01")).subarray(0, 12);
      const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
      decipher.setAuthTag(record.subarray(record.length - 16));
      const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
      // The last record ends with a 2 delimiter, then zero padding.
      let end = padded.length - 1;
      while (end >= 0 && padded[end] === 0) end--;
      if (padded[end] !== 2) throw new Error("not the last record");
      return padded.subarray(0, end).toString("utf8");
    },
  };
}

/** The claims of a `vapid t=JWT, k=KEY` Authorization header, once its ES256 signature checks out with `k`. */
export function verifiedVapid(authorization: string): { claims: Record<string, unknown>; key: string } {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authorization);
  if (!match) throw new Error(`not a VAPID authorization: ${authorization}`);
  const [jwt, key] = [match[1] as string, match[2] as string];
  const [head, claims, signature] = jwt.split(".") as [string, string, string];
  if (JSON.parse(Buffer.from(head, "base64url").toString()).alg !== "ES256") throw new Error("not ES256");
  const point = Buffer.from(key, "base64url");
  const jwk = {
    kty: "EC",
    crv: "P-256",
    x: point.subarray(1, 33).toString("base64url"),
    y: point.subarray(33, 65).toString("base64url"),
  };
  const ok = verify(
    "sha256",
    Buffer.from(`${head}.${claims}`),
    { key: createPublicKey({ key: jwk, format: "jwk" }), dsaEncoding: "ieee-p1363" },
    Buffer.from(signature, "base64url"),
  );
  if (!ok) throw new Error("bad VAPID signature");
  return { claims: JSON.parse(Buffer.from(claims, "base64url").toString()), key };
}
