/**
 * HS256 access tokens. Verification pins the header to exactly HS256/JWT, requires a numeric `exp` in the
 * future and the token type `access`: a token of another algorithm, kind or signature is refused. Written
 * here rather than taken from a library because the check is small and sits on every request's hot path.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

const HEADER = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");

/** Claims of an access token. */
export interface AccessClaims {
  sub: string;
  typ: "access";
  iat: number;
  exp: number;
  /** The session (the refresh-token family of the sign-in) the token was issued to; ending it ends the token. */
  sid?: string;
}

/** Signs an access token for `userId` in session `sid`, valid for `ttlSeconds`. */
export function signAccessToken(
  secret: Uint8Array,
  userId: string,
  ttlSeconds: number,
  nowMs = Date.now(),
  sid?: string,
): string {
  const iat = Math.floor(nowMs / 1000);
  const claims: AccessClaims = { sub: userId, typ: "access", iat, exp: iat + ttlSeconds, sid };
  const payload = Buffer.from(JSON.stringify(claims)).toString("base64url");
  const input = `${HEADER}.${payload}`;
  return `${input}.${createHmac("sha256", secret).update(input).digest("base64url")}`;
}

function decodeJson(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
}

/** Returns the claims of a valid, unexpired access token, or null. */
export function verifyAccessToken(secret: Uint8Array, token: string, nowMs = Date.now()): AccessClaims | null {
  const first = token.indexOf(".");
  const second = token.indexOf(".", first + 1);
  if (first <= 0 || second <= first + 1 || token.indexOf(".", second + 1) !== -1) return null;
  const header = decodeJson(token.slice(0, first)) as Record<string, unknown> | undefined;
  if (header?.alg !== "HS256" || header.typ !== "JWT" || Object.keys(header).length !== 2) return null;
  const signature = Buffer.from(token.slice(second + 1), "base64url");
  const expected = createHmac("sha256", secret).update(token.slice(0, second)).digest();
  if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) return null;
  const claims = decodeJson(token.slice(first + 1, second)) as Record<string, unknown> | undefined;
  if (claims?.typ !== "access" || typeof claims.sub !== "string" || claims.sub === "") return null;
  if (typeof claims.exp !== "number" || !Number.isFinite(claims.exp)) return null;
  if (claims.exp * 1000 <= nowMs) return null;
  if (claims.sid !== undefined && typeof claims.sid !== "string") return null;
  return claims as unknown as AccessClaims;
}
