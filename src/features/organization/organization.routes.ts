/** The organizations of the caller, and the organization itself (contract §2). */
import { Elysia } from "elysia";
import { z } from "zod";
import type { AuthMacro } from "../../http/auth";
import { doc } from "../../http/docs";
import { presentOrganization } from "./organization.present";
import { organizationOut, patchOrgIn } from "./organization.schemas";
import type { OrganizationService } from "./organization.service";

export function organizationRoutes(auth: AuthMacro, organizations: OrganizationService) {
  return new Elysia({ prefix: "/api/v1" })
    .use(auth)
    .get(
      "/organizations",
      ({ principal }) => ({ organizations: organizations.organizationsOf(principal).map(presentOrganization) }),
      {
        signedIn: true,
        detail: doc("Organizations the caller is a member of", () => ({
          200: z.object({ organizations: z.array(organizationOut()) }),
        })),
      },
    )
    .group("/organizations/:orgId", (org) =>
      org
        .get("", ({ actor }) => ({ organization: presentOrganization(organizations.organization(actor)) }), {
          permission: "member",
          detail: doc("The organization", () => ({ 200: z.object({ organization: organizationOut() }) })),
        })
        .patch(
          "",
          ({ actor, body }) => ({ organization: presentOrganization(organizations.patchOrganization(actor, body)) }),
          {
            permission: "org.manage",
            body: patchOrgIn,
            detail: doc("Renames the organization or switches open signups", () => ({
              200: z.object({ organization: organizationOut() }),
            })),
          },
        ),
    );
}
