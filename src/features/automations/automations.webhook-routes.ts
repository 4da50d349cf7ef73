/** The inbound URL of webhook automations (contract §8): no token, the request is signed with the webhook's secret. */
import { Elysia } from "elysia";
import { z } from "zod";
import type { AuthMacro } from "../../http/auth";
import { readCapped } from "../../http/body";
import { doc } from "../../http/docs";
import {
  MAX_DELIVERY_BYTES,
  MAX_QUEUED_RUNS,
  QUEUE_FULL_RETRY_AFTER_S,
  type WebhookDeliveries,
} from "./automations.webhook-deliveries";
import { deliveryHeaders } from "./automations.webhook-signatures";

/** The request headers a delivery is signed and named with, for the OpenAPI document. */
const SIGNATURE_HEADERS = {
  "webhook-id": "Standard Webhooks: the delivery's id (the same id within 24 hours runs nothing again)",
  "webhook-timestamp": "Standard Webhooks: Unix seconds, within 5 minutes of the server's clock",
  "webhook-signature":
    "Standard Webhooks: `v1,<base64 HMAC-SHA256 of {id}.{timestamp}.{body}>` keyed with the bytes of the secret's base64 after `whsec_`; several space-separated allowed",
  "X-Hub-Signature-256": "GitHub: `sha256=<hex HMAC-SHA256 of the body>` keyed with the whole secret string",
  "X-GitHub-Delivery": "GitHub: the delivery's id (the same id within 24 hours runs nothing again)",
  "X-GitHub-Event": "GitHub: the event, which the default message names",
};

export function webhookRoutes(auth: AuthMacro, deliveries: WebhookDeliveries) {
  return new Elysia({ prefix: "/api/v1/hooks" }).use(auth).post(
    "/:automationId",
    async ({ params, request, status }) => {
      const read = () => readCapped(request, MAX_DELIVERY_BYTES);
      const runId = await deliveries.deliver(params.automationId, deliveryHeaders(request.headers), read);
      return status(202, { run_id: runId });
    },
    {
      public: true,
      detail: doc(
        "A signed delivery to a webhook automation (Standard Webhooks or GitHub): queues a run of it",
        () => ({
          202: z.object({ run_id: z.string() }),
          400: "`invalid json` (the body is JSON, a form whose `payload` field is JSON, or empty); `delivery id: must be at most 255 characters`",
          401: "`invalid signature` (missing, malformed or wrong, or signed with a replaced secret); `timestamp outside tolerance`",
          404: "also for an id that is not a webhook automation's",
          409: "`automation is not active`; the automation's `config_problem`",
          413: "A body over 1 MiB: `request body too large`",
          429: `\`too many runs waiting: at most ${MAX_QUEUED_RUNS} queued per automation; try again later\`, with \`Retry-After: ${QUEUE_FULL_RETRY_AFTER_S}\``,
        }),
        {
          body: {
            "application/json": { type: "object" },
            "application/x-www-form-urlencoded": { type: "object", properties: { payload: { type: "string" } } },
          },
          headers: SIGNATURE_HEADERS,
          access: "Public: no token; the request is signed with the webhook's secret",
        },
      ),
    },
  );
}
