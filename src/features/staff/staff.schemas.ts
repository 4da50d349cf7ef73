/** Request and response schemas of the service-account routes. */
import { z } from "zod";
import { nameIn, oneLine, repoUrlIn, timestampOut, uuidIn, uuidOut, visible } from "../../http/schemas";

const provider = z.enum(["modelrouter", "agent"]);
/** A model name or a git ref: sent to a provider and shown in messages, so one line, and not blank ("": the default). */
const optionalText = oneLine(visible(z.string().trim().max(500)));
/**
 * The organization's own instructions to a staff member, the first part of its system prompt: free text over
 * several lines, at most 8,000 characters (code points); `""` clears them.
 */
const instructions = z.string().max(8000);

export const serviceAccountOut = z
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
  })
  .meta({ id: "ServiceAccount" });
export type ServiceAccountOut = z.infer<typeof serviceAccountOut>;

export const createServiceAccountIn = z.object({
  name: nameIn(100),
  provider: provider.default("modelrouter"),
  modelrouter_model: optionalText.optional(),
  agent_default_repo_url: repoUrlIn(true).optional(),
  agent_default_ref: optionalText.optional(),
  instructions: instructions.optional(),
  role_ids: z.array(uuidIn).max(100).optional(),
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
