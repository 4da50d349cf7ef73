/**
 * A real PostgreSQL 15 for tests: a cluster made in a temp dir by `initdb`, started with `pg_ctl` on a random
 * port (as the `postgres` user when the tests run as root: PostgreSQL refuses to run as root), one per test
 * process, stopped when the process exits. Each server under test gets a database of its own.
 *
 * `TANDEM_TEST_DATABASE=postgres` runs every test server on it (`startTestServer`, `spawnServer` and the CLI of
 * test/helpers/server.ts): the same API tests, on the other engine.
 */
import { Database } from "bun:sqlite";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PgDatabase } from "../../src/db/pg/connection";

const BIN = process.env.TANDEM_PG_BIN ?? "/usr/lib/postgresql/15/bin";

/** Whether the tests run on PostgreSQL (`TANDEM_TEST_DATABASE=postgres`). */
export const ON_POSTGRES = process.env.TANDEM_TEST_DATABASE === "postgres";

interface Cluster {
  dir: string;
  port: number;
  asUser: string | null;
}

let cluster: Cluster | null = null;
let databases = 0;

function run(cluster: Pick<Cluster, "asUser">, command: string[], what: string): string {
  const argv = cluster.asUser ? ["runuser", "-u", cluster.asUser, "--", ...command] : command;
  const result = spawnSync(argv[0] as string, argv.slice(1), { encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(`${what} failed (${result.status}): ${result.stderr || result.stdout || result.error}`);
  }
  return result.stdout;
}

function freePort(): number {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}

/** Installs Debian's PostgreSQL 15 when it is not there yet (as test/helpers/browser.ts installs Chromium). */
function ensurePostgres(): void {
  if (existsSync(join(BIN, "initdb"))) return;
  const install = (args: string[]) => {
    const command = process.getuid?.() === 0 ? args : ["sudo", "-n", ...args];
    const result = spawnSync(command[0] as string, command.slice(1), {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    if (result.status !== 0) throw new Error(`${args.join(" ")} failed (${result.status})`);
  };
  try {
    install(["apt-get", "install", "-y", "postgresql"]);
  } catch {
    install(["apt-get", "update"]);
    install(["apt-get", "install", "-y", "postgresql"]);
  }
  if (!existsSync(join(BIN, "initdb"))) throw new Error(`${BIN}/initdb is missing after apt-get install postgresql`);
}

/** Starts the test process's cluster (once). */
export function startPostgres(): Cluster {
  if (cluster) return cluster;
  ensurePostgres();
  const asUser = process.getuid?.() === 0 ? "postgres" : null;
  const dir = mkdtempSync(join(tmpdir(), "tandem-pg-"));
  chmodSync(dir, 0o777);
  const made: Cluster = { dir, port: freePort(), asUser };
  run(
    made,
    [join(BIN, "initdb"), "-D", join(dir, "data"), "-A", "trust", "-U", "tandem", "-E", "UTF8", "--locale=C"],
    "initdb",
  );
  run(
    made,
    [
      join(BIN, "pg_ctl"),
      "-D",
      join(dir, "data"),
      "-o",
      // Tests do not need the disk to survive a power cut: no fsync makes each database's creation cheap.
      `-p ${made.port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400`,
      "-l",
      join(dir, "log"),
      "-w",
      "start",
    ],
    "pg_ctl start",
  );
  cluster = made;
  // Stopped after the last test (test/helpers/preload.ts); and should this process die first (a timeout, a
  // kill), a watcher stops the cluster once it is gone.
  const stop = [...(asUser ? ["runuser", "-u", asUser, "--"] : []), join(BIN, "pg_ctl"), "-D", join(dir, "data")];
  const watcher = Bun.spawn(
    [
      "sh",
      "-c",
      `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; [ -d '${dir}/data' ] && ${stop.join(" ")} -m immediate stop; rm -rf '${dir}'`,
    ],
    { stdio: ["ignore", "ignore", "ignore"] },
  );
  watcher.unref();
  return made;
}

/** Stops the cluster and removes its directory. */
export function stopPostgres(): void {
  if (!cluster) return;
  const { dir } = cluster;
  try {
    run(cluster, [join(BIN, "pg_ctl"), "-D", join(dir, "data"), "-m", "immediate", "stop"], "pg_ctl stop");
  } catch {
    // Stopped already, or never started: the directory goes either way.
  }
  cluster = null;
  rmSync(dir, { recursive: true, force: true });
}

/** The URL of a new, empty database on the cluster. */
export function newDatabase(prefix = "t"): string {
  const { port, asUser } = startPostgres();
  const name = `${prefix}_${process.pid}_${++databases}`;
  run({ asUser }, [join(BIN, "createdb"), "-h", "127.0.0.1", "-p", String(port), "-U", "tandem", name], "createdb");
  return databaseUrl(name);
}

/** The URL of the database `name` on the cluster. */
export function databaseUrl(name: string): string {
  const { port } = startPostgres();
  return `postgres://tandem@127.0.0.1:${port}/${name}`;
}

/** Runs SQL on a database of the cluster with psql; its output. */
export function psql(url: string, sql: string): string {
  const { asUser } = startPostgres();
  return run({ asUser }, [join(BIN, "psql"), url, "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql], "psql");
}

const byDataDir = new Map<string, string>();

/**
 * On PostgreSQL, the database of a data dir: made on first use, the same for every server and CLI run on that
 * data dir (a restart finds what it wrote). Null on SQLite.
 */
export function databaseOf(dataDir: string): string | null {
  if (!ON_POSTGRES) return null;
  let url = byDataDir.get(dataDir);
  if (!url) {
    url = newDatabase();
    byDataDir.set(dataDir, url);
  }
  return url;
}

/**
 * The database of a data dir, opened beside its server to look at (or set up) rows the API does not show: the
 * SQLite file, or on PostgreSQL its database through the server's own connection (SQLite's SQL translated), so a
 * test's statements hold on both engines.
 */
export function openDataDirDatabase(dataDir: string, options: { readonly?: boolean } = {}): Database {
  const url = databaseOf(dataDir);
  if (url) return new PgDatabase(url) as unknown as Database;
  return options.readonly
    ? new Database(join(dataDir, "tandem.db"), { readonly: true })
    : new Database(join(dataDir, "tandem.db"));
}
