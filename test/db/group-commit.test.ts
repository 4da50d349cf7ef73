import { Database } from "bun:sqlite";
import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { EventBus } from "../../src/core/events";
import { GroupCommit } from "../../src/db/group-commit";
import { PgDatabase } from "../../src/db/pg/connection";
import { UnitOfWork } from "../../src/db/unit";
import { newDatabase, ON_POSTGRES } from "../helpers/postgres";
import { tempDir } from "../helpers/server";

/** A database of the engine under test, with one table (on PostgreSQL, behind SQLite's interface). */
function open(): Database {
  if (ON_POSTGRES) {
    const db = new PgDatabase(newDatabase("group")) as unknown as Database;
    db.exec("CREATE TABLE t (id bigserial PRIMARY KEY, v text NOT NULL UNIQUE)");
    return db;
  }
  const db = new Database(join(tempDir(), "g.db"));
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)");
  return db;
}

/** The group commit of a connection, publishing to a bus of its own. */
const groupOf = (db: Database) =>
  new GroupCommit(db, new UnitOfWork(drizzle({ client: db }), new EventBus()), ON_POSTGRES);

describe("GroupCommit", () => {
  it("commits writes queued in one turn together, and each resolves with its own value", async () => {
    const db = open();
    const writes = groupOf(db);
    const events: string[] = [];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        writes
          .run(() => {
            events.push(db.inTransaction ? "ran in transaction" : "ran outside");
            db.query("INSERT INTO t (v) VALUES (?)").run(`v${i}`);
            return i;
          })
          .then((value) => {
            events.push("resolved");
            return value;
          }),
      ),
    );
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // Every write ran, inside the transaction, before any of them was acknowledged: one commit for all.
    expect(events.slice(0, 20)).toEqual(Array(20).fill("ran in transaction"));
    expect(events.slice(20)).toEqual(Array(20).fill("resolved"));
    expect((db.query("SELECT count(*) AS n FROM t").get() as { n: number }).n).toBe(20);
  });

  // SQLite's page limit stands for a full disk.
  it.skipIf(ON_POSTGRES)(
    "fails the whole batch with the cause when SQLite ends the transaction (a full disk), storing none of it",
    async () => {
      const db = open();
      const writes = groupOf(db);
      const pages = (db.query("PRAGMA page_count").get() as { page_count: number }).page_count;
      db.exec(`PRAGMA max_page_count = ${pages + 2}`);
      const outcomes = await Promise.allSettled(
        Array.from({ length: 40 }, (_, i) =>
          writes.run(() => db.query("INSERT INTO t (v) VALUES (?)").run(`${i}${"x".repeat(3000)}`)),
        ),
      );
      const reasons = outcomes.map((o) => (o.status === "rejected" ? (o.reason as { code?: string }).code : "stored"));
      expect(new Set(reasons)).toEqual(new Set(["SQLITE_FULL"]));
      expect(db.inTransaction).toBe(false);
      expect((db.query("SELECT count(*) AS n FROM t").get() as { n: number }).n).toBe(0);
      db.exec("PRAGMA max_page_count = 1073741823");
      await writes.run(() => db.query("INSERT INTO t (v) VALUES ('after')").run());
      expect((db.query("SELECT count(*) AS n FROM t").get() as { n: number }).n).toBe(1);
    },
  );

  it("rolls back only the write that failed", async () => {
    const db = open();
    const writes = groupOf(db);
    const insert = (v: string) => () => db.query("INSERT INTO t (v) VALUES (?)").run(v);
    const outcomes = await Promise.allSettled([
      writes.run(insert("a")),
      writes.run(() => {
        db.query("INSERT INTO t (v) VALUES ('b')").run();
        throw new Error("refused");
      }),
      writes.run(insert("a")),
      writes.run(insert("c")),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled"]);
    expect((db.query("SELECT v FROM t ORDER BY v").all() as { v: string }[]).map((r) => r.v)).toEqual(["a", "c"]);
    expect(db.inTransaction).toBe(false);
  });

  it("runs one-write jobs without a savepoint, and a failing one still leaves nothing behind", async () => {
    const db = open();
    const writes = groupOf(db);
    const insert = (v: string) => () => db.query("INSERT INTO t (v) VALUES (?)").run(v);
    const oneWrite = { oneWrite: true };
    const outcomes = await Promise.allSettled([
      writes.run(insert("a"), oneWrite),
      // Refused by SQLite itself (a duplicate): the statement is undone, the batch goes on.
      writes.run(insert("a"), oneWrite),
      // Refused before its write.
      writes.run(() => {
        throw new Error("refused");
      }, oneWrite),
      // A job with several writes beside them keeps its savepoint.
      writes.run(() => {
        db.query("INSERT INTO t (v) VALUES ('b')").run();
        throw new Error("refused");
      }),
      writes.run(insert("c"), oneWrite),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "rejected", "rejected", "fulfilled"]);
    expect((db.query("SELECT v FROM t ORDER BY v").all() as { v: string }[]).map((r) => r.v)).toEqual(["a", "c"]);
    expect(db.inTransaction).toBe(false);
  });

  it("keeps working after a batch, for writes queued later", async () => {
    const db = open();
    const writes = groupOf(db);
    await writes.run(() => db.query("INSERT INTO t (v) VALUES ('x')").run());
    await writes.run(() => db.query("INSERT INTO t (v) VALUES ('y')").run());
    expect((db.query("SELECT count(*) AS n FROM t").get() as { n: number }).n).toBe(2);
  });
});
