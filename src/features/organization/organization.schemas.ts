/** Request and response schemas of the organization. */
import { z } from "zod";
import { lazy, nameIn, timestampOut, uuidOut } from "../../http/schemas";

export const organizationOut = lazy(() =>
  z
    .object({
      id: uuidOut,
      name: z.string(),
      slug: z.string(),
      open_signups_enabled: z.boolean(),
      created_at: timestampOut,
    })
    .meta({ id: "Organization" }),
);

export type OrganizationOut = z.infer<ReturnType<typeof organizationOut>>;

export const patchOrgIn = z.object({ name: nameIn(100).optional(), open_signups_enabled: z.boolean().optional() });
