/**
 * `GET /health` says whether the server can still keep what it is given: 503 `{"error"}` naming what failed
 * when the data dir's filesystem has gone from under the running server (its files removed, the directory
 * replaced), and `ok` again once it is back. A failed filesystem is reproduced as root can: by taking the
 * database's files or the whole data dir away (root ignores permissions, and remounting needs privileges).
 */
import { afterAll, describe, expect, it } from "bun:test";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { request } from "../helpers/http";
import { ON_POSTGRES } from "../helpers/postgres";
import { startTestServer, type TestServer, tempDir } from "../helpers/server";

const dirs: string[] = [];
const servers: TestServer[] = [];

afterAll(async () => {
  for (const server of servers) await server.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A server over a data dir of this test's own, which it moves about. */
async function serve(): Promise<TestServer> {
  const dataDir = join(tempDir("tandem-health-"), "data");
  dirs.push(join(dataDir, ".."));
  const server = await startTestServer({ dataDir });
  servers.push(server);
  return server;
}

const health = (server: TestServer) => request(server.url, "GET", "/health");

/** Asks /health until it answers `status` (a check's answer stands a second), and answers its body. */
async function healthBecomes(server: TestServer, status: number): Promise<unknown> {
  let last = await health(server);
  for (let i = 0; i < 25 && last.status !== status; i++) {
    await Bun.sleep(200);
    last = await health(server);
  }
  expect(last.status).toBe(status);
  return last.body;
}

describe("GET /health", () => {
  it("answers ok with the build while the data dir works", async () => {
    const server = await serve();
    const res = await health(server);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok", version: expect.any(String), git_sha: expect.any(String) });
  });

  it("answers 503 when the data dir is replaced by a file, and ok once it is back", async () => {
    const server = await serve();
    expect((await health(server)).status).toBe(200);
    renameSync(server.dataDir, `${server.dataDir}.away`);
    writeFileSync(server.dataDir, "not a directory");
    expect(await healthBecomes(server, 503)).toEqual({
      error: "the data directory is gone: a file stands in its place",
    });
    rmSync(server.dataDir);
    renameSync(`${server.dataDir}.away`, server.dataDir);
    expect(await healthBecomes(server, 200)).toMatchObject({ status: "ok" });
  });

  // SQLite's files: on PostgreSQL the database is not in the data dir.
  it.skipIf(ON_POSTGRES)("answers 503 when the database file is removed under the running server", async () => {
    const server = await serve();
    expect((await health(server)).status).toBe(200);
    rmSync(join(server.dataDir, "tandem.db"));
    const body = await healthBecomes(server, 503);
    expect(body).toEqual({ error: "the database file is gone from the data directory" });
    // Nothing about where: no path in the answer.
    expect(JSON.stringify(body)).not.toContain(server.dataDir);
  });

  it.skipIf(ON_POSTGRES)(
    "answers 503 when the database's write-ahead log is removed under the running server",
    async () => {
      const server = await serve();
      expect((await health(server)).status).toBe(200);
      rmSync(join(server.dataDir, "tandem.db-wal"));
      expect(await healthBecomes(server, 503)).toEqual({
        error: "the database's write-ahead log is gone from the data directory",
      });
    },
  );

  it("answers 503 when nothing can be written in the data dir", async () => {
    const server = await serve();
    expect((await health(server)).status).toBe(200);
    // Root writes through any permission: what stands in the way here is a directory where the check writes.
    mkdirSync(join(server.dataDir, ".health-check"));
    expect(await healthBecomes(server, 503)).toEqual({ error: "the data directory cannot be written to" });
    rmSync(join(server.dataDir, ".health-check"), { recursive: true });
    expect(await healthBecomes(server, 200)).toMatchObject({ status: "ok" });
  });
});
