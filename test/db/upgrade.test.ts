/**
 * Upgrading a database with rows in it: migrations 0009 and 0010 recreate `file_nodes`, `task_messages`,
 * `task_deliverables` and `staff_activity` (their author columns stop being foreign keys). Every row, and every
 * row that points at them (documents, proposals, deliverable links), must come through, with foreign keys
 * still sound.
 */

import type { Database } from "bun:sqlite";
import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../../src/db/client";
import { knownMigrations, migrate } from "../../src/db/migrate";
import { ROOT, tempDir } from "../helpers/server";

/** Applies the migrations before `tag` from their SQL files, as an older Tandem would have. */
function migrateUntil(sqlite: Database, tag: string): void {
  sqlite.exec("PRAGMA foreign_keys = OFF");
  sqlite.exec("CREATE TABLE __migrations (tag TEXT PRIMARY KEY NOT NULL, applied_at INTEGER NOT NULL)");
  for (const older of knownMigrations().slice(0, knownMigrations().indexOf(tag))) {
    const sql = readFileSync(join(ROOT, "migrations", `${older}.sql`), "utf8");
    for (const statement of sql.split("--> statement-breakpoint")) if (statement.trim()) sqlite.exec(statement);
    sqlite.query("INSERT INTO __migrations VALUES (?, ?)").run(older, 1);
  }
  sqlite.exec("PRAGMA foreign_keys = ON");
}

/** Inserts a row, filling every other required column with a plain value of its type. */
function insert(sqlite: Database, table: string, values: Record<string, unknown>): void {
  const columns = sqlite.query(`PRAGMA table_info(${table})`).all() as {
    name: string;
    type: string;
    notnull: number;
    dflt_value: unknown;
  }[];
  const row: Record<string, unknown> = {};
  for (const column of columns) {
    if (column.name in values) row[column.name] = values[column.name];
    else if (column.notnull && column.dflt_value === null) {
      row[column.name] = /int/i.test(column.type) ? 1 : /blob/i.test(column.type) ? new Uint8Array([0]) : "x";
    }
  }
  const names = Object.keys(row);
  sqlite
    .query(
      `INSERT INTO ${table} (${names.map((n) => `"${n}"`).join(", ")}) VALUES (${names.map(() => "?").join(", ")})`,
    )
    .run(...(Object.values(row) as never[]));
}

describe("migrations 0009 and 0010 (authors and activity outlive staff) on a database with rows", () => {
  it("keeps every file, task message, deliverable link and activity entry, and what points at them", () => {
    const { sqlite } = openDatabase(join(tempDir(), "old.db"));
    migrateUntil(sqlite, "0009_authors_outlive_staff");
    insert(sqlite, "organizations", { id: "o1", slug: "acme" });
    insert(sqlite, "users", { id: "u1", email: "a@acme.test" });
    insert(sqlite, "spaces", { id: "s1", org_id: "o1" });
    insert(sqlite, "boards", { id: "b1", space_id: "s1" });
    insert(sqlite, "board_columns", { id: "c1", board_id: "b1" });
    insert(sqlite, "tasks", { id: "t1", space_id: "s1", board_id: "b1", column_id: "c1", created_by: "u1" });
    insert(sqlite, "task_messages", { id: "m1", task_id: "t1", author_user_id: "u1", content: "hello" });
    insert(sqlite, "file_nodes", { id: "f0", space_id: "s1", kind: "folder", name: "Deliverables", created_by: "u1" });
    insert(sqlite, "file_nodes", {
      id: "f1",
      space_id: "s1",
      parent_id: "f0",
      kind: "file",
      name: "a.md",
      created_by: "u1",
    });
    insert(sqlite, "file_docs", { node_id: "f1", text: "the text" });
    insert(sqlite, "file_proposals", { id: "p1", space_id: "s1", node_id: "f1", author_user_id: "u1" });
    insert(sqlite, "task_deliverables", { task_id: "t1", file_node_id: "f1", added_by: "u1" });
    insert(sqlite, "staff_activity", { job_id: "j1", org_id: "o1", space_id: "s1", staff_user_id: "u1" });

    expect(migrate(sqlite)).toEqual([
      "0009_authors_outlive_staff",
      "0010_activity_outlives_staff",
      "0011_room_purge",
      "0012_automations_run",
      "0013_inbox",
      "0014_notifications",
      "0015_search",
      "0016_automation_runs_queued",
      "0017_search_space",
      "0018_shaping_work",
      "0019_audit",
      "0020_inbox_posts_written",
      "code_0001_unicode_name_keys",
    ]);
    const one = (sql: string) => sqlite.query(sql).get() as Record<string, unknown>;
    expect(one("SELECT parent_id, name, created_by FROM file_nodes WHERE id = 'f1'")).toEqual({
      parent_id: "f0",
      name: "a.md",
      created_by: "u1",
    });
    expect(one("SELECT author_user_id, content FROM task_messages WHERE id = 'm1'")).toEqual({
      author_user_id: "u1",
      content: "hello",
    });
    expect(one("SELECT added_by FROM task_deliverables WHERE task_id = 't1'")).toEqual({ added_by: "u1" });
    expect(one("SELECT text FROM file_docs WHERE node_id = 'f1'")).toEqual({ text: "the text" });
    expect(one("SELECT node_id FROM file_proposals WHERE id = 'p1'")).toEqual({ node_id: "f1" });
    expect(sqlite.query("PRAGMA foreign_key_check").all()).toEqual([]);

    // The author columns are plain ids now: deleting the user keeps them; deleting a file still cascades.
    sqlite.exec("DELETE FROM users WHERE id = 'u1'");
    expect(one("SELECT created_by FROM file_nodes WHERE id = 'f1'")).toEqual({ created_by: "u1" });
    expect(one("SELECT author_user_id FROM task_messages WHERE id = 'm1'")).toEqual({ author_user_id: "u1" });
    expect(one("SELECT staff_user_id FROM staff_activity WHERE job_id = 'j1'")).toEqual({ staff_user_id: "u1" });
    sqlite.exec("DELETE FROM file_nodes WHERE id = 'f0'");
    expect(sqlite.query("SELECT COUNT(*) AS n FROM file_nodes").get()).toEqual({ n: 0 });
    expect(sqlite.query("SELECT COUNT(*) AS n FROM file_docs").get()).toEqual({ n: 0 });
    expect(sqlite.query("SELECT COUNT(*) AS n FROM task_deliverables").get()).toEqual({ n: 0 });
    sqlite.close();
  });
});

