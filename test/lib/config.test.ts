import { describe, expect, it } from "bun:test";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig, parseEncryptionKey } from "../../src/config";
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

describe("reverse tunnel settings", () => {
  // Loading the settings reads the data dir's path, not the dir: it need not exist.
  const load = (env: Record<string, string>) => loadConfig({ data: join(tmpdir(), "tandem-unused") }, env).tunnels;

  it("default to a 30 s answer timeout on Tandem's own origin", () => {
    expect(load({})).toEqual({ answerTimeoutMs: 30_000, origin: null });
  });

  it("take TANDEM_TUNNEL_ANSWER_TIMEOUT_SEC in seconds and TANDEM_TUNNEL_ORIGIN as an origin", () => {
    const tunnels = load({
      TANDEM_TUNNEL_ANSWER_TIMEOUT_SEC: "90",
      TANDEM_TUNNEL_ORIGIN: "https://Tunnels.Acme.test/",
    });
    expect(tunnels).toEqual({ answerTimeoutMs: 90_000, origin: "https://tunnels.acme.test" });
  });

  it("refuse an origin with a path or of another scheme, and a timeout that is not a whole number of seconds", () => {
    for (const origin of ["https://acme.test/tunnels", "ftp://acme.test", "acme.test", "https://u:p@acme.test"]) {
      expect(() => load({ TANDEM_TUNNEL_ORIGIN: origin })).toThrow(
        "TANDEM_TUNNEL_ORIGIN must be an http(s) origin: scheme, host and port, no path",
      );
    }
    for (const timeout of ["0", "1.5", "30s", "3601"]) {
      expect(() => load({ TANDEM_TUNNEL_ANSWER_TIMEOUT_SEC: timeout })).toThrow(ConfigError);
    }
  });
});

describe("redactUrl of a tunnel link", () => {
  it("hides the one-time link's token", () => {
    expect(redactUrl("/tunnels/x/?tunnel_token=abc&q=1")).toBe("/tunnels/x/?tunnel_token=%5Bredacted%5D&q=1");
  });
});
