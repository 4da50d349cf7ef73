/** The organization's provider keys: encrypted (AES-256-GCM under APP_SSH_ENCRYPTION_KEY), never returned. */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations, users } from "./people";

export const integrations = sqliteTable(
  "integrations",
  {
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** `modelrouter` or `agent`. */
    provider: text("provider").notNull(),
    /** `v1:` ciphertext of the key. */
    keyCiphertext: text("key_ciphertext").notNull(),
    /** `****` and the key's last four characters: all that is ever shown. */
    keyHint: text("key_hint").notNull(),
    updatedBy: text("updated_by").references(() => users.id, { onDelete: "set null" }),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.provider] }), index("integrations_updated_by_idx").on(t.updatedBy)],
);
