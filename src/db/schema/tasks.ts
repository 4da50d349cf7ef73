/** Tasks, their messages and their deliverable links. */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { fileNodes } from "./files";
import { users } from "./people";
import { boardColumns, boards, labels, spaces } from "./spaces";

export const tasks = sqliteTable(
  "tasks",
  {
    id: text("id").primaryKey(),
    spaceId: text("space_id")
      .notNull()
      .references(() => spaces.id, { onDelete: "cascade" }),
    boardId: text("board_id")
      .notNull()
      .references(() => boards.id, { onDelete: "cascade" }),
    columnId: text("column_id")
      .notNull()
      .references(() => boardColumns.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    assigneeUserId: text("assignee_user_id").references(() => users.id, { onDelete: "set null" }),
    dueAt: integer("due_at"),
    deliverableRequired: integer("deliverable_required", { mode: "boolean" }).notNull().default(false),
    deliverableInstructions: text("deliverable_instructions").notNull().default(""),
    /**
     * Sort key within the column, with gaps: a move writes one row. The API's dense `position` is this
     * task's index in (rank, id) order, computed when read.
     */
    rank: integer("rank").notNull(),
    /** `none`, `low`, `medium`, `high` or `urgent`. */
    priority: text("priority").notNull().default("none"),
    /** The task's messages (comments), counted as they are written, so a card needs no count when listed. */
    commentCount: integer("comment_count").notNull().default(0),
    version: integer("version").notNull().default(1),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("tasks_column_rank_idx").on(t.columnId, t.rank, t.id),
    index("tasks_space_idx").on(t.spaceId),
    index("tasks_created_by_idx").on(t.createdBy),
    index("tasks_assignee_idx").on(t.assigneeUserId, t.updatedAt, t.id),
  ],
);

export const taskMessages = sqliteTable(
  "task_messages",
  {
    id: text("id").primaryKey(),
    taskId: text("task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    /** Not a foreign key, like `file_nodes.created_by`: a deleted staff member's messages keep its id. */
    authorUserId: text("author_user_id"),
    content: text("content").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("task_messages_task_idx").on(t.taskId, t.createdAt, t.id)],
);

export const taskDeliverables = sqliteTable(
  "task_deliverables",
  {
    taskId: text("task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    fileNodeId: text("file_node_id")
      .notNull()
      .references(() => fileNodes.id, { onDelete: "cascade" }),
    /** Not a foreign key, like `file_nodes.created_by`: a link a deleted staff member added keeps its id. */
    addedBy: text("added_by"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.taskId, t.fileNodeId] }), index("task_deliverables_file_idx").on(t.fileNodeId)],
);

/** The labels of a task. */
export const taskLabels = sqliteTable(
  "task_labels",
  {
    taskId: text("task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    labelId: text("label_id")
      .notNull()
      .references(() => labels.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.taskId, t.labelId] }), index("task_labels_label_idx").on(t.labelId)],
);
