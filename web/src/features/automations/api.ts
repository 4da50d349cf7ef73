/** The automations feature's calls: a space's automations, creating and changing them, and their review. */
import type { Automation, AutomationBody, AutomationChanges } from "../../../../src/api-types";
import { api } from "../../lib/api";

const automationsPath = (base: string, spaceId: string) => `${base}/spaces/${spaceId}/automations`;
const automationPath = (base: string, spaceId: string, id: string) => `${automationsPath(base, spaceId)}/${id}`;

/** The space's automations, oldest first. */
export async function listAutomations(base: string, spaceId: string): Promise<Automation[]> {
  return (await api<{ automations: Automation[] }>("GET", automationsPath(base, spaceId))).automations;
}

/** Creates an automation. */
export async function createAutomation(base: string, spaceId: string, body: AutomationBody): Promise<Automation> {
  return (await api<{ automation: Automation }>("POST", automationsPath(base, spaceId), body)).automation;
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

/** Deletes an automation for good, with its stored OAuth token. */
export async function deleteAutomation(base: string, spaceId: string, id: string): Promise<void> {
  await api("DELETE", automationPath(base, spaceId, id));
}
