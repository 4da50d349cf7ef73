/**
 * PostgreSQL's schema is derived from SQLite's migrations (src/db/pg/schema.ts): the committed
 * migrations/pg/0000_schema.sql must be what they make today, so the two engines never drift apart.
 */
import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { difference, PG_SCHEMA_FILE, pgSchemaProblem, pgSchemaText, schemaAt } from "../../scripts/pg-schema";
import { embeddedMigrations } from "../../src/db/migrations.macro";
import { PgDatabase } from "../../src/db/pg/connection";
import { translate } from "../../src/db/pg/translate";
import { newDatabase } from "../helpers/postgres";

describe("PostgreSQL's schema", () => {
  it("is what the SQLite migrations make, and brought up to the newest (run `bun scripts/pg-schema.ts` after adding one)", () => {
    expect(pgSchemaProblem()).toBeNull();
    expect(readFileSync(PG_SCHEMA_FILE, "utf8")).toStartWith("-- sqlite: ");
  });

  it("takes a database made by older migrations to the schema a new one gets, SQLite migration by migration", () => {
    const tags = embeddedMigrations().map((m) => m.tag);
    const from = tags.indexOf("0011_room_purge");
    const older = newDatabase("pg_schema_old");
    const fresh = newDatabase("pg_schema_new");
    const a = new PgDatabase(older);
    const b = new PgDatabase(fresh);
    try {
      for (const statement of schemaAt(tags[from])) a.exec(statement);
      for (let i = from; i + 1 < tags.length; i++) {
        for (const statement of difference(schemaAt(tags[i]), schemaAt(tags[i + 1]))) a.exec(statement);
      }
      for (const statement of schemaAt()) b.exec(statement);
      const catalog = (db: PgDatabase) => [
        db
          .query(
            "SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2",
          )
          .all(),
        db.query("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1").all(),
        db
          .query(
            "SELECT conrelid::regclass::text AS t, pg_get_constraintdef(oid) AS d FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2",
          )
          .all(),
      ];
      expect(catalog(a)).toEqual(catalog(b));
    } finally {
      a.close();
      b.close();
    }
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
