/** The events of automations, so open lists and approval inboxes follow without polling. */
import type { AutomationOut, RunOut } from "./automations.schemas";

declare module "../../core/events" {
  interface EventPayloads {
    "automation.updated": AutomationOut;
    "automation.deleted": { id: string };
    "automation.run.started": RunOut;
    "automation.run.finished": RunOut;
    /** Not sent (clients hear `automation.updated`): a person approved the automation, as it is now. */
    "automation.approved": AutomationOut;
    /** Not sent (clients hear `automation.updated`): a person rejected the automation, as it is now. */
    "automation.rejected": AutomationOut;
  }
}