describe("migration 0015 (search) on a database with rows", () => {
  it("indexes what the install holds: live messages, tasks, task messages, file nodes with their text", () => {
    const { sqlite } = openDatabase(join(tempDir(), "search.db"));
    migrateUntil(sqlite, "0015_search");
    insert(sqlite, "organizations", { id: "o1", slug: "acme" });
    insert(sqlite, "users", { id: "u1", email: "a@acme.test" });
    insert(sqlite, "spaces", { id: "s1", org_id: "o1" });
    insert(sqlite, "boards", { id: "b1", space_id: "s1" });
    insert(sqlite, "board_columns", { id: "c1", board_id: "b1" });
    insert(sqlite, "chat_rooms", { id: "r1", space_id: "s1", name: "general", deleted_at: null });
    insert(sqlite, "chat_rooms", { id: "r2", space_id: "s1", name: "gone", deleted_at: 5 });
    const message = (id: string, room: string, content: string, deleted: number | null, at: number) =>
      insert(sqlite, "chat_messages", {
        id,
        room_id: room,
        space_id: "s1",
        content,
        deleted_at: deleted,
        created_at: at,
      });
    message("m1", "r1", "the aardvark digs", null, 10);
    message("m2", "r1", "", 20, 20);
    message("m3", "r2", "aardvark in a deleted room", null, 30);
    insert(sqlite, "tasks", {
      id: "t1",
      space_id: "s1",
      board_id: "b1",
      column_id: "c1",
      title: "Aardvark care",
      created_at: 5,
    });
    insert(sqlite, "task_messages", { id: "tm1", task_id: "t1", content: "fed the aardvark", created_at: 40 });
    insert(sqlite, "file_nodes", {
      id: "f1",
      space_id: "s1",
      kind: "file",
      name: "zoo.md",
      created_at: 1,
      deleted_at: null,
    });
    insert(sqlite, "file_docs", { node_id: "f1", text: "an aardvark lives here" });
    insert(sqlite, "file_nodes", { id: "f2", space_id: "s1", kind: "file", name: "aardvark.md", deleted_at: 7 });

    expect(migrate(sqlite)).toEqual([
      "0015_search",
      "0016_automation_runs_queued",
      "0017_search_space",
      "0018_shaping_work",
      "0019_audit",
      "0020_inbox_posts_written",
      "code_0001_unicode_name_keys",
    ]);
    const found = sqlite
      .query(
        "SELECT d.kind, d.item_id AS id FROM search_text JOIN search_docs d ON d.doc = search_text.rowid WHERE search_text MATCH 'aardvark' ORDER BY d.doc",
      )
      .all();
    // Oldest first, as items are indexed from here on.
    expect(found).toEqual([
      { kind: "file", id: "f1" },
      { kind: "task", id: "t1" },
      { kind: "message", id: "m1" },
      { kind: "task_message", id: "tm1" },
    ]);
    expect(sqlite.query("SELECT rowid FROM search_names WHERE search_names MATCH 'zoo'").all()).toHaveLength(1);
    sqlite.close();
  });
});

