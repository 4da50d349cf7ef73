/** Schemas of the service and discovery routes. */
import { z } from "zod";
import { emailIn, lazy, nameIn, newPasswordIn, tokenPairOut, uuidOut } from "../../http/schemas";

export const healthOut = lazy(() => z.object({ status: z.string(), version: z.string(), git_sha: z.string() }));

export const instanceOut = lazy(() =>
  z.object({
    provisioning_enabled: z.boolean(),
    provisioning_base_domain: z.string(),
    needs_setup: z.boolean(),
    /** (extension) Whether the organization takes sign-up requests, so a sign-in page offers them only then. */
    open_signups_enabled: z.boolean(),
    /** (extension) Whether SMTP is set up: without it nothing is emailed, and the UI says so. */
    email_enabled: z.boolean(),
  }),
);

export const setupIn = z.object({
  token: z.string().max(512),
  org_name: nameIn(100),
  admin_email: emailIn,
  admin_password: newPasswordIn,
  admin_name: nameIn().optional(),
});
export type SetupIn = z.infer<typeof setupIn>;

export const setupOut = lazy(() => tokenPairOut().extend({ organization_id: uuidOut, user_id: uuidOut }));
export type SetupOut = z.infer<ReturnType<typeof setupOut>>;
