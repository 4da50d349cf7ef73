/** `tandem backup --out FILE` and `tandem restore --from FILE`. */
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { loadConfig } from "../src/config";
import { backupDatabase, restoreDatabase } from "../src/db/backup";
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
      const result = restoreDatabase(resolve(opts.from), config.dbPath);
      print(
        opts.json,
        result,
        `restored into ${result.path}; start \`tandem serve\` with the same APP_SSH_ENCRYPTION_KEY as before`,
      );
    });
}
