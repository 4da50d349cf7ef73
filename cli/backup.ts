/** `tandem backup --out FILE` and `tandem restore --from FILE`. */
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { loadConfig } from "../src/config";
import { backupDatabase, restoreDatabase } from "../src/db/backup";
import { openDatabase } from "../src/db/client";
import { appliedMigrations, knownMigrations, migrate } from "../src/db/migrate";
import { createServices } from "../src/services";
import { type CommonOptions, print } from "./common";

export function backupCommands(program: Command): void {
  program
    .command("backup")
    .description("write a consistent backup, safe while `serve` runs")
    .requiredOption("--out <file>", "backup file to create")
    .option("--data <dir>", "data directory")
    .option("--json", "print JSON")
    .action((opts: CommonOptions & { out: string }) => {
      const result = backupDatabase(loadConfig(opts).dbPath, resolve(opts.out));
      record(opts, "backup.created", result, false);
      print(opts.json, result, `backup written to ${result.path} (${result.bytes} bytes)`);
    });

  program
    .command("restore")
    .description("restore a backup into an empty data dir")
    .requiredOption("--from <file>", "backup file")
    .option("--data <dir>", "data directory")
    .option("--json", "print JSON")
    .action((opts: CommonOptions & { from: string }) => {
      const config = loadConfig(opts);
      mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
      const from = resolve(opts.from);
      const result = restoreDatabase(from, config.dbPath);
      record(opts, "backup.restored", { path: from, bytes: result.bytes }, true);
      print(
        opts.json,
        result,
        `restored into ${result.path}; start \`tandem serve\` with the same APP_SSH_ENCRYPTION_KEY as before`,
      );
    });
}

/**
 * Records a backup or a restore in the audit log of the database it worked on, as done by the command line.
 * A restored database is migrated first, as `serve` would at its start. A live database this build would
 * have to migrate (an older Tandem serves it) is not touched: the backup is then not recorded. Either way, and
 * when recording fails, the backup or restore stands and a warning says what was not recorded.
 */
function record(
  opts: CommonOptions,
  type: "backup.created" | "backup.restored",
  file: { path: string; bytes: number },
  restored: boolean,
): void {
  const config = loadConfig(opts);
  const warn = (why: string) =>
    process.stderr.write(`tandem: warning: the ${restored ? "restore" : "backup"} is not in the audit log: ${why}\n`);
  try {
    const conn = openDatabase(config.dbPath);
    try {
      if (restored) migrate(conn.sqlite);
      const applied = new Set(appliedMigrations(conn.sqlite));
      if (!knownMigrations().every((tag) => applied.has(tag))) {
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
