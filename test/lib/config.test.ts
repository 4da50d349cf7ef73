import { describe, expect, it } from "bun:test";
import { randomBytes } from "node:crypto";
import { ConfigError, parseEncryptionKey } from "../../src/config";
import { redactUrl } from "../../src/lib/log";

describe("parseEncryptionKey", () => {
  it("takes 64 hex characters first, then base64 of exactly 32 bytes", () => {
    const bytes = randomBytes(32);
    expect(Buffer.from(parseEncryptionKey(bytes.toString("hex"))).equals(bytes)).toBe(true);
    expect(Buffer.from(parseEncryptionKey(bytes.toString("base64"))).equals(bytes)).toBe(true);
    // 64 hex characters are also valid base64 (of 48 bytes): hex must win.
    expect(parseEncryptionKey("ab".repeat(32))).toHaveLength(32);
  });

  it("refuses anything else", () => {
    for (const bad of [
      "",
      "short",
      randomBytes(16).toString("base64"),
      randomBytes(33).toString("base64"),
      "zz".repeat(32),
    ]) {
      expect(() => parseEncryptionKey(bad)).toThrow(ConfigError);
    }
  });
});

describe("redactUrl", () => {
  it("hides credentials in the query and keeps the rest", () => {
    expect(redactUrl("/ws?token=abc&file_id=1")).toBe("/ws?token=%5Bredacted%5D&file_id=1");
    expect(redactUrl("/x?api_key=1&secret=2&password=3")).not.toMatch(/=[123](&|$)/);
    expect(redactUrl("/plain")).toBe("/plain");
    expect(redactUrl("/q?q=hello")).toBe("/q?q=hello");
  });
});
