/** The events of spaces: a new space is named at once to those who can see it (contract §10). */
import type { SpaceOut } from "./spaces.schemas";

declare module "../../core/events" {
  interface EventPayloads {
    /** A space was created: to every member for a public one, to its members for a private one. */
    "space.created": SpaceOut;
  }
}
