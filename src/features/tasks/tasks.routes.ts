/** Tasks, task messages, deliverables (api-spec §4 Tasks) and `GET /me/tasks`. */
import { Elysia } from "elysia";
import { z } from "zod";
import { assertPermission } from "../../core/access";
import type { SpaceActor } from "../../core/actor";
import type { AuthMacro } from "../../http/auth";
import { doc } from "../../http/docs";
import { multipartFile } from "../../http/multipart";
import { pageQuery } from "../../http/schemas";
import { presentNode } from "../files/files.present";
import { nodeOut } from "../files/files.schemas";
import { presentDeliverable, presentMyTask, presentTask, presentTaskMessage } from "./tasks.present";
import {
  createTaskIn,
  deliverableOut,
  linkDeliverableIn,
  myTaskOut,
  myTasksQuery,
  patchTaskIn,
  postTaskMessageIn,
  taskMessageOut,
  taskOut,
  tasksQuery,
} from "./tasks.schemas";
import type { TasksService } from "./tasks.service";

export function tasksRoutes(auth: AuthMacro, tasks: TasksService) {
  return new Elysia({ prefix: "/api/v1" })
    .use(auth)
    .get("/me/tasks", ({ actor }) => ({ tasks: tasks.mine(actor).map(presentMyTask) }), {
      permission: "member",
      query: myTasksQuery,
      detail: doc(
        "Tasks assigned to the caller in `org_id`, across the spaces they can see; at most 200, most recently updated first",
        () => ({
          200: z.object({ tasks: z.array(myTaskOut()) }),
          404: "`organization not found`: `org_id` names no organization the caller is a member of",
        }),
      ),
    })
    .group("/organizations/:orgId/spaces/:spaceId/tasks", (space) =>
      space
        .get("", ({ actor, query }) => ({ tasks: tasks.list(actor, query).map(presentTask) }), {
          space: "member",
          query: tasksQuery,
          detail: doc(
            "Tasks of the board, by column then position; `label_id` and `priority` keep only those that match",
            () => ({
              200: z.object({ tasks: z.array(taskOut()) }),
              400: "`invalid label` (`label_id` is not a label of this space)",
            }),
          ),
        })
        .post("", ({ actor, body, status }) => status(201, presentTask(tasks.create(actor, body))), {
          space: "tasks.write",
          body: createTaskIn,
          detail: doc("Creates a task at the bottom of its column", () => ({
            201: taskOut(),
            400: "`invalid column` (not a column of this space's board); `invalid assignee` (not a member who can see the space); `invalid label` (not a label of this space)",
            409: "`column is at its limit` (a staff member, into a column holding its WIP limit of tasks or more)",
          })),
        })
        .get("/:taskId", ({ actor, params }) => presentTask(tasks.get(actor, params.taskId)), {
          space: "member",
          detail: doc("One task, as the list shows it (an extension)", () => ({ 200: taskOut() })),
        })
        .patch("/:taskId", ({ actor, params, body }) => presentTask(tasks.patch(actor, params.taskId, body)), {
          space: "tasks.write",
          body: patchTaskIn,
          detail: doc(
            "Updates the fields present, moves the task (`column_id`, `position`); 409 with `task` on a stale `version`; 409 `column is at its limit` for a staff member moving it into a column holding its WIP limit of tasks or more",
            () => ({
              200: taskOut(),
              400: "`invalid column`; `invalid assignee`; `invalid label`",
              409: z.union([
                z.object({ error: z.literal("version conflict"), task: taskOut() }),
                z.object({ error: z.literal("column is at its limit") }),
              ]),
            }),
          ),
        })
        .delete(
          "/:taskId",
          ({ actor, params, status }) => {
            tasks.delete(actor, params.taskId);
            return status(204);
          },
          {
            space: "tasks.write",
            detail: doc("Deletes the task for good", () => ({ 204: null })),
          },
        )
        .get(
          "/:taskId/messages",
          ({ actor, params, query }) => ({
            messages: tasks.messages(actor, params.taskId, query).map(presentTaskMessage),
          }),
          {
            space: "member",
            query: pageQuery,
            detail: doc("The newest `limit` (default 50, at most 200) messages before `before`, oldest first", () => ({
              200: z.object({ messages: z.array(taskMessageOut()) }),
            })),
          },
        )
        .post(
          "/:taskId/messages",
          ({ actor, params, body, status }) =>
            status(201, presentTaskMessage(tasks.postMessage(actor, params.taskId, body.content))),
          {
            space: "tasks.write",
            body: postTaskMessageIn,
            detail: doc("Comments on the task", () => ({ 201: taskMessageOut() })),
          },
        )
        .get(
          "/:taskId/deliverables",
          ({ actor, params }) => ({ deliverables: tasks.deliverables(actor, params.taskId).map(presentDeliverable) }),
          {
            space: "member",
            detail: doc("Files linked to the task as deliverables, oldest link first", () => ({
              200: z.object({ deliverables: z.array(deliverableOut()) }),
            })),
          },
        )
        .post(
          "/:taskId/deliverables",
          ({ actor, params, body, status }) => {
            tasks.link(actor, params.taskId, body.file_node_id);
            return status(204);
          },
          {
            space: "tasks.write",
            body: linkDeliverableIn,
            detail: doc("Links a file below the Deliverables folder to the task", () => ({
              204: null,
              400: "`file must be under the Deliverables folder`; `file_node_id: must be a file, not a folder`",
              404: "`file not found` (an unknown or deleted file)",
            })),
          },
        )
        .post(
          "/:taskId/deliverables/upload",
          async ({ actor, params, request, status }) => {
            const { node, deliverable } = await tasks.uploadDeliverable(actor, params.taskId, multipartFile(request));
            return status(201, { node: presentNode(node), deliverable: presentDeliverable(deliverable) });
          },
          {
            space: "tasks.write",
            check: (actor: SpaceActor) => assertPermission(actor, "files.write"),
            detail: doc(
              "Uploads a file into the space's Deliverables folder (created when missing) and links it to the task, in one step: multipart/form-data with `file`, streamed",
              () => ({
                201: z.object({ node: nodeOut(), deliverable: deliverableOut() }),
                400: "`content-type must be multipart/form-data`; `file: required`",
                403: "`missing permission: tasks.write` or `missing permission: files.write`",
                409: "`name already exists` (a file of that name is in the folder); `a file named Deliverables is in the way` (a root file, not a folder, has the name)",
                413: "Over TANDEM_MAX_UPLOAD_BYTES: `file too large`",
              }),
            ),
          },
        )
        .delete(
          "/:taskId/deliverables/:fileNodeId",
          ({ actor, params, status }) => {
            tasks.unlink(actor, params.taskId, params.fileNodeId);
            return status(204);
          },
          {
            space: "tasks.write",
            detail: doc("Removes the link; the file stays", () => ({ 204: null })),
          },
        ),
    );
}
