/** The caller, the organization, its members, roles, invites and signup requests (contract §2). */
import { Elysia } from "elysia";
import { z } from "zod";
import type { AuthMacro } from "../../http/auth";
import { clientAddress } from "../../http/base";
import { doc } from "../../http/docs";
import { noBodyIn, uuidOut } from "../../http/schemas";
import { changePasswordIn } from "../auth/auth.schemas";
import { assertHasPassword, assertMayRenameSelf } from "./people.policy";
import {
  presentInvite,
  presentMember,
  presentOrganization,
  presentRole,
  presentSignupRequest,
  presentUser,
} from "./people.present";
import type { ApproveSignupIn } from "./people.schemas";
import {
  approveSignupIn,
  createInviteIn,
  createRoleIn,
  inviteOut,
  memberOut,
  organizationOut,
  patchMeIn,
  patchOrgIn,
  patchRoleIn,
  permissionName,
  putMemberRolesIn,
  roleOut,
  signupListQuery,
  signupRequestOut,
  userOut,
} from "./people.schemas";
import type { PeopleService } from "./people.service";

export function peopleRoutes(auth: AuthMacro, people: PeopleService) {
  const me = (row: ReturnType<PeopleService["me"]>) => ({ user: presentUser(row.user, row.serviceAccountId) });
  return new Elysia({ prefix: "/api/v1" })
    .use(auth)
    .get("/me", ({ principal }) => me(people.me(principal)), {
      signedIn: true,
      detail: doc("The caller's account", { 200: z.object({ user: userOut }) }),
    })
    .patch("/me", ({ principal, body }) => me(people.patchMe(principal, body.display_name)), {
      signedIn: true,
      check: assertMayRenameSelf,
      body: patchMeIn,
      detail: doc(
        "Changes the caller's display name",
        {
          200: z.object({ user: userOut }),
          403: "A service account: `service accounts are renamed with PATCH /service-accounts/{id}`",
        },
        { access: "A person (not a service account)" },
      ),
    })
    .post(
      "/me/password",
      async (context) => {
        const { principal, body } = context;
        await people.changePassword(principal, body.current_password, body.new_password, clientAddress(context));
        return context.status(204);
      },
      {
        signedIn: true,
        check: assertHasPassword,
        body: changePasswordIn,
        detail: doc(
          "Changes the caller's password; their other sessions end (an extension)",
          {
            204: null,
            400: "`current password is incorrect`",
            403: "A service account: `service accounts have no password`",
          },
          { access: "A person (not a service account)" },
        ),
      },
    )
    .get(
      "/organizations",
      ({ principal }) => ({ organizations: people.organizationsOf(principal).map(presentOrganization) }),
      {
        signedIn: true,
        detail: doc("Organizations the caller is a member of", {
          200: z.object({ organizations: z.array(organizationOut) }),
        }),
      },
    )
    .group("/organizations/:orgId", (org) =>
      org
        .get("", ({ actor }) => ({ organization: presentOrganization(people.organization(actor)) }), {
          permission: "member",
          detail: doc("The organization", { 200: z.object({ organization: organizationOut }) }),
        })
        .patch(
          "",
          ({ actor, body }) => ({ organization: presentOrganization(people.patchOrganization(actor, body)) }),
          {
            permission: "org.manage",
            body: patchOrgIn,
            detail: doc("Renames the organization or switches open signups", {
              200: z.object({ organization: organizationOut }),
            }),
          },
        )
        .get("/me/permissions", ({ actor }) => ({ permissions: [...actor.permissions].sort() }), {
          permission: "member",
          detail: doc("The caller's permissions here", { 200: z.object({ permissions: z.array(permissionName) }) }),
        })
        .get("/members", ({ actor }) => ({ members: people.members(actor).map(presentMember) }), {
          permission: "member",
          detail: doc("Members, oldest first", { 200: z.object({ members: z.array(memberOut) }) }),
        })
        .delete(
          "/members/:userId",
          ({ actor, params, status }) => {
            people.removeMember(actor, params.userId);
            return status(204);
          },
          {
            permission: "org.members.manage",
            detail: doc(
              "Removes a member (not yourself, not the last owner)",
              {
                204: null,
                400: "`cannot remove yourself`; `service accounts are removed with DELETE /service-accounts/{id}`",
                404: "`member not found`",
                409: "`cannot remove the last owner`",
              },
              {
                access:
                  "A holder of `org.members.manage`, granting or taking away only roles whose permissions it holds itself",
              },
            ),
          },
        )
        .put(
          "/members/:userId/roles",
          ({ actor, params, body }) => ({ role_ids: people.putMemberRoles(actor, params.userId, body.role_ids) }),
          {
            permission: "org.members.manage",
            body: putMemberRolesIn,
            detail: doc(
              "Replaces a member's roles",
              {
                200: z.object({ role_ids: z.array(uuidOut) }),
                404: "`member not found`",
                409: "`cannot remove the last owner`",
              },
              {
                access:
                  "A holder of `org.members.manage`, granting or taking away only roles whose permissions it holds itself",
              },
            ),
          },
        )
        .get("/roles", ({ actor }) => ({ roles: people.roles(actor).map(presentRole) }), {
          permission: "org.members.manage",
          detail: doc("Roles: the four system roles first, then custom roles by creation", {
            200: z.object({ roles: z.array(roleOut) }),
          }),
        })
        .post(
          "/roles",
          ({ actor, body, status }) => status(201, { role: presentRole(people.createRole(actor, body)) }),
          {
            permission: "org.members.manage",
            body: createRoleIn,
            detail: doc(
              "Creates a custom role",
              {
                201: z.object({ role: roleOut }),
                409: "`role name already exists`",
              },
              { access: "A holder of `org.members.manage`, giving a role only permissions it holds itself" },
            ),
          },
        )
        .patch(
          "/roles/:roleId",
          ({ actor, params, body }) => ({ role: presentRole(people.patchRole(actor, params.roleId, body)) }),
          {
            permission: "org.members.manage",
            body: patchRoleIn,
            detail: doc(
              "Renames a custom role or changes its permissions",
              {
                200: z.object({ role: roleOut }),
                400: "`system roles cannot be renamed`; `the Owner role always has every permission`",
                404: "`role not found`",
                409: "`role name already exists`",
              },
              { access: "A holder of `org.members.manage` who holds every permission the role has and is given" },
            ),
          },
        )
        .delete(
          "/roles/:roleId",
          ({ actor, params, status }) => {
            people.deleteRole(actor, params.roleId);
            return status(204);
          },
          {
            permission: "org.members.manage",
            detail: doc(
              "Deletes a custom role",
              {
                204: null,
                400: "`system roles cannot be deleted`",
                404: "`role not found`",
              },
              { access: "A holder of `org.members.manage` who holds every permission of the role" },
            ),
          },
        )
        .get("/invites", ({ actor }) => ({ invites: people.invites(actor).map(presentInvite) }), {
          permission: "org.members.manage",
          detail: doc("Invites, newest first", { 200: z.object({ invites: z.array(inviteOut) }) }),
        })
        .post(
          "/invites",
          ({ actor, body, status }) => {
            const { invite, token } = people.createInvite(actor, body);
            return status(201, { invite: presentInvite(invite), token });
          },
          {
            permission: "org.members.manage",
            body: createInviteIn,
            detail: doc(
              "Creates an invite valid 7 days; the token is shown only here",
              {
                201: z.object({ invite: inviteOut, token: z.string() }),
                409: "`already a member of the organization`",
              },
              {
                access: "A holder of `org.members.manage`, inviting only into roles whose permissions it holds itself",
              },
            ),
          },
        )
        .delete(
          "/invites/:inviteId",
          ({ actor, params, status }) => {
            people.deleteInvite(actor, params.inviteId);
            return status(204);
          },
          {
            permission: "org.members.manage",
            detail: doc("Revokes an invite", { 204: null, 404: "`invite not found`" }),
          },
        )
        .get(
          "/signup-requests",
          ({ actor, query }) => ({
            signup_requests: people.signupRequests(actor, query.status).map(presentSignupRequest),
          }),
          {
            permission: "org.members.manage",
            query: signupListQuery,
            detail: doc("Signup requests, newest first; `?status=` filters", {
              200: z.object({ signup_requests: z.array(signupRequestOut) }),
            }),
          },
        )
        .post(
          "/signup-requests/:requestId/approve",
          ({ actor, params, body, status }) => {
            people.approveSignup(actor, params.requestId, (body as ApproveSignupIn)?.role_ids);
            return status(204);
          },
          {
            permission: "org.members.manage",
            body: approveSignupIn,
            detail: doc(
              "Approves a pending signup; the account joins with `role_ids` (default Member)",
              {
                204: null,
                404: "`signup request not found`",
                409: "`signup request is not pending`",
              },
              { access: "A holder of `org.members.manage`, granting only roles whose permissions it holds itself" },
            ),
          },
        )
        .post(
          "/signup-requests/:requestId/deny",
          ({ actor, params, status }) => {
            people.denySignup(actor, params.requestId);
            return status(204);
          },
          {
            permission: "org.members.manage",
            body: noBodyIn,
            detail: doc("Denies a pending signup; the account can no longer log in", {
              204: null,
              404: "`signup request not found`",
              409: "`signup request is not pending`",
            }),
          },
        ),
    );
}
