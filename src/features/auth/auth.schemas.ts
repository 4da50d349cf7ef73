/** Request schemas of the auth routes; they all answer the login shape. */
import { z } from "zod";
import { emailIn, nameIn, newPasswordIn } from "../../http/schemas";

export const loginIn = z.object({ email: z.string().max(254), password: z.string().max(1024) });
export const refreshIn = z.object({ refresh_token: z.string().max(512) });
export const registerIn = z.object({ email: emailIn, password: newPasswordIn, display_name: nameIn() });
export const acceptInviteIn = z.object({
  token: z.string().max(512),
  email: emailIn,
  password: newPasswordIn,
  display_name: nameIn(),
});
