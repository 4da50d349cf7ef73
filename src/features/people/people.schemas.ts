/** Request and response schemas of the people routes. */
import { z } from "zod";
import { PERMISSIONS } from "../../core/permissions";
import { emailIn, nameIn, timestampOut, uuidIn, uuidOut } from "../../http/schemas";

/** A permission's name; the catalogue is checked by the service, with its own message for an unknown one. */
export const permissionName = z.string().meta({ enum: [...PERMISSIONS] });

export const organizationOut = z
  .object({
    id: uuidOut,
    name: z.string(),
    slug: z.string(),
    open_signups_enabled: z.boolean(),
    created_at: timestampOut,
  })
  .meta({ id: "Organization" });

export const userOut = z
  .object({
    id: uuidOut,
    email: z.string(),
    display_name: z.string(),
    created_at: timestampOut,
    service_account_id: uuidOut.nullable(),
  })
  .meta({ id: "User" });

export const memberOut = z
  .object({
    user_id: uuidOut,
    email: z.string(),
    display_name: z.string(),
    is_service_account: z.boolean(),
    /** (extension) The staff member's service account id; null for a person. */
    service_account_id: uuidOut.nullable(),
    role_ids: z.array(uuidOut),
    joined_at: timestampOut,
  })
  .meta({ id: "Member" });

export const roleOut = z
  .object({
    id: uuidOut,
    organization_id: uuidOut,
    name: z.string(),
    is_system: z.boolean(),
    permissions: z.array(permissionName),
    created_at: timestampOut,
    updated_at: timestampOut,
  })
  .meta({ id: "Role" });

export const inviteOut = z
  .object({
    id: uuidOut,
    email: z.string().nullable(),
    role_ids: z.array(uuidOut),
    expires_at: timestampOut,
    created_at: timestampOut,
    created_by: uuidOut.nullable(),
    accepted_at: timestampOut.nullable(),
  })
  .meta({ id: "Invite" });

export const signupRequestOut = z
  .object({
    id: uuidOut,
    user_id: uuidOut,
    email: z.string(),
    display_name: z.string(),
    status: z.enum(["pending", "approved", "denied"]),
    created_at: timestampOut,
    resolved_at: timestampOut.nullable(),
  })
  .meta({ id: "SignupRequest" });

export type OrganizationOut = z.infer<typeof organizationOut>;
export type UserOut = z.infer<typeof userOut>;
export type MemberOut = z.infer<typeof memberOut>;
export type RoleOut = z.infer<typeof roleOut>;
export type InviteOut = z.infer<typeof inviteOut>;
export type SignupRequestOut = z.infer<typeof signupRequestOut>;

const roleIdsIn = z.array(uuidIn).max(100);

export const patchMeIn = z.object({ display_name: nameIn() });
export const patchOrgIn = z.object({ name: nameIn(100).optional(), open_signups_enabled: z.boolean().optional() });
export const createRoleIn = z.object({ name: nameIn(64), permissions: z.array(permissionName).max(100).default([]) });
export const patchRoleIn = z.object({
  name: nameIn(64).optional(),
  permissions: z.array(permissionName).max(100).optional(),
});
export const putMemberRolesIn = z.object({ role_ids: roleIdsIn });
export const createInviteIn = z.object({
  email: emailIn.nullish(),
  role_ids: roleIdsIn.optional().meta({ description: "default: the Member role" }),
});
/** Approve takes no body, `{}`, or `{role_ids}`. */
export const approveSignupIn = z.object({ role_ids: roleIdsIn.optional() }).nullish();
export type ApproveSignupIn = z.infer<typeof approveSignupIn>;
export const signupListQuery = z.object({
  status: z.enum(["pending", "approved", "denied"]).optional(),
});
