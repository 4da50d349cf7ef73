/** Route descriptions for the generated OpenAPI: a summary and the response schema per status. */
import type { z } from "zod";

/** Response schemas by status; null for a response without a body (204). */
export type Responses = Record<number, z.ZodType | null>;

/** The `detail` of a route: what it does and what it answers. */
export function doc(summary: string, responses: Responses) {
  // biome-ignore lint/suspicious/noExplicitAny: Elysia types `detail` as an OpenAPI operation; ours adds x- keys.
  return { summary, "x-responses": responses } as any;
}
