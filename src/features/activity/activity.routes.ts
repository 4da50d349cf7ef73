/** What AI staff did, for every member, limited to the spaces the caller can see. */
import { Elysia } from "elysia";
import { z } from "zod";
import type { AuthMacro } from "../../http/auth";
import { doc } from "../../http/docs";
import { presentActivity } from "./activity.present";
import { activityOut, activityQuery } from "./activity.schemas";
import type { ActivityService } from "./activity.service";

export function activityRoutes(auth: AuthMacro, activity: ActivityService) {
  return new Elysia({ prefix: "/api/v1/organizations/:orgId/staff-activity" }).use(auth).get(
    "",
    ({ actor, query }) => {
      const readsFiles = actor.permissions.has("files.read");
      return { activity: activity.list(actor, query).map((row) => presentActivity(row, readsFiles)) };
    },
    {
      permission: "member",
      query: activityQuery,
      detail: doc("What AI staff did for each reply, newest first, in the spaces the caller can see", () => ({
        200: z.object({ activity: z.array(activityOut()) }),
      })),
    },
  );
}
