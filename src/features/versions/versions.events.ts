/** The event of a kept version: its payload is the version as the list answers it. */
import type { VersionOut } from "./versions.schemas";

declare module "../../core/events" {
  interface EventPayloads {
    "file.version.created": VersionOut;
  }
}
