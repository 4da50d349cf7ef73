/** Provider keys of the organization (contract §6): any member sees whether one is set, owners set it. */
import { Elysia } from "elysia";
import { z } from "zod";
import type { AuthMacro } from "../../http/auth";
import { doc } from "../../http/docs";
import { noBodyIn } from "../../http/schemas";
import { presentIntegration } from "./integrations.present";
import { integrationOut, keyCheckOut, PROVIDERS, putIntegrationIn } from "./integrations.schemas";
import { type IntegrationsService, providerOf } from "./integrations.service";

const answer = z.object({ integration: integrationOut() });

/** `{provider}` is a name, not an id; another one answers 404 `page not found`. */
const PROVIDER = { params: { provider: { type: "string", enum: [...PROVIDERS] } } };

export function integrationsRoutes(auth: AuthMacro, integrations: IntegrationsService) {
  return new Elysia({ prefix: "/api/v1/organizations/:orgId/integrations" })
    .use(auth)
    .get(
      "/:provider",
      ({ actor, params }) => {
        const provider = providerOf(params.provider);
        const hint = actor.permissions.has("org.manage");
        return { integration: presentIntegration(provider, integrations.get(actor, provider), hint) };
      },
      {
        permission: "member",
        detail: doc(
          "Whether the provider's key (`modelrouter` or `agent`) is set, with its hint for `org.manage` (null to others)",
          () => ({ 200: answer }),
          PROVIDER,
        ),
      },
    )
    .put(
      "/:provider",
      ({ actor, params, body }) => {
        const provider = providerOf(params.provider);
        return { integration: presentIntegration(provider, integrations.put(actor, provider, body.api_key)) };
      },
      {
        permission: "org.manage",
        // An unknown provider is a route that does not exist, whatever the body holds.
        transform: ({ params }) => void providerOf(params.provider),
        body: putIntegrationIn,
        detail: doc(
          "Stores the provider's key, encrypted; only its hint is ever shown",
          () => ({ 200: answer }),
          PROVIDER,
        ),
      },
    )
    .post("/:provider/test", ({ actor, params }) => integrations.test(actor, providerOf(params.provider)), {
      permission: "org.manage",
      transform: ({ params }) => void providerOf(params.provider),
      body: noBodyIn,
      detail: doc(
        "Calls the provider once with the stored key: whether it accepts it, else what it answered (never the key)",
        () => ({
          200: keyCheckOut(),
          409: "`no key is set`; `the stored key cannot be read with this server's encryption key: store it again`",
        }),
        PROVIDER,
      ),
    })
    .delete(
      "/:provider",
      ({ actor, params, status }) => {
        integrations.delete(actor, providerOf(params.provider));
        return status(204);
      },
      { permission: "org.manage", detail: doc("Removes the provider's key", () => ({ 204: null }), PROVIDER) },
    );
}
