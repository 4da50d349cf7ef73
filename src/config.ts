/**
 * The only module that reads process.env. Flags win over env; env wins over the data dir's stored values.
 */

import { createECDH, randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { AddressRanges } from "./lib/addresses";

/** Flags given on the command line; every one optional. */
export interface ConfigFlags {
  data?: string;
  port?: number;
  host?: string;
  /** `--database-url`: PostgreSQL instead of SQLite in the data dir. */
  databaseUrl?: string;
}

/** The model gateway (`modelrouter` staff): api-spec §8, every `MODELROUTER_*` setting. */
export interface ModelrouterSettings {
  readonly apiBaseUrl: string;
  readonly chatCompletionsPath: string;
  readonly toolsEnabled: boolean;
  readonly skipPreread: boolean;
  readonly webSearchTool: boolean;
  readonly datetimeTool: boolean;
  readonly webSearchMaxResults: number;
  readonly webSearchMaxTotalResults: number;
  readonly webSearchEngine: string;
  readonly maxToolIterations: number;
  readonly toolStepTimeoutSec: number;
  /** Passed as `reasoning` when set. */
  readonly reasoning: Readonly<Record<string, unknown>> | null;
  /** Passed as `max_tokens` when set. */
  readonly maxTokens: number | null;
  /** Passed as `plugins` when set. */
  readonly plugins: readonly Readonly<Record<string, unknown>>[] | null;
  readonly defaultModel: string;
}

/** The coding-agent service (`agent` staff): api-spec §8, every `AGENT_*` setting. */
export interface AgentSettings {
  readonly apiBaseUrl: string;
  /** Origin of the `/v0/agents` cloud-agent endpoints. */
  readonly agentsBaseUrl: string;
  readonly chatCompletionsPath: string;
  readonly completionModel: string;
  /** How the local-bridge completions path authenticates; cloud-agent calls always use Basic. */
  readonly httpAuth: "bearer" | "basic";
  /** (extension) Answer through the local bridge's completions path instead of launching cloud-agent runs. */
  readonly localBridge: boolean;
}

/** Reverse tunnels (contract §8): how long a visitor waits for the connector's answer, and where tunnels are served. */
export interface TunnelSettings {
  /** No response head within this long: 504. */
  readonly answerTimeoutMs: number;
  /**
   * A second origin (`https://tunnels.acme.test`) that serves tunnels and nothing else, so their pages run apart
   * from the web UI's storage; null: tunnels are served on the main origin, sandboxed.
   */
  readonly origin: string | null;
}

/** Everything the server and the CLI need to know about their environment. */
export interface Config {
  readonly dataDir: string;
  readonly dbPath: string;
  /** PostgreSQL shared by every node (`TANDEM_DATABASE_URL`), or null: SQLite at `dbPath`. */
  readonly databaseUrl: string | null;
  readonly host: string;
  readonly port: number;
  readonly logLevel: string;
  readonly maxJsonBytes: number;
  readonly maxUploadBytes: number;
  /** Provisioning settings from env; each overrides the value stored by `tandem provisioning set`. */
  readonly provisioningEnv: Readonly<Partial<Record<ProvisioningKey, string>>>;
  readonly modelrouter: ModelrouterSettings;
  readonly agent: AgentSettings;
  /** How many staff replies run at once. */
  readonly staffWorkers: number;
  readonly tunnels: TunnelSettings;
  /** Where email goes out; null (no `TANDEM_SMTP_URL`): nothing is emailed. */
  readonly smtp: SmtpSettings | null;
  /**
   * The address people open Tandem at (`TANDEM_PUBLIC_URL`), for the links in emails and pushes, without a
   * trailing slash; null: the address the server listens at.
   */
  readonly publicUrl: string | null;
  /**
   * The reverse proxies in front (`TANDEM_TRUSTED_PROXIES`): a request from one of them is taken to come from the
   * right-most address of its `X-Forwarded-For` that is not one of them; null: from its peer, whatever it says.
   */
  readonly trustedProxies: AddressRanges | null;
  /**
   * Where the other nodes on the same PostgreSQL database reach this one (`TANDEM_NODE_URL`), without a trailing
   * slash; null: unset (`nodeUrl` says what that means).
   */
  readonly nodeUrl: string | null;
  /** How long a claimed job is this node's without a renewal (`TANDEM_JOB_LEASE_SEC`); renewed every third of it. */
  readonly jobLeaseMs: number;
}

/**
 * The SMTP server of `TANDEM_SMTP_URL` and the sender of `TANDEM_SMTP_FROM`. The URL holds the password: it is
 * never logged, and serializing the settings (a log line, a debug dump) shows it redacted.
 */
export interface SmtpSettings {
  /** `smtp://user:password@host:port` (STARTTLS when offered) or `smtps://…` (TLS from the start). */
  readonly url: string;
  /** The `From` of every email: `address` or `Name <address>`. */
  readonly from: string;
}

/** The three provisioning settings, as named in the settings table and in env. */
export const PROVISIONING_KEYS = ["base_url", "install_id", "install_secret"] as const;
export type ProvisioningKey = (typeof PROVISIONING_KEYS)[number];

const PROVISIONING_ENV: Record<ProvisioningKey, string> = {
  base_url: "PROVISIONING_BASE_URL",
  install_id: "PROVISIONING_INSTALL_ID",
  install_secret: "PROVISIONING_INSTALL_SECRET",
};

/** A configuration problem: the CLI prints the message and exits non-zero. */
export class ConfigError extends Error {}

/** An environment: `process.env` unless a caller (a test) hands its own. */
type Env = Readonly<Record<string, string | undefined>>;

/** Typed readers of one environment; every bad value is a ConfigError naming the variable. */
function reader(env: Env) {
  const string = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value === "" ? undefined : value;
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = string(name);
    if (raw === undefined) return fallback;
    const n = parseDecimal(raw);
    if (n === null || n < min || n > max) throw new ConfigError(`${name} must be an integer between ${min} and ${max}`);
    return n;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = string(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (["1", "true", "yes", "on"].includes(raw)) return true;
    if (["0", "false", "no", "off"].includes(raw)) return false;
    throw new ConfigError(`${name} must be true or false`);
  };
  const url = (name: string, fallback: string): string => {
    const raw = string(name) ?? fallback;
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new ConfigError(`${name} must be an http(s) URL`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      throw new ConfigError(`${name} must be an http(s) URL`);
    }
    return raw.replace(/\/+$/, "");
  };
  const oneOf = (name: string, values: readonly string[], fallback: string): string => {
    const raw = string(name)?.toLowerCase() ?? fallback;
    if (!values.includes(raw)) throw new ConfigError(`${name} must be one of ${values.join(", ")}`);
    return raw;
  };
  const path = (name: string, fallback: string): string => {
    const raw = string(name) ?? fallback;
    if (!raw.startsWith("/")) throw new ConfigError(`${name} must start with /`);
    return raw;
  };
  const json = <T>(name: string, check: (value: unknown) => value is T, what: string): T | null => {
    const raw = string(name);
    if (raw === undefined) return null;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new ConfigError(`${name} must be ${what}`);
    }
    if (!check(value)) throw new ConfigError(`${name} must be ${what}`);
    return value;
  };
  return { string, int, bool, url, oneOf, path, json };
}

