/** Request and response schemas of accounts, members and roles. */
import { z } from "zod";
import { PERMISSIONS } from "../../core/permissions";
import { lazy, nameIn, timestampOut, uuidIn, uuidOut } from "../../http/schemas";

/** A permission's name; the catalogue is checked by the service, with its own message for an unknown one. */
export const permissionName = z.string().meta({ enum: [...PERMISSIONS] });

export const userOut = lazy(() =>
  z
    .object({
      id: uuidOut,
      email: z.string(),
      display_name: z.string(),
      created_at: timestampOut,
      service_account_id: uuidOut.nullable(),
    })
    .meta({ id: "User" }),
);

export const memberOut = lazy(() =>
  z
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
    .meta({ id: "Member" }),
);

export const roleOut = lazy(() =>
  z
    .object({
      id: uuidOut,
      organization_id: uuidOut,
      name: z.string(),
      is_system: z.boolean(),
      permissions: z.array(permissionName),
      created_at: timestampOut,
      updated_at: timestampOut,
    })
    .meta({ id: "Role" }),
);

export type UserOut = z.infer<ReturnType<typeof userOut>>;
export type MemberOut = z.infer<ReturnType<typeof memberOut>>;
export type RoleOut = z.infer<ReturnType<typeof roleOut>>;

/** Role ids given in a body (an invite's, a member's, a signup's approval). */
export const roleIdsIn = z.array(uuidIn).max(100);

export const patchMeIn = z.object({ display_name: nameIn() });
export const createRoleIn = z.object({ name: nameIn(64), permissions: z.array(permissionName).max(100).default([]) });
export const patchRoleIn = z.object({
  name: nameIn(64).optional(),
  permissions: z.array(permissionName).max(100).optional(),
});
export const putMemberRolesIn = z.object({ role_ids: roleIdsIn });
