/** A space's labels (contract §11): listed by anyone who reads the board, written with `tasks.write`. */
import { Elysia } from "elysia";
import { z } from "zod";
import type { AuthMacro } from "../../http/auth";
import { doc } from "../../http/docs";
import { presentLabel } from "./labels.present";
import { createLabelIn, labelOut, patchLabelIn } from "./labels.schemas";
import type { LabelsService } from "./labels.service";

export function labelsRoutes(auth: AuthMacro, labels: LabelsService) {
  return new Elysia({ prefix: "/api/v1/organizations/:orgId/spaces/:spaceId/labels" })
    .use(auth)
    .get("", ({ actor }) => ({ labels: labels.list(actor).map(presentLabel) }), {
      space: "member",
      detail: doc("The space's labels, oldest first", () => ({ 200: z.object({ labels: z.array(labelOut()) }) })),
    })
    .post("", ({ actor, body, status }) => status(201, { label: presentLabel(labels.create(actor, body)) }), {
      space: "tasks.write",
      body: createLabelIn,
      detail: doc("Creates a label", () => ({
        201: z.object({ label: labelOut() }),
        409: "`name already exists` (a label of the space has that name, ignoring case)",
      })),
    })
    .patch(
      "/:labelId",
      ({ actor, params, body }) => ({ label: presentLabel(labels.update(actor, params.labelId, body)) }),
      {
        space: "tasks.write",
        body: patchLabelIn,
        detail: doc("Renames or recolours a label", () => ({
          200: z.object({ label: labelOut() }),
          409: "`name already exists` (another label of the space has that name, ignoring case)",
        })),
      },
    )
    .delete(
      "/:labelId",
      ({ actor, params, status }) => {
        labels.delete(actor, params.labelId);
        return status(204);
      },
      {
        space: "tasks.write",
        detail: doc("Deletes a label; the tasks carrying it drop it, each as an update", () => ({ 204: null })),
      },
    );
}