/**
 * A whole number written in plain decimal digits (surrounding whitespace aside), else null. `Number()` alone
 * would also take `0x10`, `1e3`, `8080.0` and a blank string (as 0).
 */
export function parseDecimal(text: string): number | null {
  const trimmed = text.trim();
  return /^[0-9]+$/.test(trimmed) ? Number(trimmed) : null;
}

/** The address to bind: a flag or HOST set to an empty or blank value is refused, not read as every interface. */
function hostOf(flag: string | undefined, env: Env): string {
  if (flag !== undefined) {
    if (flag.trim() === "") throw new ConfigError("--host must not be empty");
    return flag.trim();
  }
  const raw = env.HOST;
  if (raw === undefined) return "0.0.0.0";
  if (raw.trim() === "") throw new ConfigError("HOST must not be empty");
  return raw.trim();
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The data directory alone, for commands that need nothing else. */
export function resolveDataDir(flags: ConfigFlags = {}, env: Env = process.env): string {
  // `--data ""` (a shell variable that was never set) would make the working directory the data dir.
  if (flags.data !== undefined && flags.data.trim() === "") throw new ConfigError("--data must not be empty");
  const dir = resolve(flags.data ?? reader(env).string("TANDEM_DATA_DIR") ?? "./data");
  if (existsSync(dir) && !statSync(dir).isDirectory())
    throw new ConfigError(`data directory ${dir} is not a directory`);
  return dir;
}

/** Builds the validated, frozen configuration. */
export function loadConfig(flags: ConfigFlags = {}, env: Env = process.env): Config {
  const read = reader(env);
  const dataDir = resolveDataDir(flags, env);
  const port = flags.port ?? read.int("PORT", 8080, 0, 65535);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError("port must be between 0 and 65535");
  const provisioningEnv: Partial<Record<ProvisioningKey, string>> = {};
  for (const key of PROVISIONING_KEYS) {
    const value = read.string(PROVISIONING_ENV[key]);
    if (value !== undefined) provisioningEnv[key] = key === "base_url" ? read.url(PROVISIONING_ENV[key], value) : value;
  }
  const reasoning = read.json("MODELROUTER_CHAT_REASONING_JSON", isObject, "a JSON object");
  const maxTokens =
    read.string("MODELROUTER_CHAT_MAX_TOKENS") === undefined
      ? null
      : read.int("MODELROUTER_CHAT_MAX_TOKENS", 0, 1, 10_000_000);
  // api-spec §8: the completion cap must exceed any reasoning budget, or the model has nothing left to answer.
  const budget = reasoning?.max_tokens;
  if (maxTokens !== null && typeof budget === "number" && maxTokens <= budget) {
    throw new ConfigError("MODELROUTER_CHAT_MAX_TOKENS must exceed max_tokens of MODELROUTER_CHAT_REASONING_JSON");
  }
  const agentApi = read.url("AGENT_API_BASE_URL", "https://api.cursor.com");
  const httpAuth = read.string("AGENT_HTTP_AUTH")?.toLowerCase() ?? "bearer";
  if (httpAuth !== "bearer" && httpAuth !== "basic") throw new ConfigError("AGENT_HTTP_AUTH must be bearer or basic");
  return Object.freeze({
    dataDir,
    dbPath: join(dataDir, "tandem.db"),
    databaseUrl: databaseUrlOf(flags.databaseUrl, read.string("TANDEM_DATABASE_URL")),
    host: hostOf(flags.host, env),
    port,
    logLevel: read.oneOf("LOG_LEVEL", ["fatal", "error", "warn", "info", "debug", "trace", "silent"], "info"),
    maxJsonBytes: 1024 * 1024,
    maxUploadBytes: read.int("TANDEM_MAX_UPLOAD_BYTES", 100 * 1024 * 1024, 1, 2 ** 40),
    provisioningEnv: Object.freeze(provisioningEnv),
    modelrouter: Object.freeze({
      apiBaseUrl: read.url("MODELROUTER_API_BASE_URL", "https://openrouter.ai/api/v1"),
      chatCompletionsPath: read.path("MODELROUTER_CHAT_COMPLETIONS_PATH", "/chat/completions"),
      toolsEnabled: read.bool("MODELROUTER_CHAT_TOOLS_ENABLED", true),
      skipPreread: read.bool("MODELROUTER_CHAT_SKIP_PREREAD", false),
      webSearchTool: read.bool("MODELROUTER_WEB_SEARCH_TOOL", true),
      datetimeTool: read.bool("MODELROUTER_DATETIME_TOOL", true),
      webSearchMaxResults: read.int("MODELROUTER_WEB_SEARCH_MAX_RESULTS", 5, 1, 100),
      webSearchMaxTotalResults: read.int("MODELROUTER_WEB_SEARCH_MAX_TOTAL_RESULTS", 15, 1, 1000),
      webSearchEngine: read.string("MODELROUTER_WEB_SEARCH_ENGINE") ?? "auto",
      maxToolIterations: read.int("MODELROUTER_CHAT_MAX_TOOL_ITERATIONS", 12, 1, 100),
      toolStepTimeoutSec: read.int("MODELROUTER_CHAT_TOOL_STEP_TIMEOUT_SEC", 90, 1, 3600),
      reasoning,
      maxTokens,
      plugins: read.json(
        "MODELROUTER_PLUGINS_JSON",
        (v): v is Record<string, unknown>[] =>
          Array.isArray(v) && v.every((p) => isObject(p) && typeof p.id === "string"),
        "a JSON array of objects with an id",
      ),
      defaultModel: read.string("MODELROUTER_DEFAULT_MODEL") ?? "meta-llama/llama-3.3-70b-instruct:free",
    }),
    agent: Object.freeze({
      apiBaseUrl: agentApi,
      agentsBaseUrl: read.string("AGENT_AGENTS_BASE_URL") ? read.url("AGENT_AGENTS_BASE_URL", agentApi) : agentApi,
      chatCompletionsPath: read.path("AGENT_CHAT_COMPLETIONS_PATH", "/v1/chat/completions"),
      completionModel: read.string("AGENT_COMPLETION_MODEL") ?? "auto",
      httpAuth,
      localBridge: read.bool("AGENT_LOCAL_BRIDGE", false),
    }),
    staffWorkers: read.int("TANDEM_STAFF_WORKERS", 8, 1, 256),
    tunnels: Object.freeze({
      answerTimeoutMs: read.int("TANDEM_TUNNEL_ANSWER_TIMEOUT_SEC", 30, 1, 3600) * 1000,
      origin: tunnelOriginOf(read.string("TANDEM_TUNNEL_ORIGIN")),
    }),
    smtp: smtpOf(read.string("TANDEM_SMTP_URL"), read.string("TANDEM_SMTP_FROM")),
    publicUrl: publicUrlOf(read.string("TANDEM_PUBLIC_URL")),
    trustedProxies: trustedProxiesOf(read.string("TANDEM_TRUSTED_PROXIES")),
    nodeUrl: nodeUrlOf(read.string("TANDEM_NODE_URL")),
    jobLeaseMs: read.int("TANDEM_JOB_LEASE_SEC", 30, 2, 3600) * 1000,
  });
}

/**
 * `--database-url`, else `TANDEM_DATABASE_URL`: `postgres://` or `postgresql://`, the database every node shares.
 * Unset (or an empty variable), the database is SQLite in the data dir; an empty flag is a mistake (a shell
 * variable never set), refused as `--data ""` is. Messages never quote the URL: it may hold the password.
 */
function databaseUrlOf(flag: string | undefined, env: string | undefined): string | null {
  if (flag !== undefined && flag.trim() === "") throw new ConfigError("--database-url must not be empty");
  const name = flag !== undefined ? "--database-url" : "TANDEM_DATABASE_URL";
  const raw = flag ?? env;
  if (raw === undefined || raw.trim() === "") return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError(`${name} must be a postgres:// URL`);
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new ConfigError(`${name} must be a postgres:// URL`);
  }
  if (url.pathname.length <= 1) throw new ConfigError(`${name} must name a database (postgres://host/NAME)`);
  return raw.trim();
}

