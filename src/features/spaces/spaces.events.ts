/** The events of spaces and their boards: a new space is named at once to those who can see it (contract §10). */
import type { ColumnOut, SpaceOut } from "./spaces.schemas";

declare module "../../core/events" {
  interface EventPayloads {
    /** A space was created: to every member for a public one, to its members for a private one. */
    "space.created": SpaceOut;
    /** A column added to the space's board; the columns from its position on moved one place on. */
    "board.column.created": ColumnOut;
    /** A column renamed, moved (the columns between closed up) or given a WIP limit. */
    "board.column.updated": ColumnOut;
    /** An empty column deleted; the columns after it moved one place back. */
    "board.column.deleted": { id: string };
  }
}
