/**
 * The label ids of each space's tasks, kept in memory as the column orders are (`tasks.order.ts`): listing
 * "my tasks" or a board, or moving a task, reads a task's labels from here instead of `task_labels` (200 tasks
 * of "my tasks" cost 200 index seeks and an extra column through the mapper, about half again the query).
 * A space is loaded on first use, in one query; every change is applied only after its transaction commits,
 * so the sets never get ahead of the database.
 * On PostgreSQL with several nodes, another node's write makes this one drop what it keeps (`forgetRemembered`,
 * src/services.ts `linkNodes`) as soon as it hears of it, and always before its own next write.
 */

/** Spaces kept; the least recently loaded goes first (a space is read again when next needed). */
const MAX_SPACES = 2000;
const NONE: readonly string[] = Object.freeze([]);

/** The labels of the tasks of each space that was used lately. */
export class TaskLabelSets {
  private readonly spaces = new Map<string, Map<string, readonly string[]>>();

  constructor(private readonly load: (spaceId: string) => { taskId: string; labelId: string }[]) {}

  /** Drops every space: each is loaded again when next used. */
  clear(): void {
    this.spaces.clear();
  }

  private of(spaceId: string): Map<string, readonly string[]> {
    let space = this.spaces.get(spaceId);
    if (!space) {
      const lists = new Map<string, string[]>();
      for (const { taskId, labelId } of this.load(spaceId)) {
        const list = lists.get(taskId);
        if (list) list.push(labelId);
        else lists.set(taskId, [labelId]);
      }
      for (const list of lists.values()) list.sort();
      space = lists;
      if (this.spaces.size >= MAX_SPACES) this.spaces.delete(this.spaces.keys().next().value as string);
      this.spaces.set(spaceId, space);
    }
    return space;
  }

  /** The task's label ids, in id order (the order the labels were made). */
  labelsOf(spaceId: string, taskId: string): readonly string[] {
    return this.of(spaceId).get(taskId) ?? NONE;
  }

  /** After a commit: the task now carries `labelIds` (sorted); none once it is deleted. */
  set(spaceId: string, taskId: string, labelIds: readonly string[]): void {
    const space = this.spaces.get(spaceId);
    if (!space) return;
    if (labelIds.length > 0) space.set(taskId, labelIds);
    else space.delete(taskId);
  }
}
