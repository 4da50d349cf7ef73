import { Database } from "bun:sqlite";
import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { type DomainEvent, EventBus } from "../../src/core/events";
import { GroupCommit } from "../../src/db/group-commit";
import { UnitOfWork } from "../../src/db/unit";
import { tempDir } from "../helpers/server";

/** A database with one table, its unit of work, and what its subscribers heard (with whether a write was open). */
function setup() {
  const sqlite = new Database(join(tempDir(), "u.db"));
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)");
  const bus = new EventBus();
  const uow = new UnitOfWork(drizzle({ client: sqlite }), bus);
  const heard: { id: string; inTransaction: boolean; rows: number }[] = [];
  bus.subscribe((event) => {
    heard.push({ id: (event.payload as { id: string }).id, inTransaction: sqlite.inTransaction, rows: count(sqlite) });
  });
  const insert = (v: string) => sqlite.query("INSERT INTO t (v) VALUES (?)").run(v);
  return { sqlite, bus, uow, heard, insert };
}

const count = (sqlite: Database) => (sqlite.query("SELECT count(*) AS n FROM t").get() as { n: number }).n;

/** An event whose payload names it. */
const event = (id: string) =>
  ({ type: "task.deleted", organization_id: "o", space_id: "s", payload: { id } }) as DomainEvent;

describe("UnitOfWork.write", () => {
  it("publishes what a committed write emitted once, in order, after COMMIT", () => {
    const { uow, heard, insert } = setup();
    uow.write((unit) => {
      insert("a");
      unit.emit(event("first"));
      insert("b");
      unit.emit(event("second"));
      expect(heard).toEqual([]);
    });
    expect(heard).toEqual([
      { id: "first", inTransaction: false, rows: 2 },
      { id: "second", inTransaction: false, rows: 2 },
    ]);
  });

  it("publishes nothing for a write that fails after emit, and stores none of it", () => {
    const { sqlite, uow, heard, insert } = setup();
    const after: string[] = [];
    expect(() =>
      uow.write((unit) => {
        insert("a");
        unit.emit(event("lost"));
        unit.afterCommit(() => after.push("ran"));
        insert("a"); // UNIQUE constraint: the write fails after its emit
      }),
    ).toThrow(/UNIQUE/);
    expect(heard).toEqual([]);
    expect(after).toEqual([]);
    expect(count(sqlite)).toBe(0);
  });

  it("runs after-commit steps once, in order with the events", () => {
    const { uow, heard, insert } = setup();
    const order: string[] = [];
    uow.events.subscribe((e) => order.push(`event ${(e.payload as { id: string }).id}`));
    uow.write((unit) => {
      insert("a");
      unit.afterCommit(() => order.push("step 1"));
      unit.emit(event("x"));
      unit.afterCommit(() => order.push("step 2"));
    });
    expect(order).toEqual(["step 1", "event x", "step 2"]);
    expect(heard).toHaveLength(1);
  });

  it("joins a write started inside another: its events wait for the outer commit, and go with its rollback", () => {
    const { sqlite, uow, heard, insert } = setup();
    const inner = () =>
      uow.write((unit) => {
        insert("inner");
        unit.emit(event("inner"));
      });
    uow.write((unit) => {
      inner();
      expect(heard).toEqual([]);
      unit.emit(event("outer"));
    });
    expect(heard.map((h) => h.id)).toEqual(["inner", "outer"]);

    heard.length = 0;
    sqlite.exec("DELETE FROM t");
    expect(() =>
      uow.write(() => {
        inner();
        throw new Error("outer fails");
      }),
    ).toThrow("outer fails");
    expect(heard).toEqual([]);
    expect(count(sqlite)).toBe(0);
  });

  it("runs in-transaction handlers as the event is emitted: their writes and events commit or roll back with it", () => {
    const { sqlite, bus, uow, heard, insert } = setup();
    bus.onWrite("task.deleted", (e, unit) => {
      const { id } = e.payload;
      if (id.startsWith("echo")) return;
      insert(`by handler for ${id}`);
      unit.emit(event(`echo of ${id}`));
    });
    uow.write((unit) => {
      insert("a");
      unit.emit(event("a"));
      expect(count(sqlite)).toBe(2);
    });
    expect(heard.map((h) => h.id)).toEqual(["a", "echo of a"]);

    heard.length = 0;
    expect(() =>
      uow.write((unit) => {
        unit.emit(event("b"));
        throw new Error("fails after");
      }),
    ).toThrow("fails after");
    expect(heard).toEqual([]);
    expect(count(sqlite)).toBe(2);
  });

  it("tells whether a handler may write for a change (a writer may then skip a savepoint)", () => {
    const { bus } = setup();
    const person = { userId: "u", serviceAccountId: null };
    expect(bus.mayWrite("task.deleted", person, "hi")).toBe(false);
    bus.onWrite("task.deleted", () => undefined, { mayWrite: (_actor, text) => text.includes("@") });
    expect(bus.mayWrite("task.deleted", person, "hi")).toBe(false);
    expect(bus.mayWrite("task.deleted", person, "hi @Ada")).toBe(true);
    bus.onWrite("task.deleted", () => undefined);
    expect(bus.mayWrite("task.deleted", person, "hi")).toBe(true);
  });

  it("keeps a failing subscriber from the others, and reports it", () => {
    const errors: unknown[] = [];
    const sqlite = new Database(":memory:");
    const bus = new EventBus((error) => errors.push(error));
    const uow = new UnitOfWork(drizzle({ client: sqlite }), bus);
    const heard: string[] = [];
    bus.subscribe(() => {
      throw new Error("subscriber broke");
    });
    bus.subscribe((e) => heard.push((e.payload as { id: string }).id));
    uow.write((unit) => {
      unit.emit(event("x"));
      unit.afterCommit(() => {
        throw new Error("step broke");
      });
      unit.emit(event("y"));
    });
    expect(heard).toEqual(["x", "y"]);
    expect(errors.map((e) => (e as Error).message)).toEqual(["subscriber broke", "step broke", "subscriber broke"]);
  });
});

