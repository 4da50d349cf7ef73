/** Route descriptions for the generated OpenAPI: a summary, the response schema per status, and what else. */
import type { z } from "zod";

/**
 * Response schemas by status: a JSON schema, null for a response without a body (204), or a description for
 * an answer that is not JSON (file bytes) or an error the route can give (`{"error"}` with that message).
 */
export type Responses = Record<number, z.ZodType | string | null>;

/** What the route schemas cannot say: a body that is not JSON, query parameters read by hand. */
export interface DocExtra {
  /** The request body by content type, as OpenAPI schemas. */
  body?: Record<string, Record<string, unknown>>;
  /** Query parameters the handler reads itself. */
  query?: { name: string; description: string; required?: boolean }[];
  /** Who may call it, where the declared permission is not the whole rule (an author, a space owner, a person). */
  access?: string;
  /** Request headers the handler reads itself (a webhook delivery's signature), with what each carries. */
  headers?: Record<string, string>;
  /** Path parameters that are not ids, as OpenAPI schemas (`provider`: one of two names). */
  params?: Record<string, Record<string, unknown>>;
  /** An answer of bytes rather than JSON: its statuses, the headers it sends and the request headers it reads. */
  bytes?: {
    statuses: number[];
    headers: Record<string, string>;
    requestHeaders: Record<string, string>;
  };
}

/**
 * The `detail` of a route: what it does and what it answers. The answers are a function: their schemas are built
 * only when the OpenAPI document is (`lazy`, http/schemas.ts).
 */
export function doc(summary: string, responses: () => Responses, extra: DocExtra = {}) {
  return {
    summary,
    "x-responses": responses,
    "x-body": extra.body,
    "x-query": extra.query,
    "x-access": extra.access,
    "x-headers": extra.headers,
    "x-params": extra.params,
    "x-bytes": extra.bytes,
    // biome-ignore lint/suspicious/noExplicitAny: Elysia types `detail` as an OpenAPI operation; ours adds x- keys.
  } as any;
}
