/**
 * HS256 access tokens, signed and verified by `@elysiajs/jwt` (jose underneath), the library the design names.
 * Its `verify` is told to accept HS256 only, a `JWT` header type and the claims we issue (`exp` among them:
 * without options jose accepts an HS512 token, a token without `exp` and one of another type). What jose
 * cannot be told is checked here: the claims' values (the type `access`, a subject, a session), and that the
 * header and the signature are exactly the text we issue, since jose also takes other spellings of the same
 * bytes (padding, a last character's unused bits). A verification costs ~25 µs against ~3 µs for a plain HMAC
 * check and waits for WebCrypto: callers remember the tokens they verified.
 */
import { randomBytes } from "node:crypto";
import { jwt } from "@elysiajs/jwt";

/** The only header we issue, as text: `{"alg":"HS256","typ":"JWT"}` in base64url. */
const HEADER = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");

/** Claims of an access token. */
export interface AccessClaims {
  sub: string;
  typ: "access";
  iat?: number;
  exp: number;
  /** The session (the refresh-token family of the sign-in) the token was issued to; ending it ends the token. */
  sid: string;
}

type Library = ReturnType<typeof jwt>["decorator"]["jwt"];

/** The claims of a token's payload, unverified: only for a token we have just signed. */
function payloadOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8"));
}

/** Signs and verifies the access tokens of one secret. */
export class AccessTokens {
  private readonly library: Library;

  constructor(secret: Uint8Array) {
    // Without a secret (commands that sign nothing, apps built in a test) a random one: jose refuses an empty key,
    // and an empty key would let anyone sign; tokens signed here verify in this process only.
    this.library = jwt({ secret: secret.length > 0 ? secret : randomBytes(32) }).decorator.jwt;
  }

  /** Signs an access token for `userId` in session `sid`, valid for `ttlSeconds`. */
  async sign(userId: string, sid: string, ttlSeconds: number): Promise<string> {
    for (;;) {
      const iat = Math.floor(Date.now() / 1000);
      const token = await this.library.sign({ sub: userId, typ: "access", sid, exp: iat + ttlSeconds });
      // The library stamps `iat` from its own clock: when a second turned in between, again, so exp - iat is the ttl.
      if (payloadOf(token).iat === iat) return token;
    }
  }

  /** The claims of a valid, unexpired access token, or null. */
  async verify(token: string, nowMs = Date.now()): Promise<AccessClaims | null> {
    if (!token.startsWith(`${HEADER}.`)) return null;
    const signature = token.slice(token.lastIndexOf(".") + 1);
    if (Buffer.from(signature, "base64url").toString("base64url") !== signature) return null;
    const claims = await this.library.verify(token, {
      algorithms: ["HS256"],
      typ: "JWT",
      requiredClaims: ["exp", "sub", "typ", "sid"],
      currentDate: new Date(nowMs),
    });
    // jose has checked that `exp` (and `iat`, when present) are numbers, and the expiry.
    if (claims === false || claims.typ !== "access" || claims.exp === undefined) return null;
    if (typeof claims.sub !== "string" || claims.sub === "" || typeof claims.sid !== "string" || claims.sid === "") {
      return null;
    }
    return { sub: claims.sub, typ: "access", iat: claims.iat, exp: claims.exp, sid: claims.sid };
  }
}
