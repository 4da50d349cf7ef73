/**
 * PostgreSQL's schema is derived from SQLite's migrations (src/db/pg/schema.ts): the committed
 * migrations/pg/0000_schema.sql must be what they make today, so the two engines never drift apart.
 */
import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { PG_SCHEMA_FILE, pgSchemaText } from "../../scripts/pg-schema";
import { translate } from "../../src/db/pg/translate";

describe("PostgreSQL's schema", () => {
  it("is what the SQLite migrations make (run `bun scripts/pg-schema.ts` after adding one)", () => {
    expect(readFileSync(PG_SCHEMA_FILE, "utf8")).toBe(pgSchemaText());
  });

  it("has every SQLite table but the search index's FTS5 tables, with bigint, text and bytea columns", () => {
    const text = pgSchemaText();
    for (const table of ["users", "chat_messages", "tasks", "file_docs", "file_doc_updates", "jobs", "search_docs"]) {
      expect(text).toContain(`CREATE TABLE "${table}" (`);
    }
    expect(text).not.toContain("fts5");
    expect(text).not.toContain('CREATE TABLE "search_text');
    expect(text).toContain('"created_at" bigint NOT NULL');
    expect(text).toContain('"state" bytea NOT NULL');
    // SQLite's rowid keys get a sequence, given when an insert leaves them null.
    expect(text).toContain('CREATE SEQUENCE "jobs_seq_seq"');
  });

  it("keeps a text file's text as bytes: PostgreSQL's text cannot hold NUL", () => {
    expect(pgSchemaText()).toMatch(/CREATE TABLE "file_docs" \([^;]*"text" bytea NOT NULL/);
  });
});

describe("SQLite's SQL said for PostgreSQL", () => {
  it("numbers placeholders, and binds named ones by name, each once", () => {
    expect(translate("SELECT a FROM t WHERE b = ? AND c = ?")).toMatchObject({
      text: "SELECT a FROM t WHERE b = $1 AND c = $2",
      names: null,
      count: 2,
    });
    expect(translate("UPDATE t SET a = $a WHERE id = $id AND a <> $a")).toMatchObject({
      text: "UPDATE t SET a = $1 WHERE id = $2 AND a <> $1",
      names: ["a", "id"],
    });
  });

  it("leaves string literals, quoted names and comments alone", () => {
    expect(translate(`SELECT '?', "weird?name" FROM t -- a comment with ?\nWHERE x = ?`).text).toBe(
      `SELECT '?', "weird?name" FROM t \nWHERE x = $1`,
    );
  });

  it("respells what PostgreSQL spells otherwise", () => {
    expect(translate("INSERT OR IGNORE INTO t (a) VALUES (?)").text).toBe(
      "INSERT INTO t (a) VALUES ($1) ON CONFLICT DO NOTHING",
    );
    expect(translate("SELECT value FROM json_each($ids)").text).toBe("SELECT value FROM tandem_json_each($1)");
    expect(translate("SELECT id, space_id AS spaceId FROM t ORDER BY spaceId").text).toBe(
      'SELECT id, space_id AS "spaceId" FROM t ORDER BY "spaceId"',
    );
    expect(translate("SELECT 1 WHERE ? IS NULL").text).toBe("SELECT 1 WHERE $1::text IS NULL");
    expect(translate('insert into "t" ("a") values (?) on conflict ("t"."a") do nothing').text).toBe(
      'insert into "t" ("a") values ($1) on conflict ("a") do nothing',
    );
    expect(translate("DELETE FROM t WHERE rowid IN (SELECT rowid FROM t LIMIT $n)")).toMatchObject({
      text: "DELETE FROM t WHERE ctid IN (SELECT ctid FROM t LIMIT $1)",
      limits: [1],
    });
  });
});