/** `TANDEM_TRUSTED_PROXIES`: comma-separated addresses and CIDR ranges, IPv4 and IPv6; null when unset. */
function trustedProxiesOf(raw: string | undefined): AddressRanges | null {
  if (raw === undefined) return null;
  try {
    return AddressRanges.parse(raw);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new ConfigError(
      `TANDEM_TRUSTED_PROXIES ${why}: give the proxies' addresses or CIDR ranges, comma-separated (10.0.0.2, 172.16.0.0/12, fd00::/8)`,
    );
  }
}

/**
 * `TANDEM_SMTP_URL` and `TANDEM_SMTP_FROM`, both or neither. Messages never quote the URL: it holds the
 * password.
 */
function smtpOf(rawUrl: string | undefined, from: string | undefined): SmtpSettings | null {
  if (rawUrl === undefined) {
    if (from !== undefined)
      throw new ConfigError("TANDEM_SMTP_FROM is set without TANDEM_SMTP_URL: set both, or neither");
    return null;
  }
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new ConfigError("TANDEM_SMTP_URL must be an smtp:// or smtps:// URL (smtp://user:password@host:587)");
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") {
    throw new ConfigError("TANDEM_SMTP_URL must be an smtp:// or smtps:// URL (smtp://user:password@host:587)");
  }
  if (url.hostname === "") throw new ConfigError("TANDEM_SMTP_URL must name a host");
  if (from === undefined)
    throw new ConfigError("TANDEM_SMTP_URL needs TANDEM_SMTP_FROM, the sender of Tandem's emails");
  if (!isSender(from)) {
    throw new ConfigError("TANDEM_SMTP_FROM must be an email address, or a name and one: Tandem <tandem@acme.test>");
  }
  return Object.freeze({
    url: rawUrl,
    from: from.trim(),
    toJSON: () => ({ url: "[redacted]", from: from.trim() }),
  });
}

