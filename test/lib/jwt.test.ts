import { describe, expect, it } from "bun:test";
import { createHmac } from "node:crypto";
import { AccessTokens } from "../../src/lib/jwt";

const secret = new TextEncoder().encode("a".repeat(40));
const tokens = new AccessTokens(secret);

const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
const payloadOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString());

/** Signs whatever header and claims a test wants with the real secret (HS256 unless told otherwise). */
function forge(header: Record<string, unknown>, claims: Record<string, unknown>, alg: "sha256" | "sha512" = "sha256") {
  const input = `${enc(header)}.${enc(claims)}`;
  return `${input}.${createHmac(alg, secret).update(input).digest("base64url")}`;
}

const HS256 = { alg: "HS256", typ: "JWT" };
const now = () => Math.floor(Date.now() / 1000);
const claims = (extra: Record<string, unknown> = {}) => ({
  sub: "user-1",
  typ: "access",
  iat: now(),
  exp: now() + 60,
  sid: "session-1",
  ...extra,
});

describe("access tokens", () => {
  it("carry exactly sub, typ, sid, iat and exp, with exp - iat the lifetime", async () => {
    const token = await tokens.sign("user-1", "session-1", 900);
    const payload = payloadOf(token);
    expect(Object.keys(payload).sort()).toEqual(["exp", "iat", "sid", "sub", "typ"]);
    expect(payload).toMatchObject({ sub: "user-1", typ: "access", sid: "session-1" });
    expect(payload.exp - payload.iat).toBe(900);
    expect(Math.abs(payload.iat - now())).toBeLessThanOrEqual(1);
    expect(token.split(".")[0]).toBe(enc(HS256));
  });

  it("verify within their lifetime and not after", async () => {
    const token = await tokens.sign("user-1", "session-1", 900);
    const { iat, exp } = payloadOf(token);
    expect(await tokens.verify(token)).toEqual({ sub: "user-1", typ: "access", iat, exp, sid: "session-1" });
    expect(await tokens.verify(token, exp * 1000 - 1)).not.toBeNull();
    expect(await tokens.verify(token, exp * 1000)).toBeNull();
  });

  it("refuse another secret, extra segments and malformed input", async () => {
    const token = await tokens.sign("user-1", "session-1", 900);
    expect(await new AccessTokens(new TextEncoder().encode("b".repeat(40))).verify(token)).toBeNull();
    for (const bad of [`${token}.x`, "", ".", "..", "a.b.c", token.replace(".", "")]) {
      expect(await tokens.verify(bad)).toBeNull();
    }
  });

  it("accept a token of the right shape signed with the secret", async () => {
    expect(await tokens.verify(forge(HS256, claims()))).not.toBeNull();
  });

  const refused: [string, () => string][] = [
    ["alg none", () => `${enc({ alg: "none", typ: "JWT" })}.${enc(claims())}.`],
    ["HS512 signed with the right secret", () => forge({ alg: "HS512", typ: "JWT" }, claims(), "sha512")],
    ["another header type", () => forge({ alg: "HS256", typ: "at+jwt" }, claims())],
    ["a header with more than alg and typ", () => forge({ ...HS256, kid: "1" }, claims())],
    ["no exp", () => forge(HS256, claims({ exp: undefined }))],
    ["an exp that is not a number", () => forge(HS256, claims({ exp: String(now() + 60) }))],
    ["an expired token", () => forge(HS256, claims({ iat: now() - 1000, exp: now() - 100 }))],
    ["a token of another type", () => forge(HS256, claims({ typ: "refresh" }))],
    ["no subject", () => forge(HS256, claims({ sub: undefined }))],
    ["an empty subject", () => forge(HS256, claims({ sub: "" }))],
    ["no sid", () => forge(HS256, claims({ sid: undefined }))],
    ["an empty sid", () => forge(HS256, claims({ sid: "" }))],
    ["a sid that is not a string", () => forge(HS256, claims({ sid: 7 }))],
    ["a tampered payload", () => forge(HS256, claims()).replace(/\.[^.]+\./, `.${enc(claims({ sub: "user-2" }))}.`)],
    ["a bad signature", () => `${forge(HS256, claims()).replace(/\.[^.]+$/, "")}.${"A".repeat(43)}`],
  ];
  for (const [name, token] of refused) {
    it(`refuse ${name}`, async () => {
      expect(await tokens.verify(token())).toBeNull();
    });
  }

  it("refuse a signature spelled otherwise than issued, though it decodes to the same bytes", async () => {
    const token = await tokens.sign("user-1", "session-1", 900);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    // 32 bytes are 43 characters whose last one carries 2 unused bits: three other spellings of that character.
    const last = alphabet.indexOf(token.at(-1) ?? "");
    const spellings = [1, 2, 3].map((bits) => `${token.slice(0, -1)}${alphabet[last | bits]}`);
    for (const bad of [...spellings, `${token}=`, `${token} `, `${token.slice(0, -10)} ${token.slice(-10)}`]) {
      expect(Buffer.from(bad.slice(bad.lastIndexOf(".") + 1), "base64url")).toEqual(
        Buffer.from(token.slice(token.lastIndexOf(".") + 1), "base64url"),
      );
      expect(await tokens.verify(bad)).toBeNull();
    }
    expect(await tokens.verify(token)).not.toBeNull();
  });
});