describe("name keys made by migration 0002", () => {
  it("are made again as the app makes them, a key that would clash with a sibling's with a suffix", () => {
    const { sqlite } = openDatabase(join(tempDir(), "keys.db"));
    migrateUntil(sqlite, "code_0001_unicode_name_keys");
    insert(sqlite, "organizations", { id: "o1", slug: "acme" });
    insert(sqlite, "users", { id: "u1", email: "a@acme.test" });
    insert(sqlite, "spaces", { id: "s1", org_id: "o1" });
    // As 0002's lower() left them (ASCII folded only), beside a name made since with the app's key.
    const node = (id: string, name: string, key: string) =>
      insert(sqlite, "file_nodes", { id, space_id: "s1", parent_id: null, name, name_key: key, deleted_at: null });
    node("f1", "Résumé ÉTÉ.txt", "rÉsumÉ Été.txt");
    node("f2", "Cafe\u0301.txt", "cafe\u0301.txt");
    node("f3", "Über", "Über");
    node("f4", "über", "über");
    insert(sqlite, "roles", { id: "r1", org_id: "o1", name: "Équipe", name_key: "Équipe" });
    insert(sqlite, "chat_rooms", { id: "c1", space_id: "s1", name: "Équipe", name_key: "Équipe" });
    insert(sqlite, "service_accounts", { id: "a1", org_id: "o1", user_id: "u1", name: "Émile", name_key: "Émile" });

    expect(migrate(sqlite)).toEqual(["code_0001_unicode_name_keys"]);
    const keys = (table: string) =>
      Object.fromEntries(
        (sqlite.query(`SELECT id, name_key FROM ${table} ORDER BY id`).all() as { id: string; name_key: string }[]).map(
          (r) => [r.id, r.name_key],
        ),
      );
    expect(keys("file_nodes")).toEqual({ f1: "résumé été.txt", f2: "café.txt", f3: "über\u0001", f4: "über" });
    expect(keys("roles")).toEqual({ r1: "équipe" });
    expect(keys("chat_rooms")).toEqual({ c1: "équipe" });
    expect(keys("service_accounts")).toEqual({ a1: "émile" });
    expect(migrate(sqlite)).toEqual([]);
    sqlite.close();
  });
});

describe("migration 0018 (shaping the work) on a database with rows", () => {
  it("counts the messages each task already has as its comment_count", () => {
    const { sqlite } = openDatabase(join(tempDir(), "comments.db"));
    migrateUntil(sqlite, "0018_shaping_work");
    insert(sqlite, "organizations", { id: "o1", slug: "acme" });
    insert(sqlite, "spaces", { id: "s1", org_id: "o1" });
    insert(sqlite, "boards", { id: "b1", space_id: "s1" });
    insert(sqlite, "board_columns", { id: "c1", board_id: "b1" });
    for (const id of ["t1", "t2"]) insert(sqlite, "tasks", { id, space_id: "s1", board_id: "b1", column_id: "c1" });
    insert(sqlite, "task_messages", { id: "m1", task_id: "t1", content: "one", created_at: 1 });
    insert(sqlite, "task_messages", { id: "m2", task_id: "t1", content: "two", created_at: 2 });

    expect(migrate(sqlite)).toEqual([
      "0018_shaping_work",
      "0019_audit",
      "0020_inbox_posts_written",
      "code_0001_unicode_name_keys",
    ]);
    expect(sqlite.query("SELECT id, comment_count, priority FROM tasks ORDER BY id").all()).toEqual([
      { id: "t1", comment_count: 2, priority: "none" },
      { id: "t2", comment_count: 0, priority: "none" },
    ]);
    expect(sqlite.query("SELECT wip_limit FROM board_columns").all()).toEqual([{ wip_limit: null }]);
    sqlite.close();
  });
});
