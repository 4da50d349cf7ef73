/** Service accounts (AI staff): each is backed by a user, and authenticates with an `sa_` token stored hashed. */
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { organizations, users } from "./people";

export const serviceAccounts = sqliteTable(
  "service_accounts",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .unique()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** `nameKey(name)`: staff names are unique in an organization, so a mention names one. */
    nameKey: text("name_key").notNull().default(""),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    /** `modelrouter` or `agent`. */
    provider: text("provider").notNull(),
    modelrouterModel: text("modelrouter_model").notNull(),
    agentDefaultRepoUrl: text("agent_default_repo_url"),
    agentDefaultRef: text("agent_default_ref"),
    /** The organization's own instructions to this staff member: the system prompt's first part. */
    instructions: text("instructions").notNull().default(""),
    tokenHash: text("token_hash").notNull().unique(),
    /** Null: the token never expires unless the account is deleted. */
    tokenExpiresAt: integer("token_expires_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("service_accounts_org_idx").on(t.orgId, t.createdAt, t.id),
    index("service_accounts_created_by_idx").on(t.createdBy),
    uniqueIndex("service_accounts_key_uq").on(t.orgId, t.nameKey),
  ],
);
