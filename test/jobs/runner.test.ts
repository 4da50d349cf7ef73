import { afterAll, describe, expect, it } from "bun:test";
import { join } from "node:path";
import { EventBus } from "../../src/core/events";
import { openDatabase } from "../../src/db/client";
import { migrate } from "../../src/db/migrate";
import { UnitOfWork } from "../../src/db/unit";
import { JobsStore } from "../../src/jobs/jobs.store";
import { JobRunner } from "../../src/jobs/runner";
import { createLogger } from "../../src/lib/log";
import { tempDir } from "../helpers/server";

const conn = openDatabase(join(tempDir(), "tandem.db"));
migrate(conn.sqlite);
afterAll(() => conn.sqlite.close());

describe("JobRunner", () => {
  it("outlives a queue it cannot write (a full disk): logs it, and runs the job once writes work again", async () => {
    const lines: string[] = [];
    const log = createLogger("debug", { write: (line: string) => void lines.push(line) });
    const store = new JobsStore(conn.db);
    const ran: string[] = [];
    const runner = new JobRunner(new UnitOfWork(conn.db, new EventBus()), store, log, {
      concurrency: 2,
      pollMs: 20,
    }).register({
      kind: "note",
      run: async (context) => {
        ran.push(context.job.id);
        context.complete(() => undefined);
      },
      giveUp: () => undefined,
    });
    runner.start();
    try {
      // The queue's table goes away under the runner: every claim fails, as every write does on a full disk.
      conn.sqlite.exec("ALTER TABLE jobs RENAME TO jobs_away");
      await Bun.sleep(100);
      conn.sqlite.exec("ALTER TABLE jobs_away RENAME TO jobs");
      const now = Date.now();
      store.enqueue({
        id: "job-1",
        kind: "note",
        payload: "{}",
        status: "queued",
        attempts: 0,
        runAt: now,
        lease: null,
        lockedUntil: null,
        lastError: null,
        createdAt: now,
        updatedAt: now,
      });
      for (let i = 0; i < 100 && ran.length === 0; i++) await Bun.sleep(20);
      expect(ran).toEqual(["job-1"]);
      expect(lines.some((line) => line.includes("no such table: jobs") && line.includes("failed; trying again"))).toBe(
        true,
      );
    } finally {
      runner.stop();
    }
  });
});
