/** `/health`, `/api/v1/public/instance` and the first-run setup endpoint. */
import { Elysia } from "elysia";
import type { AuthMacro } from "../../http/auth";
import { doc } from "../../http/docs";
import { healthOut, instanceOut, setupIn, setupOut } from "./instance.schemas";
import type { InstanceService } from "./instance.service";

export function instanceRoutes(auth: AuthMacro, instance: InstanceService) {
  return new Elysia()
    .use(auth)
    .get("/health", () => instance.health(), {
      public: true,
      detail: doc("Whether the server can keep what it is given, and the build's version", () => ({
        200: healthOut(),
        503: "The database or the data dir failed, named in the message: `the database file is gone from the data directory`, `the data directory's disk is full`…",
      })),
    })
    .get("/api/v1/public/instance", () => instance.publicInstance(), {
      public: true,
      detail: doc("What an unauthenticated client may know of this install", () => ({ 200: instanceOut() })),
    })
    .post("/api/v1/public/setup", async ({ body, status }) => status(201, await instance.setupFromWeb(body)), {
      public: true,
      body: setupIn,
      detail: doc(
        "First-run setup with the token of the logged setup URL: creates the organization and its owner",
        () => ({
          201: setupOut(),
          403: "`invalid setup token`",
          409: "`organization already exists`",
        }),
      ),
    });
}