/** `address` or `Name <address>`, one line. */
function isSender(from: string): boolean {
  const address = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;
  const trimmed = from.trim();
  if (/[\r\n]/.test(trimmed)) return false;
  const named = /^(.*)<([^<>]+)>$/.exec(trimmed);
  return named ? address.test(named[2] ?? "") : address.test(trimmed);
}

/** `TANDEM_PUBLIC_URL`: an http(s) URL, kept without its trailing slash; null when unset. */
const publicUrlOf = (raw: string | undefined) => plainUrlOf("TANDEM_PUBLIC_URL", "https://tandem.acme.test", raw);

/** `TANDEM_NODE_URL`: the same kind of URL, where the other nodes reach this one. */
const nodeUrlOf = (raw: string | undefined) => plainUrlOf("TANDEM_NODE_URL", "http://10.0.0.2:8080", raw);

/** An http(s) URL without query, fragment or user, kept without its trailing slash; null when unset. */
function plainUrlOf(name: string, example: string, raw: string | undefined): string | null {
  if (raw === undefined) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL (${example})`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.search !== "" || url.hash !== "") {
    throw new ConfigError(`${name} must be an http(s) URL (${example})`);
  }
  if (url.username !== "" || url.password !== "") throw new ConfigError(`${name} must not hold a user`);
  return `${url.origin}${url.pathname}`.replace(/\/+$/, "");
}

/**
 * Where the other nodes reach this one, once it listens on `port`: `TANDEM_NODE_URL`, else this machine's
 * loopback when the server listens there alone (nodes on one machine). On PostgreSQL a server listening beyond
 * loopback cannot know which of its addresses the others reach: `TANDEM_NODE_URL` is required there, and
 * `assertNodeUrl` refuses the start before anything is opened. Null on SQLite without it: no other node.
 */
export function nodeUrl(config: Config, port: number): string | null {
  if (config.nodeUrl !== null) return config.nodeUrl;
  const loopback = loopbackHost(config.host);
  if (loopback === null) return null;
  return `http://${loopback}:${port}`;
}

