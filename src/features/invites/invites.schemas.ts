/** Request and response schemas of invites: making them, and accepting one. */
import { z } from "zod";
import { emailIn, lazy, nameIn, newPasswordIn, timestampOut, uuidOut } from "../../http/schemas";
import { roleIdsIn } from "../members/members.schemas";

export const inviteOut = lazy(() =>
  z
    .object({
      id: uuidOut,
      email: z.string().nullable(),
      role_ids: z.array(uuidOut),
      expires_at: timestampOut,
      created_at: timestampOut,
      created_by: uuidOut.nullable(),
      accepted_at: timestampOut.nullable(),
    })
    .meta({ id: "Invite" }),
);

export type InviteOut = z.infer<ReturnType<typeof inviteOut>>;

export const createInviteIn = z.object({
  email: emailIn.nullish(),
  role_ids: roleIdsIn.optional().meta({ description: "default: the Member role" }),
});

export const inviteInfoIn = z.object({ token: z.string().max(512) });

/** What the invite page shows before anyone signs in: whose invite it is. */
export const inviteInfoOut = lazy(() =>
  z.object({
    organization_name: z.string(),
    email: z.string().nullable(),
    expires_at: timestampOut,
  }),
);

export const acceptInviteIn = z.object({
  token: z.string().max(512),
  email: emailIn,
  password: newPasswordIn,
  display_name: nameIn(),
});
