/** Request schemas of sign-in and sessions (all answer the login shape), and of a password change. */
import { z } from "zod";
import { newPasswordIn } from "../../http/schemas";

export const loginIn = z.object({ email: z.string().max(254), password: z.string().max(1024) });
export const refreshIn = z.object({ refresh_token: z.string().max(512) });
/** The caller's own password change: the current one, bounded like login's, and a new one by the usual rule. */
export const changePasswordIn = z.object({ current_password: z.string().max(1024), new_password: newPasswordIn });
