import { describe, expect, it } from "bun:test";
import { randomBytes } from "node:crypto";
import { DecryptError, decryptSecret, encryptSecret, secretHint } from "../../src/lib/encryption";

const key = randomBytes(32);

describe("encryptSecret / decryptSecret", () => {
  it("round-trips text, including unicode and empty strings", () => {
    for (const text of ["sk-live-abcd1234", "", "ключ 🔑", "x".repeat(10000)]) {
      expect(decryptSecret(key, encryptSecret(key, text))).toBe(text);
    }
  });

  it("writes a versioned ciphertext with a fresh nonce each time", () => {
    const a = encryptSecret(key, "same");
    const b = encryptSecret(key, "same");
    expect(a.startsWith("v1:")).toBe(true);
    expect(a).not.toBe(b);
    expect(a).not.toContain("same");
  });

  it("refuses a wrong key, a tampered byte, an unknown version and garbage", () => {
    const ct = encryptSecret(key, "secret");
    expect(() => decryptSecret(randomBytes(32), ct)).toThrow(DecryptError);
    const raw = Buffer.from(ct.slice(3), "base64url");
    raw[raw.length - 20] = (raw[raw.length - 20] ?? 0) ^ 1;
    expect(() => decryptSecret(key, `v1:${raw.toString("base64url")}`)).toThrow(DecryptError);
    expect(() => decryptSecret(key, `v2:${ct.slice(3)}`)).toThrow(DecryptError);
    expect(() => decryptSecret(key, "v1:abc")).toThrow(DecryptError);
  });

  it("needs a 32-byte key", () => {
    expect(() => encryptSecret(randomBytes(16), "x")).toThrow();
  });

  it("hints with the last four characters only", () => {
    expect(secretHint("sk-1234567890abcd")).toBe("****abcd");
  });

  it("counts characters as code points: a hint never holds half an emoji", () => {
    expect(secretHint("install-secret-😀😀x")).toBe("****-😀😀x");
    // Eleven characters, though fourteen UTF-16 units: too short for a hint.
    expect(secretHint("abcdefgh😀😀😀")).toBe("****");
  });
});
