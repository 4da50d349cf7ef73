/** Request and response schemas of the organization. */
import { z } from "zod";
import { nameIn, timestampOut, uuidOut } from "../../http/schemas";

export const organizationOut = z
  .object({
    id: uuidOut,
    name: z.string(),
    slug: z.string(),
    open_signups_enabled: z.boolean(),
    created_at: timestampOut,
  })
  .meta({ id: "Organization" });

export type OrganizationOut = z.infer<typeof organizationOut>;

export const patchOrgIn = z.object({ name: nameIn(100).optional(), open_signups_enabled: z.boolean().optional() });
