/** Service accounts (AI staff), api-spec §4. All need `org.members.manage`. */
import { Elysia } from "elysia";
import { z } from "zod";
import type { AuthMacro } from "../../http/auth";
import { doc } from "../../http/docs";
import { presentServiceAccount } from "./staff.present";
import { createServiceAccountIn, patchServiceAccountIn, rotateTokenIn, serviceAccountOut } from "./staff.schemas";
import type { StaffService } from "./staff.service";

export function staffRoutes(auth: AuthMacro, staff: StaffService) {
  return new Elysia({ prefix: "/api/v1/organizations/:orgId/service-accounts" })
    .use(auth)
    .get("", ({ actor }) => ({ service_accounts: staff.list(actor).map(presentServiceAccount) }), {
      permission: "org.members.manage",
      detail: doc("AI staff of the organization, oldest first", () => ({
        200: z.object({ service_accounts: z.array(serviceAccountOut()) }),
      })),
    })
    .post(
      "",
      ({ actor, body, status }) => {
        const { account, token } = staff.create(actor, body);
        return status(201, { service_account: presentServiceAccount(account), token });
      },
      {
        permission: "org.members.manage",
        body: createServiceAccountIn,
        detail: doc(
          "Creates a staff member; its `sa_` token is shown only here",
          () => ({
            201: z.object({ service_account: serviceAccountOut(), token: z.string() }),
            409: "`a staff member with that name already exists`",
          }),
          { access: "A holder of `org.members.manage`, granting only roles whose permissions it holds itself" },
        ),
      },
    )
    .patch(
      "/:serviceAccountId",
      ({ actor, params, body }) => ({
        service_account: presentServiceAccount(staff.patch(actor, params.serviceAccountId, body)),
      }),
      {
        permission: "org.members.manage",
        body: patchServiceAccountIn,
        detail: doc("Changes a staff member's name, provider, defaults or instructions", () => ({
          200: z.object({ service_account: serviceAccountOut() }),
          404: "`service account not found`",
          409: "`a staff member with that name already exists`",
        })),
      },
    )
    .post(
      "/:serviceAccountId/token",
      ({ actor, params, body }) => {
        const { account, token } = staff.rotateToken(actor, params.serviceAccountId, body ?? {});
        return { service_account: presentServiceAccount(account), token };
      },
      {
        permission: "org.members.manage",
        body: rotateTokenIn,
        detail: doc(
          "A new `sa_` token for the staff member, shown only here; the old one stops working at once",
          () => ({
            200: z.object({ service_account: serviceAccountOut(), token: z.string() }),
            400: "`token_expires_at: must be in the future`",
            403: "A caller without every permission of the staff member's roles: `missing permission: <permission>`",
            404: "`service account not found`",
          }),
        ),
      },
    )
    .delete(
      "/:serviceAccountId",
      ({ actor, params, status }) => {
        staff.delete(actor, params.serviceAccountId);
        return status(204);
      },
      {
        permission: "org.members.manage",
        detail: doc(
          "Deletes the staff member, its user, roles and membership; its token stops working at once",
          () => ({
            204: null,
            404: "`service account not found`",
          }),
        ),
      },
    );
}
