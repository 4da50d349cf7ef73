import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "../../src/db/client";
import { knownMigrations, migrate } from "../../src/db/migrate";
import { tempDir } from "../helpers/server";

describe("migrate", () => {
  it("applies every embedded migration once, in order, and leaves foreign keys on", () => {
    const { sqlite } = openDatabase(join(tempDir(), "t.db"));
    expect(migrate(sqlite)).toEqual(knownMigrations());
    expect(migrate(sqlite)).toEqual([]);
    expect((sqlite.query("PRAGMA foreign_keys").get() as { foreign_keys: number }).foreign_keys).toBe(1);
    sqlite.close();
  });

  it("opens connections with the pragmas durability and secrecy need", () => {
    const { sqlite } = openDatabase(join(tempDir(), "p.db"));
    const pragma = (name: string) => Object.values(sqlite.query(`PRAGMA ${name}`).all()[0] as object)[0];
    expect(pragma("journal_mode")).toBe("wal");
    expect(pragma("synchronous")).toBe(1);
    expect(pragma("foreign_keys")).toBe(1);
    expect(pragma("secure_delete")).toBe(1);
    expect(pragma("busy_timeout")).toBe(5000);
    sqlite.close();
  });
});
