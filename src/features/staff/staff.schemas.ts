/** Request and response schemas of the service-account routes. */
import { z } from "zod";
import {
  lazy,
  nameIn,
  oneLine,
  repoUrlIn,
  timestampIn,
  timestampOut,
  uuidIn,
  uuidOut,
  visible,
} from "../../http/schemas";

const provider = z.enum(["modelrouter", "agent"]);
/** A model name or a git ref: sent to a provider and shown in messages, so one line, and not blank ("": the default). */
const optionalText = oneLine(visible(z.string().trim().max(500)));
/**
 * The organization's own instructions to a staff member, the first part of its system prompt: free text over
 * several lines, at most 8,000 characters (code points); `""` clears them.
 */
const instructions = z.string().max(8000);

export const serviceAccountOut = lazy(() =>
  z
    .object({
      id: uuidOut,
      organization_id: uuidOut,
      user_id: uuidOut,
      name: z.string(),
      created_by: uuidOut.nullable(),
      created_at: timestampOut,
      provider,
      modelrouter_model: z.string(),
      agent_default_repo_url: z.string().nullable(),
      agent_default_ref: z.string().nullable(),
      instructions: z.string(),
      /** When its `sa_` token stops working; null: never (until rotated or the account is deleted). */
      token_expires_at: timestampOut.nullable(),
    })
    .meta({ id: "ServiceAccount" }),
);
export type ServiceAccountOut = z.infer<ReturnType<typeof serviceAccountOut>>;

export const createServiceAccountIn = z.object({
  name: nameIn(100),
  provider: provider.default("modelrouter"),
  modelrouter_model: optionalText.optional(),
  agent_default_repo_url: repoUrlIn(true).optional(),
  agent_default_ref: optionalText.optional(),
  instructions: instructions.optional(),
  role_ids: z.array(uuidIn).max(100).optional(),
  /** When the token stops working (in the future); omitted or null: never. */
  token_expires_at: timestampIn("token_expires_at: must be an RFC 3339 timestamp").nullable().optional(),
});
export type CreateServiceAccountIn = z.infer<typeof createServiceAccountIn>;

export const patchServiceAccountIn = z.object({
  name: nameIn(100).optional(),
  provider: provider.optional(),
  modelrouter_model: optionalText.optional(),
  agent_default_repo_url: repoUrlIn(true).optional(),
  agent_default_ref: optionalText.optional(),
  instructions: instructions.optional(),
});
export type PatchServiceAccountIn = z.infer<typeof patchServiceAccountIn>;

/** `POST .../service-accounts/{id}/token`: a new token, expiring when given (none: never). */
export const rotateTokenIn = z
  .object({
    token_expires_at: timestampIn("token_expires_at: must be an RFC 3339 timestamp").nullable().optional(),
  })
  .nullish();
export type RotateTokenIn = z.infer<typeof rotateTokenIn>;
