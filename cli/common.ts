/** What every subcommand shares: the data dir, opening the database, printing, and failing in one line. */
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Command } from "commander";
import { type Config, type ConfigFlags, ENCRYPTION_KEY_FILE, loadConfig, readSecrets } from "../src/config";
import { interruptedRestores } from "../src/db/backup";
import { type Connection, cannotOpen, makeDataDir } from "../src/db/client";
import { assertNotNewer, MigrationError } from "../src/db/migrate";
import { openMigrated } from "../src/db/open";
import { createServices, type Services } from "../src/services";

/** Options every command takes. */
export interface CommonOptions {
  data?: string;
  json?: boolean;
  /** `--database-url`: PostgreSQL instead of SQLite in the data dir (contract §9). */
  databaseUrl?: string;
}

/** `--database-url`, for every command that opens the database; `loadConfig` takes it as `databaseUrl`. */
export const DATABASE_URL_OPTION = [
  "--database-url <url>",
  "PostgreSQL database postgres://USER:PASSWORD@HOST/NAME (env TANDEM_DATABASE_URL, which keeps the password out of `ps`); unset: SQLite in the data dir",
] as const;

/** A failure the user caused or can fix: printed as one line, exit 1. */
export class CliError extends Error {}

/**
 * Opens the data dir's database (creating and migrating it) and builds the services. With `withEncryptionKey`,
 * the key comes first: a command that cannot have it creates nothing.
 */
export function openServices(
  flags: ConfigFlags,
  options: { withEncryptionKey?: boolean; mustExist?: boolean } = {},
): { config: Config; conn: Connection; services: Services; close(): void } {
  const config = loadConfig(flags);
  if (options.mustExist && config.databaseUrl === null && !existsSync(config.dbPath)) {
    throw new CliError(`no database at ${config.dbPath}: run \`tandem setup\` or \`tandem serve\` first`);
  }
  const encryptionKey = options.withEncryptionKey ? serversEncryptionKey(config) : null;
  makeDataDir(config.dataDir);
  const { conn } = openMigrated(config);
  // The CLI signs no tokens: without a JWT secret, nothing here could verify one, and nothing needs to.
  // Nor does it push: without a VAPID key, nothing is.
  const secrets = encryptionKey && {
    jwtSecret: new Uint8Array(0),
    encryptionKey,
    vapidPrivateKey: new Uint8Array(0),
    generated: [],
  };
  // What a command does without anyone signed in, the audit log records as the command line's.
  const services = createServices(conn, config, { secrets, origin: "command_line" });
  return { config, conn, services, close: () => conn.sqlite.close() };
}

/**
 * The encryption key `serve` uses: APP_SSH_ENCRYPTION_KEY, else the data dir's key file. Never generated here:
 * beside a server that has its key from the environment, a key of our own would encrypt what it cannot read.
 */
function serversEncryptionKey(config: Config): Uint8Array {
  const { encryptionKey } = readSecrets(config);
  if (encryptionKey) return encryptionKey;
  if (config.databaseUrl !== null) {
    throw new CliError(
      `APP_SSH_ENCRYPTION_KEY is not set and ${join(config.dataDir, ENCRYPTION_KEY_FILE)} does not exist: set APP_SSH_ENCRYPTION_KEY as the servers of this database have it`,
    );
  }
  throw new CliError(
    `APP_SSH_ENCRYPTION_KEY is not set and ${join(config.dataDir, ENCRYPTION_KEY_FILE)} does not exist: ` +
      "set APP_SSH_ENCRYPTION_KEY as `tandem serve` has it, or start `tandem serve` once to generate the key",
  );
}

/**
 * Refuses a database a newer Tandem has migrated, before `serve` writes anything (a generated key, its lock):
 * the check `migrate` makes, done without writing. A missing database is a new install.
 */
export function refuseNewerDatabase(dbPath: string): void {
  if (!existsSync(dbPath)) {
    // A restore cut off before its copy was complete: starting would make a new, empty install beside it.
    const [left] = interruptedRestores(dirname(dbPath));
    if (left !== undefined) {
      throw new CliError(
        `${join(dirname(dbPath), left)} is left from a restore that did not finish: run \`tandem restore\` again, or remove it to start a new install`,
      );
    }
    return;
  }
  // Read-write without create: a read-only connection would leave WAL files behind when it closes.
  let sqlite: Database;
  try {
    sqlite = new Database(dbPath, { readwrite: true, create: false });
  } catch (error) {
    throw cannotOpen(dbPath, error);
  }
  try {
    assertNotNewer(sqlite);
  } catch (error) {
    throw error instanceof MigrationError ? new CliError(error.message) : cannotOpen(dbPath, error);
  } finally {
    sqlite.close();
  }
}

/** Prints `value` as JSON with `--json`, else the human text. */
export function print(json: boolean | undefined, value: unknown, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}

/**
 * Gives a command group (`users`, `provisioning`) its action, reached only when no subcommand of it was
 * named: a word after the group is an unknown subcommand, nothing a missing one. Set after the subcommands
 * exist: commander copies a command's settings into the subcommands made after them, and those must keep
 * refusing stray words and options.
 */
export function groupAction(group: Command, subcommands: string): void {
  group
    .allowExcessArguments(true)
    .allowUnknownOption(true)
    .action(function (this: Command): never {
      const [typed] = this.args;
      if (typed !== undefined && !typed.startsWith("-")) {
        throw new CliError(`unknown command '${typed}' for '${group.name()}': use ${subcommands}`);
      }
      throw new CliError(`${group.name()} needs a subcommand: ${subcommands}`);
    });
}
