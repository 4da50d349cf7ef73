/** A space's labels. Every statement on a request path is prepared once. */
import { and, asc, eq, sql } from "drizzle-orm";
import { type Db, prepared } from "../../db/client";
import { changedColumnsUpdater, insertRow } from "../../db/prepared";
import { labels } from "../../db/schema";

export type LabelRow = typeof labels.$inferSelect;

const p = sql.placeholder;

/** Data access for labels. */
export class LabelsStore {
  constructor(private readonly db: Db) {}

  private readonly ofSpaceQuery = prepared(() =>
    this.db
      .select()
      .from(labels)
      .where(eq(labels.spaceId, p("spaceId")))
      .orderBy(asc(labels.createdAt), asc(labels.id))
      .prepare(),
  );

  /** The space's labels, oldest first. */
  ofSpace(spaceId: string): LabelRow[] {
    return this.ofSpaceQuery().all({ spaceId });
  }

  private readonly byId = prepared(() =>
    this.db
      .select()
      .from(labels)
      .where(and(eq(labels.id, p("id")), eq(labels.spaceId, p("spaceId"))))
      .prepare(),
  );

  label(spaceId: string, id: string): LabelRow | undefined {
    return this.byId().all({ spaceId, id })[0];
  }

  private readonly insertLabelRow = prepared(() => insertRow(this.db, labels));
  private readonly saveLabelRow = changedColumnsUpdater<LabelRow>(() => this.db, labels, labels.id);

  insert(row: LabelRow): void {
    this.insertLabelRow().run(row);
  }

  /** Writes the fields of `after` that differ from `before`. */
  save(before: LabelRow, after: LabelRow): void {
    this.saveLabelRow(before, after);
  }

  /** Deletes the label; its links to tasks go with it (a foreign key cascade). */
  delete(id: string): void {
    this.db.delete(labels).where(eq(labels.id, id)).run();
  }
}
