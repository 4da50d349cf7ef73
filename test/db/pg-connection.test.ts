/**
 * PostgreSQL behind SQLite's interface (src/db/pg/connection.ts) where the two engines differ underneath. Runs on
 * PostgreSQL only (`TANDEM_TEST_DATABASE=postgres`).
 */
import type { Database } from "bun:sqlite";
import { describe, expect, it } from "bun:test";
import { PgDatabase } from "../../src/db/pg/connection";
import { newDatabase, ON_POSTGRES } from "../helpers/postgres";

describe.skipIf(!ON_POSTGRES)("PgDatabase", () => {
  it("fails a COMMIT that PostgreSQL ended in ROLLBACK (a statement had failed), and stores nothing", () => {
    const db = new PgDatabase(newDatabase("conn")) as unknown as Database;
    try {
      db.exec("CREATE TABLE t (v text NOT NULL UNIQUE)");
      const insert = db.query("INSERT INTO t (v) VALUES (?)");
      db.exec("BEGIN IMMEDIATE");
      insert.run("a");
      expect(() => insert.run("a")).toThrow(expect.objectContaining({ code: "SQLITE_CONSTRAINT_UNIQUE" }));
      expect(() => db.exec("COMMIT")).toThrow("the transaction was rolled back: a statement in it had failed");
      expect(db.inTransaction).toBe(false);
      expect(db.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });

  it("sends a savepoint's statements with the next one, and still undoes only what failed in it", () => {
    const db = new PgDatabase(newDatabase("conn")) as unknown as Database;
    try {
      db.exec("CREATE TABLE t (v text NOT NULL UNIQUE)");
      const insert = db.query("INSERT INTO t (v) VALUES (?)");
      db.transaction(() => {
        insert.run("a");
        db.query("SAVEPOINT job").run();
        expect(() => insert.run("a")).toThrow(expect.objectContaining({ code: "SQLITE_CONSTRAINT_UNIQUE" }));
        db.query("ROLLBACK TO job").run();
        db.query("RELEASE job").run();
        db.query("SAVEPOINT job").run();
        insert.run("b");
        db.query("RELEASE job").run();
      })();
      expect(db.query("SELECT v FROM t ORDER BY v").all()).toEqual([{ v: "a" }, { v: "b" }]);
    } finally {
      db.close();
    }
  });

  it("rolls the whole transaction back when a statement held back fails, with its error on the next one", () => {
    const pg = new PgDatabase(newDatabase("conn"));
    const db = pg as unknown as Database;
    try {
      db.exec("CREATE TABLE t (v text NOT NULL UNIQUE)");
      const insert = pg.query("INSERT INTO t (v) VALUES (?)");
      expect(() =>
        db.transaction(() => {
          insert.run("a");
          insert.defer("a");
          insert.run("b");
        })(),
      ).toThrow(/duplicate key value.* in: INSERT INTO t/);
      expect(db.inTransaction).toBe(false);
      expect(db.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: 0 });
      // The connection goes on as before.
      db.transaction(() => insert.run("c"))();
      expect(db.query("SELECT v FROM t").all()).toEqual([{ v: "c" }]);
    } finally {
      db.close();
    }
  });
});
