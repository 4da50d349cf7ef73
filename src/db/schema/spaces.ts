/** Spaces, their members, and each space's board with its columns. */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations, users } from "./people";

export const spaces = sqliteTable(
  "spaces",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    /** Private spaces are visible to their members and to `org.manage` holders only. */
    isPrivate: integer("is_private", { mode: "boolean" }).notNull().default(false),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("spaces_org_idx").on(t.orgId, t.createdAt, t.id), index("spaces_created_by_idx").on(t.createdBy)],
);

export const spaceMembers = sqliteTable(
  "space_members",
  {
    spaceId: text("space_id")
      .notNull()
      .references(() => spaces.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** `owner` (the creator) or `member`. */
    role: text("role").notNull(),
    addedAt: integer("added_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.spaceId, t.userId] }), index("space_members_user_idx").on(t.userId)],
);

export const boards = sqliteTable(
  "boards",
  {
    id: text("id").primaryKey(),
    spaceId: text("space_id")
      .notNull()
      .references(() => spaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("boards_space_idx").on(t.spaceId, t.createdAt)],
);

export const boardColumns = sqliteTable(
  "board_columns",
  {
    id: text("id").primaryKey(),
    boardId: text("board_id")
      .notNull()
      .references(() => boards.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    position: integer("position").notNull(),
    /** At most this many tasks (staff may not go over it; people are warned); null: no limit. */
    wipLimit: integer("wip_limit"),
  },
  (t) => [index("board_columns_board_idx").on(t.boardId, t.position)],
);

/** A space's task labels. */
export const labels = sqliteTable(
  "labels",
  {
    id: text("id").primaryKey(),
    spaceId: text("space_id")
      .notNull()
      .references(() => spaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** `#rrggbb`. */
    color: text("color").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("labels_space_idx").on(t.spaceId, t.createdAt, t.id)],
);

/** A space's git repository: where `agent` staff launch their runs when their account names none. */
export const spaceGitLinks = sqliteTable(
  "space_git_links",
  {
    spaceId: text("space_id")
      .primaryKey()
      .references(() => spaces.id, { onDelete: "cascade" }),
    repoUrl: text("repo_url").notNull(),
    ref: text("ref").notNull(),
    updatedBy: text("updated_by").references(() => users.id, { onDelete: "set null" }),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("space_git_links_updated_by_idx").on(t.updatedBy)],
);
