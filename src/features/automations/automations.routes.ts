/** Automations of a space (api-spec §4; approve and reject: contract §4). */
import { Elysia } from "elysia";
import { z } from "zod";
import type { AuthMacro } from "../../http/auth";
import { doc } from "../../http/docs";
import { noBodyIn, pageQuery } from "../../http/schemas";
import { assertMayReview, assertPerson } from "./automations.policy";
import { presentAutomation, presentRun } from "./automations.present";
import {
  automationOut,
  createAutomationIn,
  patchAutomationIn,
  type RejectAutomationIn,
  type RunNowIn,
  rejectAutomationIn,
  runNowIn,
  runOut,
} from "./automations.schemas";
import type { AutomationsService } from "./automations.service";

const one = z.object({ automation: automationOut() });

export function automationsRoutes(auth: AuthMacro, automations: AutomationsService) {
  return new Elysia({ prefix: "/api/v1/organizations/:orgId/spaces/:spaceId/automations" })
    .use(auth)
    .get("", ({ actor }) => ({ automations: automations.list(actor).map(presentAutomation) }), {
      space: "files.read",
      detail: doc("Automations of the space, oldest first", () => ({
        200: z.object({ automations: z.array(automationOut()) }),
      })),
    })
    .get(
      "/:automationId",
      ({ actor, params }) => ({ automation: presentAutomation(automations.get(actor, params.automationId)) }),
      { space: "files.read", detail: doc("One automation, as the list shows it (an extension)", () => ({ 200: one })) },
    )
    .post(
      "",
      ({ actor, body, status }) => {
        const { row, webhookSecret } = automations.create(actor, body);
        const automation = presentAutomation(row);
        return status(201, webhookSecret === null ? { automation } : { automation, webhook_secret: webhookSecret });
      },
      {
        space: "files.write",
        body: createAutomationIn,
        detail: doc(
          "Creates an automation: `draft` unless `status` says otherwise; a service account's is always `pending_approval`, its `description` kept as `config.proposal_note`. A webhook's secret (`whsec_…`) is answered here once, as `webhook_secret`. The config is checked: a key of a wrong type or value is 400 naming it; a missing one is the automation's `config_problem`",
          () => ({
            201: one.extend({ webhook_secret: z.string().optional() }),
            400: "`config.cron: invalid cron expression`, `config.channel: no such chat room`, …",
            403: "`service accounts cannot set oauth_token`",
          }),
        ),
      },
    )
    .patch(
      "/:automationId",
      ({ actor, params, body }) => ({
        automation: presentAutomation(automations.patch(actor, params.automationId, body)),
      }),
      {
        space: "files.write",
        body: patchAutomationIn,
        detail: doc(
          "Changes the fields given (`config` replaces); a service account's change goes back to `pending_approval`",
          () => ({ 200: one, 403: "`service accounts cannot set oauth_token`" }),
        ),
      },
    )
    .delete(
      "/:automationId",
      ({ actor, params, status }) => {
        automations.delete(actor, params.automationId);
        return status(204);
      },
      {
        space: "files.write",
        detail: doc(
          "Deletes the automation for good",
          () => ({
            204: null,
            403: "`service accounts can only delete their own pending proposals`",
          }),
          {
            access:
              "A holder of `files.write`; a service account deletes only its own proposals still pending approval",
          },
        ),
      },
    )
    .post(
      "/:automationId/approve",
      ({ actor, params }) => ({ automation: presentAutomation(automations.approve(actor, params.automationId)) }),
      {
        space: "files.write",
        check: assertMayReview,
        body: noBodyIn,
        detail: doc(
          "A person approves a pending automation: it becomes `active`",
          () => ({
            200: one,
            403: "`only a person can approve or reject an automation`",
            409: "`automation is not pending approval`",
          }),
          { access: "A person (not a service account) holding `files.write`" },
        ),
      },
    )
    .post(
      "/:automationId/reject",
      ({ actor, params, body }) => ({
        automation: presentAutomation(
          automations.reject(actor, params.automationId, (body as RejectAutomationIn)?.reason),
        ),
      }),
      {
        space: "files.write",
        check: assertMayReview,
        body: rejectAutomationIn,
        detail: doc(
          "A person rejects a pending automation, with an optional `reason`",
          () => ({
            200: one,
            403: "`only a person can approve or reject an automation`",
            409: "`automation is not pending approval`",
          }),
          { access: "A person (not a service account) holding `files.write`" },
        ),
      },
    )
    .get(
      "/:automationId/runs",
      ({ actor, params, query }) => ({ runs: automations.runs(actor, params.automationId, query).map(presentRun) }),
      {
        space: "files.read",
        query: pageQuery,
        detail: doc("The automation's runs, newest first (default 50, at most 200; `before` a timestamp)", () => ({
          200: z.object({ runs: z.array(runOut()) }),
        })),
      },
    )
    .post(
      "/:automationId/run",
      ({ actor, params, body, status }) =>
        status(202, { run: presentRun(automations.runNow(actor, params.automationId, body as RunNowIn)) }),
      {
        space: "files.write",
        check: assertPerson("only a person can run an automation"),
        body: runNowIn,
        detail: doc(
          "Runs the automation now; a social post takes the `text` to post",
          () => ({
            202: z.object({ run: runOut() }),
            403: "`only a person can run an automation`",
            409: "`automation is not active`; the automation's `config_problem`; `a tunnel runs while its connector is connected`",
          }),
          { access: "A person (not a service account) holding `files.write`" },
        ),
      },
    )
    .post(
      "/:automationId/webhook-secret",
      ({ actor, params }) => ({ webhook_secret: automations.rotateWebhookSecret(actor, params.automationId) }),
      {
        space: "files.write",
        check: assertPerson("only a person can change a webhook's secret"),
        body: noBodyIn,
        detail: doc(
          "Makes the webhook a new secret, answered here once; the old one stops working at once",
          () => ({
            200: z.object({ webhook_secret: z.string() }),
            400: "`not a webhook automation`",
            403: "`only a person can change a webhook's secret`",
          }),
          { access: "A person (not a service account) holding `files.write`" },
        ),
      },
    );
}
