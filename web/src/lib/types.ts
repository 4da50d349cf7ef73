/**
 * The board's two shapes under their former path, kept for test/web/board.test.ts only; the UI imports every
 * shape of the API from src/api-types itself.
 */
export type { Column, Task } from "../../../src/api-types";
