/** Zod building blocks shared by every feature's schemas. */
import { z } from "zod";
import { lowerUuid } from "../lib/ids";
import { lazy } from "../lib/lazy";
import { MIN_PASSWORD_LENGTH } from "../lib/password";
import { hasControl, isInvisible } from "../lib/text";

/**
 * Response schemas are `lazy`: built the first time they are asked for. Answers are not validated against their
 * schemas: they serve the OpenAPI document and the UI's types, so a server that is never asked for its document
 * never builds them (about 1 MiB of objects it would keep for good).
 */
export { lazy } from "../lib/lazy";

/** A UUID in a response (documented, not re-validated). */
export const uuidOut = z.string().meta({ format: "uuid" });

/** A timestamp in a response: `2026-11-21T09:30:00.123Z`. */
export const timestampOut = z.string().meta({ format: "date-time" });

/** A UUID in a request body, in lower case as stored. */
export const uuidIn = z.uuid().overwrite((id) => id.toLowerCase());

/** The body of a POST that takes none (approve, deny, accept, reject): absent or `{}` (contract §7). */
export const noBodyIn = z.object({}).nullish();

/** An id that the service looks up itself (an unknown one is its own 404), brought to lower case when a UUID. */
export const idIn = z.string().max(64).overwrite(lowerUuid);

/**
 * A page size in a query string: decimal digits, at least 1. Any larger number, however many digits, stands
 * for the route's maximum (clamped where the page is read); anything else is `invalid limit`.
 */
export const limitIn = z
  .string({ error: "invalid limit" })
  .regex(/^[0-9]+$/, { error: "invalid limit" })
  .meta({ type: "integer", minimum: 1, default: 50, description: "at most 200: a larger number means 200" })
  .transform(Number)
  .refine((n) => n >= 1, { error: "invalid limit" });

/**
 * An RFC 3339 timestamp in a request, with `error` as its message. RFC 3339 lets `T` and `Z` be written in
 * lower case; they are read as upper case, which is the form every parser here expects.
 */
export const timestampIn = (error: string) =>
  z
    .preprocess(
      (value) => (typeof value === "string" ? value.toUpperCase() : value),
      // Its instant must fall in years 0000-9999 once in UTC, where it is stored and answered
      // (`9999-12-31T23:30:00-01:00` would come back as `+010000-01-01T00:30:00.000Z`).
      z.iso.datetime({ offset: true, error }).refine(inFourDigitYears, { error }),
    )
    .meta({ type: "string", format: "date-time" });

function inFourDigitYears(value: string): boolean {
  const year = new Date(Date.parse(value)).getUTCFullYear();
  return year >= 0 && year <= 9999;
}

/**
 * A repository URL as the agent service takes it: http(s), or an scp-like `git@host:path`. With `orEmpty`,
 * `""` passes too (it clears the field).
 */
export const repoUrlIn = (orEmpty = false) =>
  z
    .string()
    .trim()
    .min(orEmpty ? 0 : 1)
    .max(2048)
    .refine((v) => (orEmpty && v === "") || /^https?:\/\/[^\s]+$/i.test(v) || /^[\w.-]+@[\w.-]+:[^\s]+$/.test(v), {
      params: { message: "must be an http(s) or git@ repository URL" },
    });

/** An email address, trimmed and lower-cased. */
export const emailIn = z.string().trim().toLowerCase().max(254).email();

/** A new password: at least 8 characters everywhere one is set. */
export const newPasswordIn = z.string().min(MIN_PASSWORD_LENGTH).max(1024);

/** Refuses a text that would show as nothing (only invisible characters); an empty one is left to `.min(1)`. */
export const visible = (text: z.ZodString) =>
  text.refine((s) => s === "" || !isInvisible(s), { params: { message: "must contain a visible character" } });

/** Refuses a text with a control character (a newline, a tab, an escape): names and types are one line. */
export const oneLine = <T extends z.ZodType<string>>(text: T) =>
  text.refine((s) => !hasControl(s), { params: { message: "must not contain control characters" } });

/** A human-readable name: trimmed, 1 to `max` characters, one line (no control characters), not blank. */
export const nameIn = (max = 100) => oneLine(visible(z.string().trim().min(1).max(max)));

/** The login shape: login, refresh, register and accept-invite all answer it. */
export const tokenPairOut = lazy(() =>
  z.object({
    access_token: z.string(),
    refresh_token: z.string(),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int(),
    signup_pending: z.boolean().optional(),
  }),
);
export type TokenPair = z.infer<ReturnType<typeof tokenPairOut>>;

/** `limit` (default 50, above 200 means 200) and `before` of a timeline's page (`core/paging.ts`). */
export const pageQuery = z.object({
  limit: limitIn.optional(),
  before: timestampIn("invalid before").optional(),
});
