/** Open signups: asking for an account, and the requests `org.members.manage` approves or denies (contract §2). */
import { Elysia } from "elysia";
import { z } from "zod";
import type { AuthMacro } from "../../http/auth";
import { clientAddress } from "../../http/base";
import { doc } from "../../http/docs";
import { noBodyIn, tokenPairOut } from "../../http/schemas";
import { presentSignupRequest } from "./signups.present";
import {
  type ApproveSignupIn,
  approveSignupIn,
  registerIn,
  signupListQuery,
  signupRequestOut,
} from "./signups.schemas";
import type { SignupsService } from "./signups.service";

export function signupsRoutes(auth: AuthMacro, signups: SignupsService) {
  return new Elysia({ prefix: "/api/v1" })
    .use(auth)
    .post(
      "/auth/register",
      async (context) => context.status(201, await signups.signUp(context.body, clientAddress(context))),
      {
        public: true,
        // Before the body is validated: with signups off, no field of it matters.
        transform: () => signups.assertOpen(),
        body: registerIn,
        detail: doc("Open signup: creates an account that waits for approval", () => ({
          201: tokenPairOut(),
          403: "Open signups are off: `signups_disabled`",
          409: "`email already registered`",
          429: "`too many attempts`, with `Retry-After` in seconds: the sign-in limits (docs/api.md)",
        })),
      },
    )
    .group("/organizations/:orgId", (org) =>
      org
        .get(
          "/signup-requests",
          ({ actor, query }) => ({
            signup_requests: signups.list(actor, query.status).map(presentSignupRequest),
          }),
          {
            permission: "org.members.manage",
            query: signupListQuery,
            detail: doc("Signup requests, newest first; `?status=` filters", () => ({
              200: z.object({ signup_requests: z.array(signupRequestOut()) }),
            })),
          },
        )
        .post(
          "/signup-requests/:requestId/approve",
          ({ actor, params, body, status }) => {
            signups.approve(actor, params.requestId, (body as ApproveSignupIn)?.role_ids);
            return status(204);
          },
          {
            permission: "org.members.manage",
            body: approveSignupIn,
            detail: doc(
              "Approves a pending signup; the account joins with `role_ids` (default Member)",
              () => ({
                204: null,
                404: "`signup request not found`",
                409: "`signup request is not pending`",
              }),
              { access: "A holder of `org.members.manage`, granting only roles whose permissions it holds itself" },
            ),
          },
        )
        .post(
          "/signup-requests/:requestId/deny",
          ({ actor, params, status }) => {
            signups.deny(actor, params.requestId);
            return status(204);
          },
          {
            permission: "org.members.manage",
            body: noBodyIn,
            detail: doc("Denies a pending signup; the account can no longer log in", () => ({
              204: null,
              404: "`signup request not found`",
              409: "`signup request is not pending`",
            })),
          },
        ),
    );
}
