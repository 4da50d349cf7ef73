/** What every subcommand shares: the data dir, opening the database, printing, and failing in one line. */
import { existsSync, mkdirSync } from "node:fs";
import { type Config, type ConfigFlags, loadConfig, loadSecrets } from "../src/config";
import { type Connection, openDatabase } from "../src/db/client";
import { migrate } from "../src/db/migrate";
import { createServices, type Services } from "../src/services";

/** Options every command takes. */
export interface CommonOptions {
  data?: string;
  json?: boolean;
}

/** A failure the user caused or can fix: printed as one line, exit 1. */
export class CliError extends Error {}

/** Opens the data dir's database (creating and migrating it) and builds the services. */
export function openServices(
  flags: ConfigFlags,
  options: { withSecrets?: boolean; mustExist?: boolean } = {},
): { config: Config; conn: Connection; services: Services; close(): void } {
  const config = loadConfig(flags);
  if (options.mustExist && !existsSync(config.dbPath)) {
    throw new CliError(`no database at ${config.dbPath}: run \`tandem setup\` or \`tandem serve\` first`);
  }
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const secrets = options.withSecrets ? loadSecrets(config) : null;
  for (const name of secrets?.generated ?? []) {
    process.stderr.write(`tandem: warning: ${name} was not set: generated one into ${config.dataDir} (mode 0600)\n`);
  }
  const conn = openDatabase(config.dbPath);
  migrate(conn.sqlite);
  const services = createServices(conn, config, { secrets });
  return { config, conn, services, close: () => conn.sqlite.close() };
}

/** Prints `value` as JSON with `--json`, else the human text. */
export function print(json: boolean | undefined, value: unknown, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}
