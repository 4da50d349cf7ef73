/** Request schemas of the auth routes (all but the invite preview answer the login shape), and of a password change. */
import { z } from "zod";
import { emailIn, nameIn, newPasswordIn, timestampOut } from "../../http/schemas";

export const loginIn = z.object({ email: z.string().max(254), password: z.string().max(1024) });
export const refreshIn = z.object({ refresh_token: z.string().max(512) });
export const registerIn = z.object({ email: emailIn, password: newPasswordIn, display_name: nameIn() });
export const inviteInfoIn = z.object({ token: z.string().max(512) });
/** The caller's own password change: the current one, bounded like login's, and a new one by the usual rule. */
export const changePasswordIn = z.object({ current_password: z.string().max(1024), new_password: newPasswordIn });

/** What the invite page shows before anyone signs in: whose invite it is. */
export const inviteInfoOut = z.object({
  organization_name: z.string(),
  email: z.string().nullable(),
  expires_at: timestampOut,
});

export const acceptInviteIn = z.object({
  token: z.string().max(512),
  email: emailIn,
  password: newPasswordIn,
  display_name: nameIn(),
});
