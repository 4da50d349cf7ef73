/** Request and response schemas of open signups and their approval. */
import { z } from "zod";
import { emailIn, lazy, nameIn, newPasswordIn, timestampOut, uuidOut } from "../../http/schemas";
import { roleIdsIn } from "../members/members.schemas";

export const signupRequestOut = lazy(() =>
  z
    .object({
      id: uuidOut,
      user_id: uuidOut,
      email: z.string(),
      display_name: z.string(),
      status: z.enum(["pending", "approved", "denied"]),
      created_at: timestampOut,
      resolved_at: timestampOut.nullable(),
    })
    .meta({ id: "SignupRequest" }),
);

export type SignupRequestOut = z.infer<ReturnType<typeof signupRequestOut>>;

export const registerIn = z.object({ email: emailIn, password: newPasswordIn, display_name: nameIn() });
/** Approve takes no body, `{}`, or `{role_ids}`. */
export const approveSignupIn = z.object({ role_ids: roleIdsIn.optional() }).nullish();
export type ApproveSignupIn = z.infer<typeof approveSignupIn>;
export const signupListQuery = z.object({
  status: z.enum(["pending", "approved", "denied"]).optional(),
});
