/** `/health`, `/api/v1/public/instance` and the first-run setup endpoint. */
import { Elysia } from "elysia";
import { z } from "zod";
import type { AuthMacro } from "../../http/auth";
import { doc } from "../../http/docs";
import { emailIn, nameIn, newPasswordIn, tokenPairOut, uuidOut } from "../../http/schemas";
import type { InstanceService } from "./instance.service";

const healthOut = z.object({ status: z.string(), version: z.string(), git_sha: z.string() });
const instanceOut = z.object({
  provisioning_enabled: z.boolean(),
  provisioning_base_domain: z.string(),
  needs_setup: z.boolean(),
});
const setupIn = z.object({
  token: z.string().max(512),
  org_name: nameIn(100),
  admin_email: emailIn,
  admin_password: newPasswordIn,
  admin_name: nameIn().optional(),
});
const setupOut = tokenPairOut.extend({ organization_id: uuidOut, user_id: uuidOut });

export function instanceRoutes(auth: AuthMacro, instance: InstanceService) {
  return new Elysia()
    .use(auth)
    .get("/health", () => instance.health(), {
      public: true,
      detail: doc("Liveness and the build's version", { 200: healthOut }),
    })
    .get("/api/v1/public/instance", () => instance.publicInstance(), {
      public: true,
      detail: doc("What an unauthenticated client may know of this install", { 200: instanceOut }),
    })
    .post(
      "/api/v1/public/setup",
      async ({ body, status }) => {
        const { org, user, session } = await instance.setupFromWeb(body.token, {
          orgName: body.org_name,
          adminEmail: body.admin_email,
          adminPassword: body.admin_password,
          adminName: body.admin_name,
        });
        return status(201, { organization_id: org.id, user_id: user.id, ...session });
      },
      {
        public: true,
        body: setupIn,
        detail: doc("First-run setup with the token of the logged setup URL: creates the organization and its owner", {
          201: setupOut,
        }),
      },
    );
}
