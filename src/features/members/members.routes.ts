/** The caller's account, the organization's members and their roles (contract §2). */
import { Elysia } from "elysia";
import { z } from "zod";
import type { AuthMacro } from "../../http/auth";
import { doc } from "../../http/docs";
import { uuidOut } from "../../http/schemas";
import { assertMayRenameSelf } from "./members.policy";
import { presentMember, presentRole, presentUser } from "./members.present";
import {
  createRoleIn,
  memberOut,
  patchMeIn,
  patchRoleIn,
  permissionName,
  putMemberRolesIn,
  roleOut,
  userOut,
} from "./members.schemas";
import type { Me, MembersService } from "./members.service";

export function membersRoutes(auth: AuthMacro, members: MembersService) {
  const me = (row: Me) => ({ user: presentUser(row.user, row.serviceAccountId) });
  return new Elysia({ prefix: "/api/v1" })
    .use(auth)
    .get("/me", ({ principal }) => me(members.me(principal)), {
      signedIn: true,
      detail: doc("The caller's account", () => ({ 200: z.object({ user: userOut() }) })),
    })
    .patch("/me", ({ principal, body }) => me(members.patchMe(principal, body.display_name)), {
      signedIn: true,
      check: assertMayRenameSelf,
      body: patchMeIn,
      detail: doc(
        "Changes the caller's display name",
        () => ({
          200: z.object({ user: userOut() }),
          403: "A service account: `service accounts are renamed with PATCH /service-accounts/{id}`",
        }),
        { access: "A person (not a service account)" },
      ),
    })
    .group("/organizations/:orgId", (org) =>
      org
        .get("/me/permissions", ({ actor }) => ({ permissions: [...actor.permissions].sort() }), {
          permission: "member",
          detail: doc("The caller's permissions here", () => ({
            200: z.object({ permissions: z.array(permissionName) }),
          })),
        })
        .get("/members", ({ actor }) => ({ members: members.members(actor).map(presentMember) }), {
          permission: "member",
          detail: doc("Members, oldest first", () => ({ 200: z.object({ members: z.array(memberOut()) }) })),
        })
        .delete(
          "/members/:userId",
          ({ actor, params, status }) => {
            members.removeMember(actor, params.userId);
            return status(204);
          },
          {
            permission: "org.members.manage",
            detail: doc(
              "Removes a member (not yourself, not the last owner)",
              () => ({
                204: null,
                400: "`cannot remove yourself`; `service accounts are removed with DELETE /service-accounts/{id}`",
                404: "`member not found`",
                409: "`cannot remove the last owner`",
              }),
              {
                access:
                  "A holder of `org.members.manage`, granting or taking away only roles whose permissions it holds itself",
              },
            ),
          },
        )
        .put(
          "/members/:userId/roles",
          ({ actor, params, body }) => ({ role_ids: members.putMemberRoles(actor, params.userId, body.role_ids) }),
          {
            permission: "org.members.manage",
            body: putMemberRolesIn,
            detail: doc(
              "Replaces a member's roles",
              () => ({
                200: z.object({ role_ids: z.array(uuidOut) }),
                404: "`member not found`",
                409: "`cannot remove the last owner`",
              }),
              {
                access:
                  "A holder of `org.members.manage`, granting or taking away only roles whose permissions it holds itself",
              },
            ),
          },
        )
        .get("/roles", ({ actor }) => ({ roles: members.roles(actor).map(presentRole) }), {
          permission: "org.members.manage",
          detail: doc("Roles: the four system roles first, then custom roles by creation", () => ({
            200: z.object({ roles: z.array(roleOut()) }),
          })),
        })
        .post(
          "/roles",
          ({ actor, body, status }) => status(201, { role: presentRole(members.createRole(actor, body)) }),
          {
            permission: "org.members.manage",
            body: createRoleIn,
            detail: doc(
              "Creates a custom role",
              () => ({
                201: z.object({ role: roleOut() }),
                409: "`role name already exists`",
              }),
              { access: "A holder of `org.members.manage`, giving a role only permissions it holds itself" },
            ),
          },
        )
        .patch(
          "/roles/:roleId",
          ({ actor, params, body }) => ({ role: presentRole(members.patchRole(actor, params.roleId, body)) }),
          {
            permission: "org.members.manage",
            body: patchRoleIn,
            detail: doc(
              "Renames a custom role or changes its permissions",
              () => ({
                200: z.object({ role: roleOut() }),
                400: "`system roles cannot be renamed`; `the Owner role always has every permission`",
                404: "`role not found`",
                409: "`role name already exists`",
              }),
              { access: "A holder of `org.members.manage` who holds every permission the role has and is given" },
            ),
          },
        )
        .delete(
          "/roles/:roleId",
          ({ actor, params, status }) => {
            members.deleteRole(actor, params.roleId);
            return status(204);
          },
          {
            permission: "org.members.manage",
            detail: doc(
              "Deletes a custom role",
              () => ({
                204: null,
                400: "`system roles cannot be deleted`",
                404: "`role not found`",
              }),
              { access: "A holder of `org.members.manage` who holds every permission of the role" },
            ),
          },
        ),
    );
}
