/**
 * The durable job table, and what each staff reply job did. A job row is claimed with one UPDATE ... RETURNING
 * under a lease that its worker renews; a lease that lapses (the worker died) makes the job claimable again.
 * A job that ends (done, or failed for good) leaves the table in the transaction that ends it: the table holds
 * only the live queue, and what the job did stays in `staff_activity`.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations } from "./people";

export const jobs = sqliteTable(
  "jobs",
  {
    /**
     * The row's key (SQLite's rowid) and the queue's order: a new job is appended after every live one. The
     * table is its only B-tree, so queuing a job in the transaction of a chat post writes one page, not three.
     */
    seq: integer("seq").primaryKey(),
    /** What the job is known by outside the table: events and `staff_activity.job_id`. */
    id: text("id").notNull(),
    kind: text("kind").notNull(),
    /** The kind's JSON input, and what it has done so far that must not be done twice (a launched run). */
    payload: text("payload").notNull(),
    /** `queued` or `running`. */
    status: text("status").notNull(),
    attempts: integer("attempts").notNull().default(0),
    /** Not to be claimed before this time. */
    runAt: integer("run_at").notNull(),
    /** The current claim: only its holder may finish the job or renew the lease. */
    lease: text("lease"),
    lockedUntil: integer("locked_until"),
    lastError: text("last_error"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  // The table holds only live jobs, claimed in `seq` order. The one index holds only the running jobs (at most
  // the worker count): queuing a job does not write it, and finding a lapsed claim does not read the queue.
  (t) => [index("jobs_running_idx").on(t.lockedUntil).where(sql`${t.status} = 'running'`)],
);

/** What a staff member did for one reply job: the record behind `GET /staff-activity`. */
export const staffActivity = sqliteTable(
  "staff_activity",
  {
    /** The job's `id`; the entry outlives the job's row. */
    jobId: text("job_id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    spaceId: text("space_id").notNull(),
    /** Not a foreign key: what a staff member did stays on record after its account is deleted. */
    staffUserId: text("staff_user_id"),
    /** `chat` (a mention) or `task` (an assignment). */
    trigger: text("trigger").notNull(),
    chatRoomId: text("chat_room_id"),
    taskId: text("task_id"),
    sourceMessageId: text("source_message_id"),
    replyMessageId: text("reply_message_id"),
    provider: text("provider").notNull(),
    model: text("model").notNull(),
    /** `queued`, `running`, `done` or `failed`. */
    status: text("status").notNull(),
    /** JSON array of the tool calls: name, arguments and result (trimmed), duration. */
    toolCalls: text("tool_calls").notNull(),
    promptTokens: integer("prompt_tokens").notNull().default(0),
    completionTokens: integer("completion_tokens").notNull().default(0),
    durationMs: integer("duration_ms"),
    error: text("error"),
    createdAt: integer("created_at").notNull(),
    startedAt: integer("started_at"),
    finishedAt: integer("finished_at"),
  },
  (t) => [
    index("staff_activity_org_idx").on(t.orgId, t.createdAt, t.jobId),
    index("staff_activity_staff_idx").on(t.staffUserId, t.createdAt, t.jobId),
  ],
);
