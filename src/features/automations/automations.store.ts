/** Automation rows. */
import { and, asc, eq, sql } from "drizzle-orm";
import { type Db, prepared } from "../../db/client";
import { changedColumnsUpdater, insertRow } from "../../db/prepared";
import { automations } from "../../db/schema";

export type AutomationRow = typeof automations.$inferSelect;

export class AutomationsStore {
  constructor(private readonly db: Db) {}

  private readonly bySpace = prepared(() =>
    this.db
      .select()
      .from(automations)
      .where(eq(automations.spaceId, sql.placeholder("spaceId")))
      .orderBy(asc(automations.createdAt), asc(automations.id))
      .prepare(),
  );

  list(spaceId: string): AutomationRow[] {
    return this.bySpace().all({ spaceId });
  }

  get(spaceId: string, id: string): AutomationRow | undefined {
    return this.db
      .select()
      .from(automations)
      .where(and(eq(automations.spaceId, spaceId), eq(automations.id, id)))
      .all()[0];
  }

  private readonly insertAutomation = prepared(() => insertRow(this.db, automations));
  private readonly saveAutomation = changedColumnsUpdater<AutomationRow>(() => this.db, automations, automations.id);

  insert(row: AutomationRow): void {
    this.insertAutomation().run(row);
  }

  save(before: AutomationRow, after: AutomationRow): void {
    this.saveAutomation(before, after);
  }

  delete(id: string): void {
    this.db.delete(automations).where(eq(automations.id, id)).run();
  }
}
