/** Invites: made and revoked by `org.members.manage`, looked up and accepted with their token (contract §2). */
import { Elysia } from "elysia";
import { z } from "zod";
import type { AuthMacro } from "../../http/auth";
import { clientAddress } from "../../http/base";
import { doc } from "../../http/docs";
import { tokenPairOut } from "../../http/schemas";
import { iso } from "../../lib/ids";
import { presentInvite } from "./invites.present";
import { acceptInviteIn, createInviteIn, inviteInfoIn, inviteInfoOut, inviteOut } from "./invites.schemas";
import type { InvitesService } from "./invites.service";

export function invitesRoutes(auth: AuthMacro, invites: InvitesService) {
  return new Elysia({ prefix: "/api/v1" })
    .use(auth)
    .post(
      "/auth/invite-info",
      ({ body }) => {
        const info = invites.info(body.token);
        return { organization_name: info.organizationName, email: info.email, expires_at: iso(info.expiresAt) };
      },
      {
        public: true,
        body: inviteInfoIn,
        detail: doc("Whose invite a token is, before accepting it (an extension)", () => ({
          200: inviteInfoOut(),
          400: "Unknown, used or expired: `invalid or expired invite`",
        })),
      },
    )
    .post(
      "/auth/accept-invite",
      async (context) => context.status(201, await invites.accept(context.body, clientAddress(context))),
      {
        public: true,
        body: acceptInviteIn,
        detail: doc("Accepts an invite: creates (or joins) the account as a member", () => ({
          201: tokenPairOut(),
          400: "`invalid or expired invite`; `email does not match invite`",
          409: "`email already registered` (wrong password of an existing account), `already a member of the organization`",
          429: "`too many attempts`, with `Retry-After` in seconds: the sign-in limits (docs/api.md)",
        })),
      },
    )
    .group("/organizations/:orgId", (org) =>
      org
        .get("/invites", ({ actor }) => ({ invites: invites.list(actor).map(presentInvite) }), {
          permission: "org.members.manage",
          detail: doc("Invites, newest first", () => ({ 200: z.object({ invites: z.array(inviteOut()) }) })),
        })
        .post(
          "/invites",
          ({ actor, body, status }) => {
            const { invite, token, emailed } = invites.create(actor, body);
            return status(201, { invite: presentInvite(invite), token, emailed });
          },
          {
            permission: "org.members.manage",
            body: createInviteIn,
            detail: doc(
              "Creates an invite valid 7 days; the token is shown only here. `emailed`: the invite names an address and SMTP is set up, so its link is being emailed there",
              () => ({
                201: z.object({ invite: inviteOut(), token: z.string(), emailed: z.boolean() }),
                409: "`already a member of the organization`",
              }),
              {
                access: "A holder of `org.members.manage`, inviting only into roles whose permissions it holds itself",
              },
            ),
          },
        )
        .delete(
          "/invites/:inviteId",
          ({ actor, params, status }) => {
            invites.delete(actor, params.inviteId);
            return status(204);
          },
          {
            permission: "org.members.manage",
            detail: doc("Revokes an invite", () => ({ 204: null, 404: "`invite not found`" })),
          },
        ),
    );
}
