/**
 * The automations feature's calls: a space's automations, creating and changing them, their review, their runs
 * (the history, run now) and what each kind needs besides (a webhook's secret, a tunnel's sign-in link).
 */
import type {
  Automation,
  AutomationBody,
  AutomationChanges,
  AutomationRun,
  CreatedAutomation,
} from "../../../../src/api-types";
import { api } from "../../lib/api";

const automationsPath = (base: string, spaceId: string) => `${base}/spaces/${spaceId}/automations`;
const automationPath = (base: string, spaceId: string, id: string) => `${automationsPath(base, spaceId)}/${id}`;

/** The space's automations, oldest first. */
export async function listAutomations(base: string, spaceId: string): Promise<Automation[]> {
  return (await api<{ automations: Automation[] }>("GET", automationsPath(base, spaceId))).automations;
}

/** One automation. */
export async function getAutomation(base: string, spaceId: string, id: string): Promise<Automation> {
  return (await api<{ automation: Automation }>("GET", automationPath(base, spaceId, id))).automation;
}

/** Creates an automation; a webhook's answer carries its secret, shown this once. */
export function createAutomation(base: string, spaceId: string, body: AutomationBody): Promise<CreatedAutomation> {
  return api<CreatedAutomation>("POST", automationsPath(base, spaceId), body);
}

/** Changes an automation: its name, configuration, status (pause, resume, submit) or OAuth token. */
export async function patchAutomation(
  base: string,
  spaceId: string,
  id: string,
  changes: AutomationChanges,
): Promise<Automation> {
  return (await api<{ automation: Automation }>("PATCH", automationPath(base, spaceId, id), changes)).automation;
}

/** A person approves an automation waiting for approval: it becomes Active. */
export async function approveAutomation(base: string, spaceId: string, id: string): Promise<Automation> {
  return (await api<{ automation: Automation }>("POST", `${automationPath(base, spaceId, id)}/approve`)).automation;
}

/** A person rejects an automation waiting for approval, with an optional reason. */
export async function rejectAutomation(base: string, spaceId: string, id: string, reason: string): Promise<void> {
  await api("POST", `${automationPath(base, spaceId, id)}/reject`, reason ? { reason } : {});
}

/** Deletes an automation for good, with its stored OAuth token and webhook secret. */
export async function deleteAutomation(base: string, spaceId: string, id: string): Promise<void> {
  await api("DELETE", automationPath(base, spaceId, id));
}

/** A page of an automation's runs, newest first; `before` (a `created_at`) pages back. */
export async function listRuns(
  base: string,
  spaceId: string,
  id: string,
  page: { limit?: number; before?: string } = {},
): Promise<AutomationRun[]> {
  const query = new URLSearchParams();
  if (page.limit) query.set("limit", String(page.limit));
  if (page.before) query.set("before", page.before);
  const suffix = query.size > 0 ? `?${query}` : "";
  return (await api<{ runs: AutomationRun[] }>("GET", `${automationPath(base, spaceId, id)}/runs${suffix}`)).runs;
}

/** Runs an active automation now (a person only); a social post may be given the text to post. */
export async function runNow(base: string, spaceId: string, id: string, text?: string): Promise<AutomationRun> {
  const body = text === undefined ? {} : { text };
  return (await api<{ run: AutomationRun }>("POST", `${automationPath(base, spaceId, id)}/run`, body)).run;
}

/** Makes a webhook a new secret, shown this once; the old one stops working. */
export async function newWebhookSecret(base: string, spaceId: string, id: string): Promise<string> {
  return (await api<{ webhook_secret: string }>("POST", `${automationPath(base, spaceId, id)}/webhook-secret`))
    .webhook_secret;
}

/** A one-time link (valid 5 minutes) that opens a reverse tunnel in the browser, signed in. */
export async function tunnelLink(base: string, spaceId: string, id: string): Promise<string> {
  return (await api<{ url: string }>("POST", `${automationPath(base, spaceId, id)}/tunnel-link`)).url;
}
