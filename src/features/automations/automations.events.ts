/** The events of automations, so open lists and approval inboxes follow without polling. */
import type { AutomationOut } from "./automations.schemas";

declare module "../../core/events" {
  interface EventPayloads {
    "automation.updated": AutomationOut;
    "automation.deleted": { id: string };
  }
}
