/** The staff activity log, as a member may read it: only rows of spaces they can see. */
import type { OrgActor } from "../../core/actor";
import { pageOf } from "../../core/paging";
import type { SpacesService } from "../spaces/spaces.service";
import type { ActivityQuery } from "./activity.schemas";
import type { ActivityRow, ActivityStore } from "./activity.store";

export class ActivityService {
  constructor(
    private readonly store: ActivityStore,
    private readonly spaces: SpacesService,
  ) {}

  list(actor: OrgActor, query: ActivityQuery): ActivityRow[] {
    const visible = this.spaces.list(actor);
    const { limit, before } = pageOf(query);
    return this.store.list(
      actor.orgId,
      visible.map((s) => s.id),
      { staffUserId: query.staff_user_id, before, limit },
    );
  }
}
