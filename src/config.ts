/**
 * The only module that reads process.env. Flags win over env; env wins over the data dir's stored values.
 */

import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** Flags given on the command line; every one optional. */
export interface ConfigFlags {
  data?: string;
  port?: number;
  host?: string;
}

/** Everything the server and the CLI need to know about their environment. */
export interface Config {
  readonly dataDir: string;
  readonly dbPath: string;
  readonly host: string;
  readonly port: number;
  readonly logLevel: string;
  readonly maxJsonBytes: number;
  readonly maxUploadBytes: number;
  /** Provisioning settings from env; each overrides the value stored by `tandem provisioning set`. */
  readonly provisioningEnv: Readonly<Partial<Record<ProvisioningKey, string>>>;
  readonly modelrouterDefaultModel: string;
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

function envString(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === "" ? undefined : value;
}

function envInt(name: string, fallback: number, min: number, max: number): number {
  const raw = envString(name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}`);
  }
  return n;
}

/** The data directory alone, for commands that need nothing else. */
export function resolveDataDir(flags: ConfigFlags = {}): string {
  return resolve(flags.data ?? envString("TANDEM_DATA_DIR") ?? "./data");
}

/** Builds the validated, frozen configuration. */
export function loadConfig(flags: ConfigFlags = {}): Config {
  const dataDir = resolveDataDir(flags);
  const port = flags.port ?? envInt("PORT", 8080, 0, 65535);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError("port must be between 0 and 65535");
  const provisioningEnv: Partial<Record<ProvisioningKey, string>> = {};
  for (const key of PROVISIONING_KEYS) {
    const value = envString(PROVISIONING_ENV[key]);
    if (value !== undefined) provisioningEnv[key] = value;
  }
  return Object.freeze({
    dataDir,
    dbPath: join(dataDir, "tandem.db"),
    host: flags.host ?? envString("HOST") ?? "0.0.0.0",
    port,
    logLevel: envString("LOG_LEVEL") ?? "info",
    maxJsonBytes: 1024 * 1024,
    maxUploadBytes: envInt("TANDEM_MAX_UPLOAD_BYTES", 100 * 1024 * 1024, 1, 2 ** 40),
    provisioningEnv: Object.freeze(provisioningEnv),
    modelrouterDefaultModel: envString("MODELROUTER_DEFAULT_MODEL") ?? "meta-llama/llama-3.3-70b-instruct:free",
  });
}

/** Secrets the server signs and encrypts with. */
export interface Secrets {
  readonly jwtSecret: Uint8Array;
  readonly encryptionKey: Uint8Array;
  /** Which secrets were generated into the data dir on this call (for a warning in the log). */
  readonly generated: readonly string[];
}

const JWT_SECRET_FILE = "jwt_secret";
const ENCRYPTION_KEY_FILE = "encryption_key";

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

/** Writes a new secret file readable by its owner only. */
function writeSecretFile(path: string, content: string): void {
  writeFileSync(path, `${content}\n`, { mode: 0o600, flag: "wx" });
  chmodSync(path, 0o600);
}

/**
 * Secrets from env, else from the data dir, else generated there once (mode 0600). A secret that is set but
 * invalid is an error: it is never replaced.
 */
export function loadSecrets(config: Config): Secrets {
  mkdirSync(config.dataDir, { recursive: true });
  const generated: string[] = [];

  const fromFileOrNew = (file: string, name: string, make: () => string): string => {
    const path = join(config.dataDir, file);
    if (existsSync(path)) return readFileSync(path, "utf8").trim();
    const value = make();
    writeSecretFile(path, value);
    generated.push(name);
    return value;
  };

  const jwtEnv = envString("JWT_SECRET");
  const jwtSecret = parseJwtSecret(
    jwtEnv ?? fromFileOrNew(JWT_SECRET_FILE, "JWT_SECRET", () => randomBytes(48).toString("base64url")),
  );
  const keyEnv = envString("APP_SSH_ENCRYPTION_KEY");
  const encryptionKey = parseEncryptionKey(
    keyEnv ?? fromFileOrNew(ENCRYPTION_KEY_FILE, "APP_SSH_ENCRYPTION_KEY", () => randomBytes(32).toString("base64")),
  );
  return Object.freeze({ jwtSecret, encryptionKey, generated });
}

/** Values stamped into the binary by `install.sh`; `dev` and "" when unstamped. */
export const BUILD = Object.freeze({
  version: typeof TANDEM_VERSION === "string" ? TANDEM_VERSION : "dev",
  gitSha: typeof TANDEM_GIT_SHA === "string" ? TANDEM_GIT_SHA : "",
});

declare const TANDEM_VERSION: string | undefined;
declare const TANDEM_GIT_SHA: string | undefined;