/** Refuses a start on PostgreSQL that other nodes could not reach (see `nodeUrl`). */
export function assertNodeUrl(config: Config): void {
  if (config.databaseUrl === null || config.nodeUrl !== null || loopbackHost(config.host) !== null) return;
  throw new ConfigError(
    `TANDEM_NODE_URL is required on PostgreSQL when serving on ${config.host}: set it to the URL the other nodes reach this one at (http://10.0.0.2:8080), or listen on 127.0.0.1`,
  );
}

/** The loopback address to name this machine by when `host` is loopback alone; null otherwise. */
function loopbackHost(host: string): string | null {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (bare === "localhost") return "127.0.0.1";
  if (/^127\.\d+\.\d+\.\d+$/.test(bare)) return bare;
  if (bare === "::1") return "[::1]";
  return null;
}

/** `TANDEM_TUNNEL_ORIGIN`: an http(s) origin alone (a path would not separate anything), or null when unset. */
function tunnelOriginOf(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    url = new URL("invalid:");
  }
  const bare =
    url.pathname === "/" && url.search === "" && url.hash === "" && url.username === "" && url.password === "";
  if ((url.protocol !== "http:" && url.protocol !== "https:") || !bare) {
    throw new ConfigError("TANDEM_TUNNEL_ORIGIN must be an http(s) origin: scheme, host and port, no path");
  }
  return url.origin;
}

/** Secrets the server signs and encrypts with. */
export interface Secrets {
  readonly jwtSecret: Uint8Array;
  readonly encryptionKey: Uint8Array;
  /** The VAPID private key Web Push requests are signed with (a P-256 scalar, 32 bytes). */
  readonly vapidPrivateKey: Uint8Array;
  /** Which secrets were generated into the data dir on this call (for a warning in the log). */
  readonly generated: readonly string[];
}

/** Where a secret comes from, how it is read, and how `serve` makes one when it has none. */
interface SecretKind {
  readonly env: string;
  readonly file: string;
  readonly parse: (value: string) => Uint8Array;
  readonly make: () => string;
}

/** Parses an APP_SSH_ENCRYPTION_KEY: 64 hex characters first, else base64 of exactly 32 bytes. */
export function parseEncryptionKey(value: string): Uint8Array {
  const trimmed = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Uint8Array.from(Buffer.from(trimmed, "hex"));
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) {
    const bytes = Buffer.from(trimmed, "base64");
    if (bytes.length === 32) return Uint8Array.from(bytes);
  }
  throw new ConfigError("APP_SSH_ENCRYPTION_KEY must be 64 hex characters or base64 of exactly 32 bytes");
}

