/** Push subscriptions: the browsers each person asked to be notified in. */
import { type Db, prepared } from "../../db/client";
import type { pushSubscriptions } from "../../db/schema";

export type PushSubscriptionRow = typeof pushSubscriptions.$inferSelect;

const SQL_UPSERT = `INSERT INTO push_subscriptions (id, org_id, user_id, endpoint, p256dh, auth, expiration_time, created_at, updated_at)
  VALUES ($id, $orgId, $userId, $endpoint, $p256dh, $auth, $expirationTime, $createdAt, $updatedAt)
  ON CONFLICT (endpoint) DO UPDATE SET org_id = excluded.org_id, user_id = excluded.user_id, p256dh = excluded.p256dh,
    auth = excluded.auth, expiration_time = excluded.expiration_time, updated_at = excluded.updated_at`;
const SQL_BY_ENDPOINT = `SELECT id, org_id AS orgId, user_id AS userId, endpoint, p256dh, auth, expiration_time AS expirationTime,
  created_at AS createdAt, updated_at AS updatedAt FROM push_subscriptions WHERE endpoint = $endpoint`;
const SQL_OF_PERSON = `SELECT id, org_id AS orgId, user_id AS userId, endpoint, p256dh, auth, expiration_time AS expirationTime,
  created_at AS createdAt, updated_at AS updatedAt FROM push_subscriptions WHERE org_id = $orgId AND user_id = $userId
  ORDER BY updated_at DESC, id`;
// Unsorted: pushing needs no order, and the sort (SQLite's sorter, set up for each call) made this lookup, run
// after every post that gives someone an inbox item, cost 15 µs instead of 5 when the person has no browser.
const SQL_PUSH_TARGETS = `SELECT id, org_id AS orgId, user_id AS userId, endpoint, p256dh, auth, expiration_time AS expirationTime,
  created_at AS createdAt, updated_at AS updatedAt FROM push_subscriptions WHERE user_id = $userId AND org_id = $orgId`;
const SQL_DELETE_OWN =
  "DELETE FROM push_subscriptions WHERE endpoint = $endpoint AND org_id = $orgId AND user_id = $userId";
const SQL_DELETE_ENDPOINT = "DELETE FROM push_subscriptions WHERE endpoint = $endpoint AND id = $id";
const SQL_DELETE_PERSON = "DELETE FROM push_subscriptions WHERE org_id = $orgId AND user_id = $userId";

/** Every statement, for the test of query plans. */
export const PUSH_SQL = [
  SQL_UPSERT,
  SQL_BY_ENDPOINT,
  SQL_OF_PERSON,
  SQL_PUSH_TARGETS,
  SQL_DELETE_OWN,
  SQL_DELETE_ENDPOINT,
  SQL_DELETE_PERSON,
];

type Params = Record<string, string | number | null>;

export class NotificationsStore {
  constructor(private readonly db: Db) {}

  private raw(sql: string) {
    return prepared(() => this.db.$client.prepare(sql));
  }

  private readonly upsertRow = this.raw(SQL_UPSERT);
  private readonly byEndpointRow = this.raw(SQL_BY_ENDPOINT);
  private readonly ofPersonRows = this.raw(SQL_OF_PERSON);
  private readonly pushTargetRows = this.raw(SQL_PUSH_TARGETS);
  private readonly deleteOwnRow = this.raw(SQL_DELETE_OWN);
  private readonly deleteEndpointRow = this.raw(SQL_DELETE_ENDPOINT);
  private readonly deletePersonRows = this.raw(SQL_DELETE_PERSON);

  /** Stores the subscription; one of the same endpoint (whoever's it was) is replaced, keeping its `created_at`. */
  upsert(row: PushSubscriptionRow): void {
    this.upsertRow().run({ ...row } as Params);
  }

  byEndpoint(endpoint: string): PushSubscriptionRow | undefined {
    return this.byEndpointRow().all({ endpoint })[0] as PushSubscriptionRow | undefined;
  }

  /** A person's subscriptions in an organization, the newest first. */
  ofPerson(orgId: string, userId: string): PushSubscriptionRow[] {
    return this.ofPersonRows().all({ orgId, userId }) as PushSubscriptionRow[];
  }

  /** A person's subscriptions in an organization, in no order: where a new item is pushed. */
  pushTargets(orgId: string, userId: string): PushSubscriptionRow[] {
    return this.pushTargetRows().all({ orgId, userId }) as PushSubscriptionRow[];
  }

  /** Removes the person's subscription of that endpoint; whether there was one. */
  deleteOwn(orgId: string, userId: string, endpoint: string): boolean {
    return this.deleteOwnRow().run({ orgId, userId, endpoint }).changes > 0;
  }

  /** Removes a subscription the push service said is gone, unless it was replaced meanwhile. */
  deleteGone(id: string, endpoint: string): void {
    this.deleteEndpointRow().run({ id, endpoint });
  }

  /** Every subscription of a person in an organization (they left it). */
  deletePerson(orgId: string, userId: string): void {
    this.deletePersonRows().run({ orgId, userId });
  }
}
