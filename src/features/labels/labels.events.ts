/** The events of labels: the live ones carry what the REST route answers. */
import type { LabelOut } from "./labels.schemas";

declare module "../../core/events" {
  interface EventPayloads {
    "label.created": LabelOut;
    "label.updated": LabelOut;
    /** Emitted before the label's row goes: its tasks' handler still reads which tasks carry it. */
    "label.deleted": { id: string };
  }
}
