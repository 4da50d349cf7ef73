/** Starts Tandem: secrets, database and migrations, the HTTP server, and the first-run setup URL. */
import { buildApp } from "./app";
import { assertNodeUrl, type Config, ConfigError, loadSecrets, nodeUrl, type Secrets } from "./config";
import { Checkpointer } from "./db/checkpointer";
import { type Connection, makeDataDir } from "./db/client";
import { lockDataDir } from "./db/lock";
import { openMigrated } from "./db/open";
import { redact } from "./db/pg/connection";
import { SESSION_RECHECK_MS } from "./features/auth/auth.store";
import { sharedVapidKey } from "./features/instance/instance.vapid";
import { hasOrganization } from "./features/organization/organization.store";
import { CLOSE } from "./http/sockets";
import type { AccessEntry } from "./lib/access-log";
import { atMostEvery, type Logger } from "./lib/log";
import { releaseStartupMemory } from "./lib/resident";
import { newToken } from "./lib/tokens";
import { createServices, type ServiceOptions } from "./services";

/** A running server. */
/** How long a stop waits for open connections to finish before it cuts them. */
const STOP_GRACE_MS = 3000;

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  /** The setup URL when the install had no organization at start. */
  readonly setupUrl: string | null;
  stop(): Promise<void>;
}

const MAINTENANCE_INTERVAL_MS = 3600 * 1000;

/** What a test may change about a server: see `startServer`. */
type ServerTuning = Pick<ServiceOptions, "docs" | "jobs" | "email" | "versionsClock"> & {
  secretsEnv?: Readonly<Record<string, string | undefined>>;
};

/** Opens everything and listens; throws ConfigError for a bad secret or setting. */
export async function startServer(
  config: Config,
  log: Logger,
  access: (entry: AccessEntry) => void,
  /**
   * Tuning a test may shorten (how long an unused document stays in memory), a clock it moves (versions'), or the
   * environment the secrets are read from (its own, as it hands `loadConfig`).
   */
  tuning: ServerTuning = {},
): Promise<RunningServer> {
  // On PostgreSQL, a node the others could not reach is refused before anything is opened.
  assertNodeUrl(config);
  makeDataDir(config.dataDir);
  const unlock = lockDataDir(config.dataDir);
  try {
    return await serveLocked(config, log, access, tuning, unlock);
  } catch (error) {
    unlock();
    throw error;
  }
}

/**
 * On PostgreSQL the VAPID key is the database's, the same for every node (instance.vapid.ts), unless
 * TANDEM_VAPID_PRIVATE_KEY gave one; on SQLite, the data dir's, loaded already.
 */
function withVapidKey(secrets: Secrets, conn: Connection): Secrets {
  if (conn.engine === "sqlite" || secrets.vapidPrivateKey.length > 0) return secrets;
  return Object.freeze({ ...secrets, vapidPrivateKey: sharedVapidKey(conn.db, secrets.encryptionKey) });
}

