/**
 * The order of each column's tasks, kept in memory: a task's dense position and a move's new neighbours are
 * array lookups instead of counting index entries in SQLite (O(column) per request). A column is loaded on
 * first use; every change is applied only after its transaction commits, so the order never gets ahead of the
 * database.
 * On PostgreSQL with several nodes, another node's write makes this one drop what it keeps (`forgetRemembered`,
 * src/services.ts `linkNodes`) as soon as it hears of it, and always before its own next write.
 */

interface Column {
  ids: string[];
  ranks: number[];
}

const MAX_COLUMNS = 5000;

/** Ordered (rank, id) lists of columns. */
export class ColumnOrders {
  private readonly columns = new Map<string, Column>();

  constructor(private readonly load: (columnId: string) => { id: string; rank: number }[]) {}

  /** Drops every column: each is loaded again when next used. */
  clear(): void {
    this.columns.clear();
  }

  private of(columnId: string): Column {
    let column = this.columns.get(columnId);
    if (!column) {
      const rows = this.load(columnId);
      column = { ids: rows.map((r) => r.id), ranks: rows.map((r) => r.rank) };
      if (this.columns.size >= MAX_COLUMNS) this.columns.delete(this.columns.keys().next().value as string);
      this.columns.set(columnId, column);
    }
    return column;
  }

  /** The task's 0-based position in its column. */
  position(columnId: string, taskId: string): number {
    return this.of(columnId).ids.indexOf(taskId);
  }

  /** How many tasks the column holds, leaving out `exceptId`. */
  size(columnId: string, exceptId: string): number {
    const column = this.of(columnId);
    return column.ids.length - (column.ids.includes(exceptId) ? 1 : 0);
  }

  /** The ranks around `index` of the column without `exceptId`: what a task moved there would sit between. */
  around(columnId: string, exceptId: string, index: number): { before?: number; after?: number } {
    const column = this.of(columnId);
    const at = column.ids.indexOf(exceptId);
    const rankAt = (i: number) => column.ranks[at !== -1 && i >= at ? i + 1 : i];
    return { before: index > 0 ? rankAt(index - 1) : undefined, after: rankAt(index) };
  }

  /** The highest rank of the column, if it has tasks. */
  last(columnId: string): number | undefined {
    const { ranks } = this.of(columnId);
    return ranks[ranks.length - 1];
  }

  /** Puts the task at its rank (after a commit). */
  place(columnId: string, taskId: string, rank: number): void {
    const column = this.columns.get(columnId);
    if (!column) return;
    let i = column.ranks.length;
    while (
      i > 0 &&
      ((column.ranks[i - 1] as number) > rank ||
        (column.ranks[i - 1] === rank && (column.ids[i - 1] as string) > taskId))
    )
      i--;
    column.ids.splice(i, 0, taskId);
    column.ranks.splice(i, 0, rank);
  }

  /** Takes the task out of the column (after a commit). */
  remove(columnId: string, taskId: string): void {
    const column = this.columns.get(columnId);
    const i = column ? column.ids.indexOf(taskId) : -1;
    if (!column || i === -1) return;
    column.ids.splice(i, 1);
    column.ranks.splice(i, 1);
  }

  /** Forgets a column whose ranks were all rewritten; it is read again on next use. */
  forget(columnId: string): void {
    this.columns.delete(columnId);
  }
}
