/**
 * Checkpoints run beside the server, on a thread of the executable's own, not inside its requests: what is
 * written reaches the database file a moment later (SQLite alone would copy it only once the WAL holds 1,000
 * pages, inside a request), and a stop leaves no WAL behind (the thread's connection is closed first).
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { existsSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { type Org, setupOrg } from "../helpers/factories";
import { ON_POSTGRES } from "../helpers/postgres";
import { type SpawnedServer, spawnServer, tempDir } from "../helpers/server";
import { eventually } from "../helpers/sockets";

const dataDir = tempDir();
const db = join(dataDir, "tandem.db");
let spawned: SpawnedServer;
let org: Org;

// SQLite's write-ahead log: PostgreSQL has none of these files, and checkpoints its own way.
describe.skipIf(ON_POSTGRES)("checkpoints", () => {
  beforeAll(async () => {
    spawned = await spawnServer({ kind: "binary", dataDir });
    const setupToken = new URL(spawned.setupUrl as string).searchParams.get("token");
    org = await setupOrg({ url: spawned.url, dataDir, setupToken, logs: spawned.output, stop: async () => {} });
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("copy a few writes into the database file within moments, without waiting for 1,000 pages", async () => {
    // Whatever setup wrote is copied first; then the file stays as it is while nothing is written.
    await Bun.sleep(500);
    const before = statSync(db).mtimeMs;
    const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Checkpointed" });
    expect(space.status).toBe(201);
    await eventually(() => statSync(db).mtimeMs > before, "the database file to take the new space", 3000);
  });

  it("leave no WAL once the server has stopped", async () => {
    expect(await spawned.stop("SIGTERM")).toBe(0);
    expect(existsSync(`${db}-wal`)).toBe(false);
    expect(existsSync(`${db}-shm`)).toBe(false);
  });
});