/** startServer, once the data dir is this process's; `unlock` is called when the server stops. */
async function serveLocked(
  config: Config,
  log: Logger,
  access: (entry: AccessEntry) => void,
  { secretsEnv, ...tuning }: ServerTuning,
  unlock: () => void,
): Promise<RunningServer> {
  const loaded = loadSecrets(config, secretsEnv);
  for (const name of loaded.generated) {
    log.warn({ data_dir: config.dataDir }, `${name} was not set: generated one into the data dir (mode 0600)`);
  }
  const { conn, applied } = openMigrated(config);
  if (applied.length > 0) log.info({ migrations: applied }, "database migrated");
  let secrets: Secrets;
  try {
    secrets = withVapidKey(loaded, conn);
  } catch (error) {
    conn.sqlite.close();
    throw error;
  }

  // Every editor's update fails alike on a full disk: one line a minute says so, with how many it stands for.
  const docErrors = atMostEvery(60_000);
  const setupToken = hasOrganization(conn.sqlite) ? null : newToken("");
  // Links in emails and pushes lead to TANDEM_PUBLIC_URL, else to where this server listens.
  let listening = "";
  const services = createServices(conn, config, {
    publicUrl: () => listening,
    secrets,
    setupToken,
    onEventError: (err) => log.error({ err }, "an event subscriber failed"),
    onDocError: (err, nodeId) =>
      docErrors((suppressed) =>
        log.error({ err, file_id: nodeId, suppressed }, "a document could not be stored or loaded"),
      ),
    log,
    ...tuning,
  });
  const app = buildApp({ config, log, access, services });
  try {
    app.listen({
      hostname: config.host,
      port: config.port,
      // Every route caps its own body (JSON at 1 MiB, uploads at TANDEM_MAX_UPLOAD_BYTES, both read as they
      // stream) and answers 413 in the API's shape; the runtime's own cap would answer 413 with no body at all.
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
      // Elysia asks for SO_REUSEPORT, which lets a second server bind the same port and take half its
      // connections: a port in use must be an error instead.
      reusePort: false,
    });
  } catch (error) {
    conn.sqlite.close();
    const why = error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
    throw new ConfigError(`cannot listen on ${config.host}:${config.port}: ${why}`);
  }
  const port = app.server?.port ?? config.port;
  // Checkpoints from here on run on a thread of their own (off the start-up path: its start costs ~10 ms).
  const checkpointer =
    conn.engine === "sqlite"
      ? new Checkpointer(conn.sqlite, config.dbPath, (why) =>
          log.error({ err: { message: why } }, "checkpointing the database failed; trying again"),
        )
      : null;
  // On PostgreSQL, the other nodes' writes are heard from here on, and they reach this one at its URL (which
  // `assertNodeUrl` made sure there is).
  await services.cluster?.start(nodeUrl(config, port) as string);
  // Staff replies queued before a restart resume here, once the server answers.
  services.runner?.start();
  services.scheduler?.start(services.events);
  // Tunnel runs left running by a previous process end; connectors reconnect by themselves.
  services.tunnels.start();
  // Inbox items left unread while the server was down are emailed now.
  services.email.start();
  // Rooms deleted before a stop may still hold rows: their purge goes on.
  void services.chat.purge.run();
  // Documents a stop cut short (logged updates not yet in their file's text) are folded; their texts written.
  services.docs.recover();
  // Texts whose editing a stop cut short are indexed for search; deleted rooms leave the index.
  services.search.start();
  // The inbox items of chat posts a crash left waiting for their batch are written.
  services.inbox.start();
  const shownHost = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
  const url = `http://${shownHost.includes(":") ? `[${shownHost}]` : shownHost}:${port}`;
  listening = url;
  const setupUrl = setupToken ? `${url}/setup?token=${setupToken}` : null;
  // The one log line that carries a token, by design: it is the way in to a fresh install. Logged before the
  // listening line, so whoever waits for that line has it already.
  // Logged as a warning, so a quieter LOG_LEVEL still shows the way in.
  if (setupUrl) log.warn({ setup_url: setupUrl }, "first-run setup: open this URL to create the organization");
  log.info(
    { url, data_dir: config.dataDir, ...(config.databaseUrl ? { database: redact(config.databaseUrl) } : {}) },
    "tandem is listening",
  );
  if (config.smtp && !config.publicUrl) {
    log.warn({ url }, "TANDEM_PUBLIC_URL is not set: links in emails lead to where this server listens");
  }
  const unreadable = services.integrations.unreadable();
  if (unreadable.length > 0) {
    log.warn(
      { providers: unreadable },
      "stored provider keys cannot be read with this APP_SSH_ENCRYPTION_KEY (another key stored them): start with that key, or store the keys again under Integrations",
    );
  }
  // The executable starts with the JIT reluctant to compile (the build's --compile-jit-policy): start-up code runs
  // once, and compiling it cost more than interpreting it. From here on the code that runs is the hot kind.
  Bun.unsafe.setJITPolicy(1);

  // Background writes that fail (a full disk) are logged and tried again on the next round; thrown from a
  // timer, they would stop the server.
  const inBackground = (what: string, step: () => void) => () => {
    try {
      step();
    } catch (err) {
      log.error({ err }, `${what} failed; trying again later`);
    }
  };
  const maintain = inBackground("maintenance", () => {
    services.auth.pruneExpired();
    services.files.collectGarbage();
    services.versions.thinAged();
    services.webhooks.pruneDeliveries();
    // In batches, with requests served in between; what a failure leaves is removed at the next round.
    services.audit
      .prune()
      .catch((err) => log.error({ err }, "removing year-old audit records failed; trying again later"));
  });
  // Off the start-up path: the first round runs once the server is already answering. Then start-up is over, and
  // the executable's pages that it alone touched are given back (idle RSS 42 MiB instead of 67; lib/resident.ts).
  const firstRound = setTimeout(() => {
    maintain();
    releaseStartupMemory(log);
  }, 1000);
  const maintenance = setInterval(maintain, MAINTENANCE_INTERVAL_MS);
  // Sessions ended by another process (`tandem users reset-password`) close their sockets here too, and members
  // it added (`tandem users add`) are announced as `member.joined`.
  const stopJoinWatch = services.members.watchJoins(services.events);
  const sessionCheck = setInterval(
    inBackground("checking sessions", () => {
      services.auth.checkSessions();
      services.members.announceJoinsElsewhere();
    }),
    SESSION_RECHECK_MS,
  );
  firstRound.unref();
  maintenance.unref();
  sessionCheck.unref();

  return {
    url,
    port,
    setupUrl,
    async stop() {
      clearTimeout(firstRound);
      clearInterval(maintenance);
      clearInterval(sessionCheck);
      stopJoinWatch();
      services.runner?.stop();
      services.scheduler?.stop();
      await services.email.stop();
      // Documents in memory fold their logs into snapshots; editors reconnect to the next server.
      await services.docs.closeAll(CLOSE.goingAway, "server stopping");
      // Their last texts, still settling, go into the search index.
      services.search.stop();
      // An open events socket would hold a graceful stop forever: closed first, and anything still open after
      // a few seconds (a client that never answers the close) is cut.
      services.live.closeAll(CLOSE.goingAway, "server stopping");
      services.tunnels.closeAll();
      const graceful = app.stop().then(() => true);
      if (!(await Promise.race([graceful, Bun.sleep(STOP_GRACE_MS).then(() => false)]))) await app.stop(true);
      // The inbox items of the last posts answered.
      services.inbox.stop();
      await checkpointer?.stop();
      await services.cluster?.stop();
      conn.sqlite.close();
      unlock();
    },
  };
}
