/**
 * `tandem migrate-to-postgres --database-url URL [--data DIR]` (contract §9): a SQLite install's database copied
 * into an empty PostgreSQL database, from which any number of `serve` nodes can then run.
 */
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { loadConfig, readSecrets } from "../src/config";
import { openDatabase, openPostgres } from "../src/db/client";
import { lockDataDir } from "../src/db/lock";
import { migrate } from "../src/db/migrate";
import { type PgDatabase, redact } from "../src/db/pg/connection";
import { copied, copyToPostgres } from "../src/db/pg/copy";
import { storeVapidKey } from "../src/features/instance/instance.vapid";
import { CliError, type CommonOptions, DATABASE_URL_OPTION, print } from "./common";

export function migrateToPostgresCommand(program: Command): void {
  program
    .command("migrate-to-postgres")
    .description(
      "copy the data dir's SQLite database into an empty PostgreSQL database (no server may run on the data dir)",
    )
    .option(
      DATABASE_URL_OPTION[0],
      "the empty PostgreSQL database to copy into (env TANDEM_DATABASE_URL, which keeps the password out of `ps`)",
    )
    .option("--data <dir>", "data directory of the SQLite install (env TANDEM_DATA_DIR)")
    .option("--json", "print JSON")
    .action((opts: CommonOptions) => {
      const config = loadConfig(opts);
      if (config.databaseUrl === null) {
        throw new CliError(
          "migrate-to-postgres needs --database-url (or TANDEM_DATABASE_URL): the empty PostgreSQL database to copy into",
        );
      }
      if (!existsSync(config.dbPath))
        throw new CliError(`no database at ${config.dbPath}: give the --data of the SQLite install`);
      // What a server writes while the copy runs would be lost: the data dir is ours for the whole copy.
      const unlock = lockDataDir(config.dataDir);
      try {
        const name = redact(config.databaseUrl);
        const source = openDatabase(config.dbPath);
        try {
          // At this build's schema, which PostgreSQL's is derived from: as this version's `serve` would migrate it.
          migrate(source.sqlite);
          // The install's VAPID key goes with it, encrypted under its key, so its browsers' push subscriptions go on.
          const { encryptionKey, vapidPrivateKey } = readSecrets(config);
          const target = openPostgres(config.databaseUrl);
          try {
            const report = copyToPostgres(source.sqlite, target.sqlite as unknown as PgDatabase, name, () => {
              if (encryptionKey && vapidPrivateKey) storeVapidKey(target.db, encryptionKey, vapidPrivateKey);
            });
            if (vapidPrivateKey && !encryptionKey) {
              process.stderr.write(
                "tandem: warning: the VAPID key was not carried over (no APP_SSH_ENCRYPTION_KEY to encrypt it with): browsers subscribed to pushes subscribe again\n",
              );
            }
            const lines = report.tables.map((t) => `${t.name}\t${t.rows}`);
            print(
              opts.json,
              { database: name, tables: report.tables, rows: report.rows },
              [...lines, `copied ${config.dbPath} into ${name}: ${copied(report)}`].join("\n"),
            );
          } finally {
            target.sqlite.close();
          }
        } finally {
          source.sqlite.close();
        }
      } finally {
        unlock();
      }
    });
}
