/** Automations of a space (api-spec §4; approve and reject: contract §4). */
import { Elysia } from "elysia";
import { z } from "zod";
import type { AuthMacro } from "../../http/auth";
import { doc } from "../../http/docs";
import { noBodyIn } from "../../http/schemas";
import { assertMayReview } from "./automations.policy";
import { presentAutomation } from "./automations.present";
import {
  automationOut,
  createAutomationIn,
  patchAutomationIn,
  type RejectAutomationIn,
  rejectAutomationIn,
} from "./automations.schemas";
import type { AutomationsService } from "./automations.service";

const one = z.object({ automation: automationOut });

export function automationsRoutes(auth: AuthMacro, automations: AutomationsService) {
  return new Elysia({ prefix: "/api/v1/organizations/:orgId/spaces/:spaceId/automations" })
    .use(auth)
    .get("", ({ actor }) => ({ automations: automations.list(actor).map(presentAutomation) }), {
      space: "files.read",
      detail: doc("Automations of the space, oldest first", { 200: z.object({ automations: z.array(automationOut) }) }),
    })
    .get(
      "/:automationId",
      ({ actor, params }) => ({ automation: presentAutomation(automations.get(actor, params.automationId)) }),
      { space: "files.read", detail: doc("One automation, as the list shows it (an extension)", { 200: one }) },
    )
    .post(
      "",
      ({ actor, body, status }) => status(201, { automation: presentAutomation(automations.create(actor, body)) }),
      {
        space: "files.write",
        body: createAutomationIn,
        detail: doc(
          "Creates an automation: `draft` unless `status` says otherwise; a service account's is always `pending_approval`, its `description` kept as `config.proposal_note`",
          { 201: one, 403: "`service accounts cannot set oauth_token`" },
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
          { 200: one, 403: "`service accounts cannot set oauth_token`" },
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
          {
            204: null,
            403: "`service accounts can only delete their own pending proposals`",
          },
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
          {
            200: one,
            403: "`only a person can approve or reject an automation`",
            409: "`automation is not pending approval`",
          },
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
          {
            200: one,
            403: "`only a person can approve or reject an automation`",
            409: "`automation is not pending approval`",
          },
          { access: "A person (not a service account) holding `files.write`" },
        ),
      },
    );
}
