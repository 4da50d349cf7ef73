/**
 * SQLite's SQL as PostgreSQL runs it (src/db/pg/translate.ts): each rule on the statements it is for, and the
 * statements it must leave alone. Pure text: no database needed, on either engine.
 */
import { describe, expect, it } from "bun:test";
import { translate } from "../../src/db/pg/translate";

const text = (sql: string) => translate(sql).text;

describe("translate", () => {
  it("says SQLite's scalar max(a, b) and min(a, b) as greatest and least, and keeps the aggregates", () => {
    expect(text("SELECT max(coalesce(a, 0), ? - 1) FROM t")).toBe("SELECT greatest(coalesce(a, 0), $1 - 1) FROM t");
    expect(text("SELECT MIN(a, b, c), min(x) FROM t")).toBe("SELECT least(a, b, c), min(x) FROM t");
    expect(text("SELECT max(f(a, b)), max(a) FROM t")).toBe("SELECT max(f(a, b)), max(a) FROM t");
    expect(text("SELECT max(a, 'x, y)'), max(b) FROM t")).toBe("SELECT greatest(a, 'x, y)'), max(b) FROM t");
    expect(text("SELECT max_id, max(a) FROM t")).toBe("SELECT max_id, max(a) FROM t");
  });
});