function parseJwtSecret(value: string): Uint8Array {
  if (value.length < 32) throw new ConfigError("JWT_SECRET must be at least 32 characters");
  return new TextEncoder().encode(value);
}

const JWT_SECRET: SecretKind = {
  env: "JWT_SECRET",
  file: "jwt_secret",
  parse: parseJwtSecret,
  make: () => randomBytes(48).toString("base64url"),
};

/** The encryption key's file in the data dir, for messages that tell the operator where to look. */
export const ENCRYPTION_KEY_FILE = "encryption_key";

const ENCRYPTION_KEY: SecretKind = {
  env: "APP_SSH_ENCRYPTION_KEY",
  file: ENCRYPTION_KEY_FILE,
  parse: parseEncryptionKey,
  make: () => randomBytes(32).toString("base64"),
};

/** Parses a TANDEM_VAPID_PRIVATE_KEY: base64url of a 32-byte P-256 private key, as web-push prints it. */
export function parseVapidPrivateKey(value: string): Uint8Array {
  const trimmed = value.trim();
  const bytes = /^[A-Za-z0-9_-]{43}=?$/.test(trimmed) ? Buffer.from(trimmed, "base64url") : Buffer.alloc(0);
  try {
    if (bytes.length !== 32) throw new Error("length");
    // Refuses zero and values past the curve's order.
    createECDH("prime256v1").setPrivateKey(bytes);
  } catch {
    throw new ConfigError("TANDEM_VAPID_PRIVATE_KEY must be base64url of a 32-byte P-256 private key");
  }
  return Uint8Array.from(bytes);
}

/** The VAPID key's file in the data dir. */
export const VAPID_KEY_FILE = "vapid_private_key";

const VAPID_KEY: SecretKind = {
  env: "TANDEM_VAPID_PRIVATE_KEY",
  file: VAPID_KEY_FILE,
  parse: parseVapidPrivateKey,
  make: () => {
    const ecdh = createECDH("prime256v1");
    ecdh.generateKeys();
    // A scalar with leading zero bytes comes out shorter: padded, as the key is always 32 bytes.
    return Buffer.from(ecdh.getPrivateKey().toString("hex").padStart(64, "0"), "hex").toString("base64url");
  },
};

/**
 * Writes a new secret file readable by its owner only, whole or not at all: written beside it, synced, and linked
 * into place (never over a file that appeared meanwhile), so a full disk or a crash leaves no half-written key.
 * The directory is synced too: a power cut or a failing filesystem moments after the start would otherwise lose
 * the key, or leave it empty or zeroed, while the database written meanwhile, which SQLite syncs, survives.
 */
