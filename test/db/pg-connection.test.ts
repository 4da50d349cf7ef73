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
});
