import { describe, expect, it } from "bun:test";
import { createECDH, randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  assertNodeUrl,
  ConfigError,
  loadConfig,
  nodeUrl,
  parseEncryptionKey,
  parseVapidPrivateKey,
} from "../../src/config";
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

describe("several nodes: TANDEM_NODE_URL", () => {
  const load = (env: Record<string, string>, host = "127.0.0.1") =>
    loadConfig({ data: join(tmpdir(), "tandem-unused"), host }, env);
  const postgres = { TANDEM_DATABASE_URL: "postgres://tandem@db.acme.test/tandem" };

  it("reaches a node at TANDEM_NODE_URL, without its trailing slash, else at loopback when it listens there alone", () => {
    expect(nodeUrl(load({ TANDEM_NODE_URL: "http://10.0.0.2:8080/" }, "0.0.0.0"), 8080)).toBe("http://10.0.0.2:8080");
    expect(nodeUrl(load({}), 4123)).toBe("http://127.0.0.1:4123");
    expect(nodeUrl(load({}, "localhost"), 4123)).toBe("http://127.0.0.1:4123");
    expect(nodeUrl(load({}, "::1"), 4123)).toBe("http://[::1]:4123");
    expect(nodeUrl(load({}, "0.0.0.0"), 8080)).toBeNull();
  });

  it("refuses a start on PostgreSQL beyond loopback without TANDEM_NODE_URL, saying what to set", () => {
    expect(() => assertNodeUrl(load(postgres, "0.0.0.0"))).toThrow(
      "TANDEM_NODE_URL is required on PostgreSQL when serving on 0.0.0.0",
    );
    expect(() =>
      assertNodeUrl(load({ ...postgres, TANDEM_NODE_URL: "http://10.0.0.2:8080" }, "0.0.0.0")),
    ).not.toThrow();
    expect(() => assertNodeUrl(load(postgres))).not.toThrow();
    // SQLite: one process, no other node to reach it.
    expect(() => assertNodeUrl(load({}, "0.0.0.0"))).not.toThrow();
  });

  it("refuses a node URL that is not a plain http(s) URL", () => {
    for (const url of ["10.0.0.2:8080", "ftp://10.0.0.2", "http://10.0.0.2/?a=1"]) {
      expect(() => load({ TANDEM_NODE_URL: url })).toThrow("TANDEM_NODE_URL must be an http(s) URL");
    }
    expect(() => load({ TANDEM_NODE_URL: "http://u:p@10.0.0.2" })).toThrow("TANDEM_NODE_URL must not hold a user");
  });
});

describe("TANDEM_JOB_LEASE_SEC", () => {
  const load = (env: Record<string, string>) => loadConfig({ data: join(tmpdir(), "tandem-unused") }, env);

  it("takes a job lease in seconds, 30 by default", () => {
    expect(load({}).jobLeaseMs).toBe(30_000);
    expect(load({ TANDEM_JOB_LEASE_SEC: "3" }).jobLeaseMs).toBe(3000);
    for (const lease of ["0", "1", "2.5", "3601"]) {
      expect(() => load({ TANDEM_JOB_LEASE_SEC: lease })).toThrow(ConfigError);
    }
  });
});

describe("redactUrl of a tunnel link", () => {
  it("hides the one-time link's token", () => {
    expect(redactUrl("/tunnels/x/?tunnel_token=abc&q=1")).toBe("/tunnels/x/?tunnel_token=%5Bredacted%5D&q=1");
  });
});

describe("email and push settings", () => {
  const load = (env: Record<string, string>) => loadConfig({ data: "/tmp/tandem-config-test" }, env);
  const refusal = (env: Record<string, string>) => {
    try {
      load(env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error("accepted");
  };

  it("takes TANDEM_SMTP_URL with TANDEM_SMTP_FROM, and never shows the URL when serialized", () => {
    const config = load({
      TANDEM_SMTP_URL: "smtps://mailer:pa55-word@mail.acme.test:465",
      TANDEM_SMTP_FROM: "Tandem <t@acme.test>",
    });
    expect(config.smtp?.url).toBe("smtps://mailer:pa55-word@mail.acme.test:465");
    expect(config.smtp?.from).toBe("Tandem <t@acme.test>");
    expect(JSON.stringify(config)).not.toContain("pa55-word");
    expect(load({}).smtp).toBeNull();
  });

  it("refuses an SMTP URL of another scheme, or one half of the pair, without quoting the URL", () => {
    const https = refusal({ TANDEM_SMTP_URL: "https://u:pa55-word@mail.acme.test", TANDEM_SMTP_FROM: "t@acme.test" });
    expect(https).toBe("TANDEM_SMTP_URL must be an smtp:// or smtps:// URL (smtp://user:password@host:587)");
    expect(refusal({ TANDEM_SMTP_URL: "smtp://u:pa55-word@mail.acme.test" })).toBe(
      "TANDEM_SMTP_URL needs TANDEM_SMTP_FROM, the sender of Tandem's emails",
    );
    expect(refusal({ TANDEM_SMTP_FROM: "t@acme.test" })).toBe(
      "TANDEM_SMTP_FROM is set without TANDEM_SMTP_URL: set both, or neither",
    );
    expect(refusal({ TANDEM_SMTP_URL: "smtp://mail.acme.test", TANDEM_SMTP_FROM: "not an address" })).toBe(
      "TANDEM_SMTP_FROM must be an email address, or a name and one: Tandem <tandem@acme.test>",
    );
  });

  it("takes TANDEM_PUBLIC_URL without its trailing slash, and refuses anything but http(s)", () => {
    expect(load({ TANDEM_PUBLIC_URL: "https://tandem.acme.test/" }).publicUrl).toBe("https://tandem.acme.test");
    expect(load({}).publicUrl).toBeNull();
    expect(refusal({ TANDEM_PUBLIC_URL: "ftp://tandem.acme.test" })).toBe(
      "TANDEM_PUBLIC_URL must be an http(s) URL (https://tandem.acme.test)",
    );
  });

  it("reads a TANDEM_VAPID_PRIVATE_KEY of 32 bytes on the curve, and refuses others", () => {
    const ecdh = createECDH("prime256v1");
    ecdh.generateKeys();
    const key = ecdh.getPrivateKey();
    expect(Buffer.from(parseVapidPrivateKey(key.toString("base64url"))).equals(key)).toBe(true);
    for (const bad of ["", "short", randomBytes(31).toString("base64url"), Buffer.alloc(32).toString("base64url")]) {
      expect(() => parseVapidPrivateKey(bad)).toThrow(ConfigError);
    }
  });
});