function writeSecretFile(path: string, content: string): void {
  const partial = `${path}.partial-${process.pid}`;
  try {
    const fd = openSync(partial, "w", 0o600);
    try {
      writeFileSync(fd, `${content}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    chmodSync(partial, 0o600);
    linkSync(partial, path);
  } finally {
    rmSync(partial, { force: true });
  }
  const dir = openSync(dirname(path), "r");
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/**
 * One secret from env, else from its file in the data dir; null when neither has it. Reads only. A value
 * that is set but invalid is an error, named by the file when it came from there.
 */
function readSecret(kind: SecretKind, config: Config, env: Env, fromFile = true): Uint8Array | null {
  // Set to nothing (`JWT_SECRET=` from a template whose variable was never filled): a mistake, not a request
  // to generate one, which would leave the operator believing their secret is in use.
  if (env[kind.env] !== undefined && env[kind.env]?.trim() === "") {
    throw new ConfigError(`${kind.env} is set but empty: set it to a valid value, or unset it to have one generated`);
  }
  const given = reader(env).string(kind.env);
  if (given !== undefined) return kind.parse(given);
  const path = join(config.dataDir, kind.file);
  if (!fromFile || !existsSync(path)) return null;
  try {
    const text = readFileSync(path, "utf8").trim();
    // An empty file is no key anyone gave: an earlier start that could not write it (a full disk) left it.
    if (text === "") return null;
    return kind.parse(text);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(`${path}: ${error.message.replace(/^\S+ /, "")}`);
  }
}

/** The secrets given in env or stored in the data dir, each validated; null where there is none. Writes nothing. */
export function readSecrets(
  config: Config,
  env: Env = process.env,
): { jwtSecret: Uint8Array | null; encryptionKey: Uint8Array | null; vapidPrivateKey: Uint8Array | null } {
  return {
    jwtSecret: readSecret(JWT_SECRET, config, env),
    encryptionKey: readSecret(ENCRYPTION_KEY, config, env),
    vapidPrivateKey: readSecret(VAPID_KEY, config, env),
  };
}

/**
 * Secrets from env, else from the data dir, else generated there once (mode 0600): for `serve` only, the one
 * process whose key is the install's. Every secret that is set is validated before any is generated, so a
 * refused start leaves the data dir as it was; an invalid one is never replaced.
 *
 * On PostgreSQL (`TANDEM_DATABASE_URL`) nothing is generated and nothing written: see `sharedSecrets`.
 */
export function loadSecrets(config: Config, env: Env = process.env): Secrets {
  if (config.databaseUrl !== null) return sharedSecrets(config, env);
  const found = readSecrets(config, env);
  const generated: string[] = [];
  const orNew = (value: Uint8Array | null, kind: SecretKind): Uint8Array => {
    if (value !== null) return value;
    mkdirSync(config.dataDir, { recursive: true });
    const made = kind.make();
    const path = join(config.dataDir, kind.file);
    // Only ever empty here (`readSecret` takes an empty file as none): left by a start that could not write it.
    if (existsSync(path) && readFileSync(path, "utf8").trim() === "") rmSync(path);
    writeSecretFile(path, made);
    generated.push(kind.env);
    return kind.parse(made);
  };
  const jwtSecret = orNew(found.jwtSecret, JWT_SECRET);
  const encryptionKey = orNew(found.encryptionKey, ENCRYPTION_KEY);
  const vapidPrivateKey = orNew(found.vapidPrivateKey, VAPID_KEY);
  return Object.freeze({ jwtSecret, encryptionKey, vapidPrivateKey, generated });
}

/**
 * The secrets of a node on PostgreSQL, where several nodes serve one database: every node signs and checks the
 * same tokens, and decrypts what any node encrypted, so a key one node generated for itself would lock the
 * others out. JWT_SECRET and APP_SSH_ENCRYPTION_KEY are given (env, or their file in the data dir, copied there
 * by the operator) or the start is refused, naming what is missing. The VAPID key is the database's, made once
 * by the first node (instance.vapid.ts), unless TANDEM_VAPID_PRIVATE_KEY is set: empty here until then.
 */
function sharedSecrets(config: Config, env: Env): Secrets {
  const jwtSecret = readSecret(JWT_SECRET, config, env);
  const encryptionKey = readSecret(ENCRYPTION_KEY, config, env);
  const missing = [
    jwtSecret ? null : `JWT_SECRET (every node signs and checks the same sign-in tokens)`,
    encryptionKey ? null : `APP_SSH_ENCRYPTION_KEY (every node decrypts the secrets any node stored)`,
  ].filter((what) => what !== null);
  if (!jwtSecret || !encryptionKey) {
    throw new ConfigError(
      `on PostgreSQL no secret is generated: set the same ${missing.join(" and ")} on every node, in env or as its file in the data dir (\`tandem keygen\` prints a key; an install moved from SQLite has its own in its data dir)`,
    );
  }
  // Not the data dir's file: a node moved from SQLite would push with a key the other nodes do not have.
  const vapidPrivateKey = readSecret(VAPID_KEY, config, env, false) ?? new Uint8Array(0);
  return Object.freeze({ jwtSecret, encryptionKey, vapidPrivateKey, generated: [] });
}

/** A new VAPID private key, as `serve` generates one (base64url of 32 bytes). */
export function newVapidPrivateKey(): string {
  return VAPID_KEY.make();
}

/** Values stamped into the binary by `install.sh`; `dev` and "" when unstamped. */
export const BUILD = Object.freeze({
  version: typeof TANDEM_VERSION === "string" ? TANDEM_VERSION : "dev",
  gitSha: typeof TANDEM_GIT_SHA === "string" ? TANDEM_GIT_SHA : "",
});

declare const TANDEM_VERSION: string | undefined;
declare const TANDEM_GIT_SHA: string | undefined;
