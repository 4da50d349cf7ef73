/** What staff did for each reply job (`staff_activity`): written as the job starts and ends, read by its route. */
import { and, desc, eq, lt, sql } from "drizzle-orm";
import { type Db, prepared } from "../../db/client";
import { insertRow, patchUpdater } from "../../db/prepared";
import { staffActivity } from "../../db/schema";

export type ActivityRow = typeof staffActivity.$inferSelect;

export class ActivityStore {
  constructor(private readonly db: Db) {}

  private readonly insertActivity = prepared(() => insertRow(this.db, staffActivity));

  /** When a worker first takes the job (off the poster's path). */
  insert(row: ActivityRow): void {
    this.insertActivity().run(row);
  }

  private readonly byJob = prepared(() =>
    this.db
      .select()
      .from(staffActivity)
      .where(eq(staffActivity.jobId, sql.placeholder("jobId")))
      .prepare(),
  );

  get(jobId: string): ActivityRow | undefined {
    return this.byJob().all({ jobId })[0];
  }

  private readonly byReply = prepared(() =>
    this.db
      .select()
      .from(staffActivity)
      .where(
        and(
          eq(staffActivity.staffUserId, sql.placeholder("staffUserId")),
          eq(staffActivity.replyMessageId, sql.placeholder("replyMessageId")),
        ),
      )
      .orderBy(desc(staffActivity.createdAt), desc(staffActivity.jobId))
      .limit(1)
      .prepare(),
  );

  /**
   * The newest entry of a staff member whose reply is `replyMessageId` (a retried reply is the same message);
   * read through `staff_activity_staff_idx`, that staff member's entries only.
   */
  latestOfReply(staffUserId: string, replyMessageId: string): ActivityRow | undefined {
    return this.byReply().all({ staffUserId, replyMessageId })[0];
  }

  /** Writes the columns `patch` names; the reply job runs this once or twice per reply. */
  readonly update = patchUpdater<ActivityRow>(() => this.db, staffActivity, staffActivity.jobId, "jobId");

  /**
   * Newest first, only rows of the given spaces, before the (created_at, job_id) cursor
   * (`staff_activity_org_idx`, or `staff_activity_staff_idx` for one staff member).
   */
  list(
    orgId: string,
    spaceIds: readonly string[],
    options: { staffUserId?: string | undefined; before: number; limit: number },
  ): ActivityRow[] {
    const visible = sql`${staffActivity.spaceId} IN (SELECT value FROM json_each(${JSON.stringify(spaceIds)}))`;
    return this.db
      .select()
      .from(staffActivity)
      .where(
        and(
          eq(staffActivity.orgId, orgId),
          options.staffUserId ? eq(staffActivity.staffUserId, options.staffUserId) : undefined,
          lt(staffActivity.createdAt, options.before),
          visible,
        ),
      )
      .orderBy(desc(staffActivity.createdAt), desc(staffActivity.jobId))
      .limit(options.limit)
      .all();
  }
}
