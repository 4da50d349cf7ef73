/**
 * PostgreSQL's schema is derived from SQLite's migrations (src/db/pg/schema.ts): the committed file is what they
 * make today, so the two engines cannot drift apart. Pure text: no database needed, on either engine.
 */
import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { PG_SCHEMA_FILE, pgSchemaText } from "../../scripts/pg-schema";

describe("migrations/pg/0000_schema.sql", () => {
  it("is what the SQLite migrations make (bun scripts/pg-schema.ts writes it)", () => {
    expect(readFileSync(PG_SCHEMA_FILE, "utf8")).toBe(pgSchemaText());
  });

  it("keeps a text file's text as bytes: PostgreSQL's text cannot hold NUL", () => {
    expect(pgSchemaText()).toMatch(/CREATE TABLE "file_docs" \([^;]*"text" bytea NOT NULL/);
  });
});
