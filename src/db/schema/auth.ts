/** Refresh tokens: opaque, stored hashed, rotated on use, revoked by family on reuse. */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./people";

export const refreshTokens = sqliteTable(
  "refresh_tokens",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** Every token rotated from one login shares the family of that login. */
    familyId: text("family_id").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
    revokedAt: integer("revoked_at"),
  },
  (t) => [index("refresh_tokens_family_idx").on(t.familyId), index("refresh_tokens_user_idx").on(t.userId)],
);
