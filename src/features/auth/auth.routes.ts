/** Signing in and out, refreshing a session (api-spec §4), and changing one's password (contract §2). */
import { Elysia } from "elysia";
import type { AuthMacro } from "../../http/auth";
import { clientAddress } from "../../http/base";
import { doc } from "../../http/docs";
import { tokenPairOut } from "../../http/schemas";
import { assertHasPassword } from "./auth.policy";
import { changePasswordIn, loginIn, refreshIn } from "./auth.schemas";
import type { AuthService } from "./auth.service";

export function authRoutes(auth: AuthMacro, sessions: AuthService) {
  return new Elysia({ prefix: "/api/v1" })
    .use(auth)
    .post(
      "/auth/login",
      (context) => sessions.login(context.body.email, context.body.password, clientAddress(context)),
      {
        public: true,
        body: loginIn,
        detail: doc("Exchanges email and password for a token pair", () => ({
          200: tokenPairOut(),
          401: "Wrong email or password, or a denied signup: `invalid credentials`",
          429: "`too many attempts`, with `Retry-After` in seconds: the sign-in limits (docs/api.md)",
        })),
      },
    )
    .post("/auth/refresh", ({ body }) => sessions.refresh(body.refresh_token), {
      public: true,
      body: refreshIn,
      detail: doc("Rotates a refresh token; a reused one revokes its whole session", () => ({
        200: tokenPairOut(),
        401: "Unknown, used, expired or revoked: `invalid refresh token`",
      })),
    })
    .post(
      "/auth/logout",
      ({ body, status }) => {
        sessions.logout(body.refresh_token);
        return status(204);
      },
      {
        public: true,
        body: refreshIn,
        detail: doc("Revokes the session of a refresh token", () => ({ 204: null })),
      },
    )
    .post(
      "/me/password",
      async (context) => {
        const { principal, body } = context;
        await sessions.changePassword(principal, body.current_password, body.new_password, clientAddress(context));
        return context.status(204);
      },
      {
        signedIn: true,
        check: assertHasPassword,
        body: changePasswordIn,
        detail: doc(
          "Changes the caller's password; their other sessions end (an extension)",
          () => ({
            204: null,
            400: "`current password is incorrect`",
            403: "A service account: `service accounts have no password`",
            429: "`too many attempts`, with `Retry-After` in seconds: the sign-in limits (docs/api.md)",
          }),
          { access: "A person (not a service account)" },
        ),
      },
    );
}
