/** `tandem backup --out FILE` and `tandem restore --from FILE`, on SQLite or PostgreSQL (contract §1, §9). */
import { resolve } from "node:path";
import type { Command } from "commander";
import { type Config, loadConfig } from "../src/config";
import { backupDatabase, backupPostgres, restoreDatabase, restorePostgres } from "../src/db/backup";
import { makeDataDir, openPostgres } from "../src/db/client";
import { openAsIs, openMigrated } from "../src/db/open";
import { type PgDatabase, redact } from "../src/db/pg/connection";
import { copied } from "../src/db/pg/copy";
import { createServices } from "../src/services";
import { type CommonOptions, DATABASE_URL_OPTION, print } from "./common";

export function backupCommands(program: Command): void {
  program
    .command("backup")
    .description("write a consistent backup, safe while `serve` runs (on PostgreSQL too: a SQLite file of every table)")
    .requiredOption("--out <file>", "backup file to create")
    .option("--data <dir>", "data directory")
    .option(...DATABASE_URL_OPTION)
    .option("--json", "print JSON")
    .action((opts: CommonOptions & { out: string }) => {
      const config = loadConfig(opts);
      const out = resolve(opts.out);
      if (config.databaseUrl === null) {
        const result = backupDatabase(config.dbPath, out);
        record(config, "backup.created", result, false);
        print(opts.json, result, `backup written to ${result.path} (${result.bytes} bytes)`);
        return;
      }
      const name = redact(config.databaseUrl);
      const result = onPostgres(config.databaseUrl, (pg) => backupPostgres(pg, name, out));
      record(config, "backup.created", result, false);
      print(
        opts.json,
        result,
        `backup of ${name} written to ${result.path} (${result.bytes} bytes, ${copied(result)})`,
      );
    });

  program
    .command("restore")
    .description("restore a backup into an empty data dir, or an empty PostgreSQL database")
    .requiredOption("--from <file>", "backup file")
    .option("--data <dir>", "data directory")
    .option(...DATABASE_URL_OPTION)
    .option("--json", "print JSON")
    .action((opts: CommonOptions & { from: string }) => {
      const config = loadConfig(opts);
      makeDataDir(config.dataDir);
      const from = resolve(opts.from);
      const next = "start `tandem serve` with the same APP_SSH_ENCRYPTION_KEY as before";
      if (config.databaseUrl === null) {
        const result = restoreDatabase(from, config.dbPath);
        record(config, "backup.restored", { path: from, bytes: result.bytes }, true);
        print(opts.json, result, `restored into ${result.path}; ${next}`);
        return;
      }
      const name = redact(config.databaseUrl);
      const result = onPostgres(config.databaseUrl, (pg) => restorePostgres(from, pg, name, config.dataDir));
      record(config, "backup.restored", { path: from, bytes: result.bytes }, true);
      print(opts.json, result, `restored into ${name} (${copied(result)}); ${next} (and JWT_SECRET) on every node`);
    });
}

/** `fn` on a connection to the PostgreSQL database at `url`, closed after. */
function onPostgres<T>(url: string, fn: (pg: PgDatabase) => T): T {
  const conn = openPostgres(url);
  try {
    return fn(conn.sqlite as unknown as PgDatabase);
  } finally {
    conn.sqlite.close();
  }
}

/**
 * Records a backup or a restore in the audit log of the database it worked on, as done by the command line.
 * A restored database is migrated first, as `serve` would at its start. A live database this build would
 * have to migrate (an older Tandem serves it) is not touched: the backup is then not recorded. Either way, and
 * when recording fails, the backup or restore stands and a warning says what was not recorded.
 */
function record(
  config: Config,
  type: "backup.created" | "backup.restored",
  file: { path: string; bytes: number },
  restored: boolean,
): void {
  const warn = (why: string) =>
    process.stderr.write(`tandem: warning: the ${restored ? "restore" : "backup"} is not in the audit log: ${why}\n`);
  try {
    const { conn, current } = restored ? { ...openMigrated(config), current: true } : openAsIs(config);
    try {
      if (!current) {
        warn("the database is not yet migrated to this version of Tandem");
        return;
      }
      createServices(conn, config, { origin: "command_line" }).instance.backupMade(type, file.path, file.bytes);
    } finally {
      conn.sqlite.close();
    }
  } catch (error) {
    warn((error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "");
  }
}
