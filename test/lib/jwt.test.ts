import { describe, expect, it } from "bun:test";
import { signAccessToken, verifyAccessToken } from "../../src/lib/jwt";

const secret = new TextEncoder().encode("a".repeat(40));

describe("access tokens", () => {
  it("verify within their lifetime and not after", () => {
    const now = Date.now();
    const token = signAccessToken(secret, "user-1", 900, now);
    expect(verifyAccessToken(secret, token, now)?.sub).toBe("user-1");
    expect(verifyAccessToken(secret, token, now + 899_000)).not.toBeNull();
    expect(verifyAccessToken(secret, token, now + 900_000)).toBeNull();
  });

  it("refuse another secret, extra segments and malformed input", () => {
    const token = signAccessToken(secret, "user-1", 900);
    expect(verifyAccessToken(new TextEncoder().encode("b".repeat(40)), token)).toBeNull();
    for (const bad of [`${token}.x`, "", ".", "..", "a.b.c", token.replace(".", "")]) {
      expect(verifyAccessToken(secret, bad)).toBeNull();
    }
  });
});
