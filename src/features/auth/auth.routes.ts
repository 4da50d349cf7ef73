/** Login, refresh, logout, register and accept-invite (api-spec §4, contract §2). No bearer token needed. */
import { Elysia } from "elysia";
import type { AuthMacro } from "../../http/auth";
import { clientAddress } from "../../http/base";
import { doc } from "../../http/docs";
import { tokenPairOut } from "../../http/schemas";
import { iso } from "../../lib/ids";
import { acceptInviteIn, inviteInfoIn, inviteInfoOut, loginIn, refreshIn, registerIn } from "./auth.schemas";
import type { AuthService } from "./auth.service";

export function authRoutes(auth: AuthMacro, sessions: AuthService) {
  return new Elysia({ prefix: "/api/v1/auth" })
    .use(auth)
    .post("/login", (context) => sessions.login(context.body.email, context.body.password, clientAddress(context)), {
      public: true,
      body: loginIn,
      detail: doc("Exchanges email and password for a token pair", {
        200: tokenPairOut,
        401: "Wrong email or password, or a denied signup: `invalid credentials`",
      }),
    })
    .post("/refresh", ({ body }) => sessions.refresh(body.refresh_token), {
      public: true,
      body: refreshIn,
      detail: doc("Rotates a refresh token; a reused one revokes its whole session", {
        200: tokenPairOut,
        401: "Unknown, used, expired or revoked: `invalid refresh token`",
      }),
    })
    .post(
      "/logout",
      ({ body, status }) => {
        sessions.logout(body.refresh_token);
        return status(204);
      },
      {
        public: true,
        body: refreshIn,
        detail: doc("Revokes the session of a refresh token", { 204: null }),
      },
    )
    .post(
      "/register",
      async (context) => context.status(201, await sessions.register(context.body, clientAddress(context))),
      {
        public: true,
        // Before the body is validated: with signups off, no field of it matters.
        transform: () => sessions.assertSignupsOpen(),
        body: registerIn,
        detail: doc("Open signup: creates an account that waits for approval", {
          201: tokenPairOut,
          403: "Open signups are off: `signups_disabled`",
          409: "`email already registered`",
        }),
      },
    )
    .post(
      "/invite-info",
      ({ body }) => {
        const info = sessions.inviteInfo(body.token);
        return { organization_name: info.organizationName, email: info.email, expires_at: iso(info.expiresAt) };
      },
      {
        public: true,
        body: inviteInfoIn,
        detail: doc("Whose invite a token is, before accepting it (an extension)", {
          200: inviteInfoOut,
          400: "Unknown, used or expired: `invalid or expired invite`",
        }),
      },
    )
    .post(
      "/accept-invite",
      async (context) => context.status(201, await sessions.acceptInvite(context.body, clientAddress(context))),
      {
        public: true,
        body: acceptInviteIn,
        detail: doc("Accepts an invite: creates (or joins) the account as a member", {
          201: tokenPairOut,
          400: "`invalid or expired invite`; `email does not match invite`",
          409: "`email already registered` (wrong password of an existing account), `already a member of the organization`",
        }),
      },
    );
}
