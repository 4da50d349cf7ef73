/** The settings table. */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { settings } from "../../db/schema";

/** Key/value settings of the install. */
export class SettingsStore {
  constructor(private readonly db: Db) {}

  get(key: string): string | undefined {
    return this.db.select().from(settings).where(eq(settings.key, key)).all()[0]?.value;
  }

  set(key: string, value: string): void {
    this.db.insert(settings).values({ key, value }).onConflictDoUpdate({ target: settings.key, set: { value } }).run();
  }

  /**
   * The value of `key`; when it has none, `make()`'s, stored first. One write transaction (on PostgreSQL, under
   * the write lock every node takes): of two processes asking at once, both get the value of the first.
   */
  getOrAdd(key: string, make: () => string): string {
    return this.db.transaction(
      (tx) => {
        const found = tx.select().from(settings).where(eq(settings.key, key)).all()[0];
        if (found) return found.value;
        const value = make();
        tx.insert(settings).values({ key, value }).run();
        return value;
      },
      { behavior: "immediate" },
    );
  }

  delete(key: string): void {
    this.db.delete(settings).where(eq(settings.key, key)).run();
  }
}
