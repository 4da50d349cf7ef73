/** `tandem serve`: the service and its web UI. */
import type { Command } from "commander";
import { loadConfig, loadSecrets, readSecrets } from "../src/config";
import { createAccessLog } from "../src/lib/access-log";
import { createLogger } from "../src/lib/log";
import { startServer } from "../src/server";
import { DATABASE_URL_OPTION, refuseNewerDatabase } from "./common";
import { parseHost, parsePort } from "./parse";

export function serveCommand(program: Command): void {
  program
    .command("serve")
    .description(
      "serve the API and the web UI (default 0.0.0.0:8080, data in ./data, or PostgreSQL with --database-url)",
    )
    .option("--port <port>", "port to listen on (env PORT)", parsePort)
    .option("--host <host>", "address to bind (env HOST)", parseHost)
    .addHelpText("after", SEVERAL_NODES)
    .option("--data <dir>", "data directory (env TANDEM_DATA_DIR)")
    .option(...DATABASE_URL_OPTION)
    // Contract §1: every command takes --json where it prints; serve's log is JSON lines already.
    .option("--json", "log JSON lines (always the case)")
    .action(async (opts: { port?: number; host?: string; data?: string; databaseUrl?: string }) => {
      const config = loadConfig(opts);
      // Everything that can refuse the start is checked before the data dir gets a key, a lock or a database.
      if (config.databaseUrl !== null) {
        // On PostgreSQL the secrets are only read (never generated): a node missing one is refused here.
        loadSecrets(config);
      } else {
        readSecrets(config);
        refuseNewerDatabase(config.dbPath);
      }
      const log = createLogger(config.logLevel);
      const server = await startServer(config, log, createAccessLog(config.logLevel));
      let stopping = false;
      const shutdown = async (signal: string) => {
        if (stopping) return;
        stopping = true;
        log.info({ signal }, "shutting down");
        await server.stop();
        log.flush();
        process.exit(0);
      };
      process.on("SIGINT", () => void shutdown("SIGINT"));
      process.on("SIGTERM", () => void shutdown("SIGTERM"));
    });
}

/** What `serve --help` says of running several nodes (docs/operations.md, Several nodes behind a proxy). */
const SEVERAL_NODES = `
Several nodes on one PostgreSQL database (TANDEM_DATABASE_URL) behind a load balancer: give each the same
JWT_SECRET and APP_SSH_ENCRYPTION_KEY, and TANDEM_NODE_URL, the URL the other nodes reach it at
(http://10.0.0.2:8080), required unless it listens on loopback alone (then http://127.0.0.1:PORT).`;
