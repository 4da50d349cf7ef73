/**
 * Several `tandem serve` nodes of one install on one PostgreSQL database (contract §9), each a child process
 * from source with a data dir of its own and the secrets every node shares, as an operator runs them; or, for
 * what a test must tune (a sweep's pace, the clock), servers in the test's own process on that database.
 */
import { rmSync } from "node:fs";
import { type Org, setupOrg } from "./factories";
import { newDatabase } from "./postgres";
import { type SpawnedServer, spawnServer, startTestServer, type TestServer, tempDir } from "./server";

/** The secrets every node of a test's install is given. */
export const NODE_SECRETS = {
  JWT_SECRET: "a-secret-every-node-of-this-test-shares-0123456789",
  APP_SSH_ENCRYPTION_KEY: "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
};

/** An install on a new database; `env` is given to every node it starts. */
export function nodeCluster(prefix: string, env: Record<string, string> = {}) {
  const databaseUrl = newDatabase(prefix);
  const dirs: string[] = [];
  const nodes: SpawnedServer[] = [];
  const here: TestServer[] = [];
  return {
    databaseUrl,
    nodes,
    /** Starts one more node (`extra`: settings of this one alone). */
    async start(extra: Record<string, string> = {}): Promise<SpawnedServer> {
      const dir = tempDir();
      dirs.push(dir);
      const server = await spawnServer({
        dataDir: dir,
        env: { TANDEM_DATABASE_URL: databaseUrl, ...NODE_SECRETS, ...env, ...extra },
      });
      nodes.push(server);
      return server;
    },
    /** Starts one more node in this process, with the tuning of `startTestServer` (`env`: this one's settings). */
    async startHere(
      options: Omit<NonNullable<Parameters<typeof startTestServer>[0]>, "dataDir"> = {},
    ): Promise<TestServer> {
      const dir = tempDir();
      dirs.push(dir);
      const server = await startTestServer({
        ...options,
        dataDir: dir,
        env: { TANDEM_DATABASE_URL: databaseUrl, ...NODE_SECRETS, ...env, ...options.env },
      });
      here.push(server);
      return server;
    },
    /** Sets up the organization through `node` (the first started, which logged the setup URL). */
    setup(node: SpawnedServer): Promise<Org> {
      const setupToken = new URL(node.setupUrl as string).searchParams.get("token");
      return setupOrg({ url: node.url, setupToken } as TestServer);
    },
    /** Ends every node still running (SIGKILL: the tests are over) and removes their data dirs. */
    async stop(): Promise<void> {
      await Promise.all(nodes.filter((n) => n.proc.exitCode === null).map((n) => n.stop("SIGKILL")));
      await Promise.all(here.splice(0).map((server) => server.stop()));
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}
