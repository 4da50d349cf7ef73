/** The events of automations, so open lists and approval inboxes follow without polling. */
import type { AutomationOut, RunOut } from "./automations.schemas";

declare module "../../core/events" {
  interface EventPayloads {
    "automation.updated": AutomationOut;
    "automation.deleted": { id: string };
    "automation.run.started": RunOut;
    "automation.run.finished": RunOut;
  }
}
