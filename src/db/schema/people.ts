import { foreignKey, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const organizations = sqliteTable("organizations", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  slug: text("slug").notNull().unique(),
  openSignupsEnabled: integer("open_signups_enabled", { mode: "boolean" }).notNull().default(false),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  /** Stored lower-cased; service-account users get a synthetic address that cannot log in. */
  email: text("email").notNull().unique(),
  displayName: text("display_name").notNull(),
  /** argon2id; null for service-account users, who never log in with a password. */
  passwordHash: text("password_hash"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

export const orgMembers = sqliteTable(
  "org_members",
  {
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    joinedAt: integer("joined_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.userId] }), index("org_members_user_idx").on(t.userId)],
);

export const roles = sqliteTable(
  "roles",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** `nameKey(name)`: role names are unique in an organization, ignoring case. */
    nameKey: text("name_key").notNull().default(""),
    /** `owner`, `member`, `viewer` or `ai_staff` for the four system roles; null for custom roles. */
    systemKey: text("system_key"),
    /** JSON array of permission names. */
    permissions: text("permissions").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("roles_org_key_uq").on(t.orgId, t.nameKey),
    uniqueIndex("roles_org_system_uq").on(t.orgId, t.systemKey),
  ],
);

export const memberRoles = sqliteTable(
  "member_roles",
  {
    orgId: text("org_id").notNull(),
    userId: text("user_id").notNull(),
    roleId: text("role_id")
      .notNull()
      .references(() => roles.id, { onDelete: "cascade" }),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.userId, t.roleId] }),
    foreignKey({ columns: [t.orgId, t.userId], foreignColumns: [orgMembers.orgId, orgMembers.userId] }).onDelete(
      "cascade",
    ),
    index("member_roles_role_idx").on(t.roleId),
  ],
);

export const invites = sqliteTable(
  "invites",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** Lower-cased; null when the invite is for anyone holding the link. */
    email: text("email"),
    tokenHash: text("token_hash").notNull().unique(),
    /** JSON array of role ids granted on acceptance. */
    roleIds: text("role_ids").notNull(),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    acceptedAt: integer("accepted_at"),
    acceptedBy: text("accepted_by").references(() => users.id, { onDelete: "set null" }),
  },
  (t) => [
    index("invites_org_idx").on(t.orgId, t.createdAt, t.id),
    index("invites_created_by_idx").on(t.createdBy),
    index("invites_accepted_by_idx").on(t.acceptedBy),
  ],
);

export const signupRequests = sqliteTable(
  "signup_requests",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** `pending`, `approved` or `denied`. */
    status: text("status").notNull(),
    createdAt: integer("created_at").notNull(),
    resolvedAt: integer("resolved_at"),
    resolvedBy: text("resolved_by").references(() => users.id, { onDelete: "set null" }),
  },
  (t) => [
    index("signup_requests_org_idx").on(t.orgId, t.createdAt, t.id),
    index("signup_requests_resolved_by_idx").on(t.resolvedBy),
    index("signup_requests_user_idx").on(t.userId, t.status),
  ],
);
