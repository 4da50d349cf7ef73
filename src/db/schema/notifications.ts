/** Web Push: the browsers a person asked to be notified in. */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations, users } from "./people";

/**
 * One browser's push subscription (its `PushSubscription`), for a person in an organization. The endpoint is
 * unique: a browser subscribed again (by another person signed in on it) moves to whoever subscribed last.
 */
export const pushSubscriptions = sqliteTable(
  "push_subscriptions",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The push service's URL for this browser: a capability, never returned or logged whole. */
    endpoint: text("endpoint").notNull().unique(),
    /** The browser's P-256 public key and auth secret (base64url), that payloads are encrypted to. */
    p256dh: text("p256dh").notNull(),
    auth: text("auth").notNull(),
    /** When the push service said the subscription ends (epoch ms); null: no end given. */
    expirationTime: integer("expiration_time"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("push_subscriptions_user_idx").on(t.userId, t.orgId)],
);
