/** Push subscriptions to JSON, field by field: never their keys. */
import { iso, isoOrNull } from "../../lib/ids";
import type { PushSubscriptionOut } from "./notifications.schemas";
import type { PushSubscriptionRow } from "./notifications.store";

export function presentSubscription(row: PushSubscriptionRow): PushSubscriptionOut {
  return {
    endpoint: row.endpoint,
    expiration_time: isoOrNull(row.expirationTime),
    created_at: iso(row.createdAt),
  };
}
