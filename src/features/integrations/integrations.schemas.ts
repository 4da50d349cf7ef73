/** Request and response schemas of provider keys (contract §6). */
import { z } from "zod";
import { lazy, timestampOut } from "../../http/schemas";

/** The providers a key can be stored for. */
export const PROVIDERS = ["modelrouter", "agent"] as const;
export type Provider = (typeof PROVIDERS)[number];

/**
 * A key goes into an `Authorization` header: a line break, a space or a character outside printable ASCII
 * would fail every call later; it is refused now.
 */
export const putIntegrationIn = z.object({
  api_key: z
    .string()
    .trim()
    .min(1)
    .max(4096)
    .refine((key) => key === "" || /^[\x21-\x7e]+$/.test(key), {
      params: { message: "must be printable ASCII without spaces" },
    }),
});

export const integrationOut = lazy(() =>
  z
    .object({
      provider: z.enum(PROVIDERS),
      configured: z.boolean(),
      key_hint: z.string().nullable(),
      updated_at: timestampOut.nullable(),
    })
    .meta({ id: "Integration" }),
);
export type IntegrationOut = z.infer<ReturnType<typeof integrationOut>>;

/** What a key check found: the provider accepted the key, or what it answered instead. */
export const keyCheckOut = lazy(() =>
  z
    .union([z.object({ ok: z.literal(true) }), z.object({ ok: z.literal(false), error: z.string() })])
    .meta({ id: "KeyCheck" }),
);
export type KeyCheckOut = z.infer<ReturnType<typeof keyCheckOut>>;