describe("GroupCommit units", () => {
  it("publishes each committed write's events once, and nothing of a write that failed after emit", async () => {
    const { sqlite, uow, heard, insert } = setup();
    const writes = new GroupCommit(sqlite, uow);
    const outcomes = await Promise.allSettled([
      writes.run((unit) => {
        insert("a");
        unit.emit(event("a"));
      }),
      writes.run((unit) => {
        insert("b");
        unit.emit(event("b lost"));
        insert("a"); // fails: only this write rolls back
      }),
      writes.run((unit) => {
        insert("c");
        unit.emit(event("c"));
      }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(heard).toEqual([
      { id: "a", inTransaction: false, rows: 2 },
      { id: "c", inTransaction: false, rows: 2 },
    ]);
  });

  it("publishes nothing when the whole batch fails to commit (a full disk)", async () => {
    const { sqlite, uow, heard, insert } = setup();
    const writes = new GroupCommit(sqlite, uow);
    const pages = (sqlite.query("PRAGMA page_count").get() as { page_count: number }).page_count;
    sqlite.exec(`PRAGMA max_page_count = ${pages + 2}`);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        writes.run((unit) => {
          insert(`${i}${"x".repeat(3000)}`);
          unit.emit(event(`${i}`));
        }),
      ),
    );
    expect(outcomes.every((o) => o.status === "rejected")).toBe(true);
    expect(heard).toEqual([]);
  });

  it("lets a write started inside a queued function join its unit", async () => {
    const { sqlite, uow, heard, insert } = setup();
    const writes = new GroupCommit(sqlite, uow);
    await writes.run(() =>
      uow.write((unit) => {
        insert("joined");
        unit.emit(event("joined"));
      }),
    );
    expect(heard).toEqual([{ id: "joined", inTransaction: false, rows: 1 }]);
  });
});
