/** The staff feature's calls: AI staff members (service accounts), what they did, and the providers' keys. */
import type {
  ActivityEntry,
  CreatedServiceAccount,
  Integration,
  KeyCheck,
  Provider,
  ServiceAccount,
  ServiceAccountBody,
  ServiceAccountChanges,
} from "../../../../src/api-types";
import { api } from "../../lib/api";

/** The organization's staff members, as accounts (for those who manage them). */
export async function listServiceAccounts(base: string): Promise<ServiceAccount[]> {
  return (await api<{ service_accounts: ServiceAccount[] }>("GET", `${base}/service-accounts`)).service_accounts;
}

/** Creates a staff member; its token is in the answer, and only there. */
export function createServiceAccount(base: string, body: ServiceAccountBody): Promise<CreatedServiceAccount> {
  return api<CreatedServiceAccount>("POST", `${base}/service-accounts`, body);
}

/** Changes a staff member's settings. */
export async function patchServiceAccount(
  base: string,
  id: string,
  changes: ServiceAccountChanges,
): Promise<ServiceAccount> {
  return (await api<{ service_account: ServiceAccount }>("PATCH", `${base}/service-accounts/${id}`, changes))
    .service_account;
}

/** Deletes a staff member: it leaves the organization and its token stops working. */
export async function deleteServiceAccount(base: string, id: string): Promise<void> {
  await api("DELETE", `${base}/service-accounts/${id}`);
}

/** What staff did (one staff member's, with `staff_user_id`), newest first, `limit` entries before `before`. */
export async function listActivity(
  base: string,
  page: { limit: number; staff_user_id?: string | null; before?: string },
): Promise<ActivityEntry[]> {
  let query = `limit=${page.limit}`;
  if (page.staff_user_id) query += `&staff_user_id=${page.staff_user_id}`;
  if (page.before) query += `&before=${encodeURIComponent(page.before)}`;
  return (await api<{ activity: ActivityEntry[] }>("GET", `${base}/staff-activity?${query}`)).activity;
}

/** Whether the organization has a key for `provider`, and its hint. */
export async function getIntegration(base: string, provider: Provider): Promise<Integration> {
  return (await api<{ integration: Integration }>("GET", `${base}/integrations/${provider}`)).integration;
}

/** Stores the organization's key for `provider` (encrypted; only its hint is shown again). */
export async function putIntegration(base: string, provider: Provider, key: string): Promise<Integration> {
  return (await api<{ integration: Integration }>("PUT", `${base}/integrations/${provider}`, { api_key: key }))
    .integration;
}

/** Removes the organization's key for `provider`. */
export async function deleteIntegration(base: string, provider: Provider): Promise<void> {
  await api("DELETE", `${base}/integrations/${provider}`);
}

/** Calls the provider once with the organization's stored key: whether it accepts it, else what it answered. */
export function testIntegration(base: string, provider: Provider): Promise<KeyCheck> {
  return api<KeyCheck>("POST", `${base}/integrations/${provider}/test`);
}
