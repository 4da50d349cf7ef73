/** The events of the file tree: each carries the node as the REST routes answer it. */
import type { NodeOut } from "./files.schemas";

declare module "../../core/events" {
  interface EventPayloads {
    "file.created": NodeOut;
    "file.updated": NodeOut;
    "file.deleted": NodeOut;
  }
}
