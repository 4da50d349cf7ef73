/**
 * The staff activity log: each reply job records here when a worker first takes it, when one takes it again, and
 * how it ended; a member reads the entries of the spaces they can see.
 */
import type { OrgActor } from "../../core/actor";
import { pageOf } from "../../core/paging";
import type { UnitOfWork } from "../../db/unit";
import type { SpacesService } from "../spaces/spaces.service";
import type { ActivityQuery, ToolCallOut } from "./activity.schemas";
import type { ActivityRow, ActivityStore } from "./activity.store";

/** A reply job as its entry first records it. */
export type ActivityStart = Pick<
  ActivityRow,
  | "jobId"
  | "orgId"
  | "spaceId"
  | "staffUserId"
  | "trigger"
  | "chatRoomId"
  | "taskId"
  | "sourceMessageId"
  | "provider"
  | "model"
  | "createdAt"
  | "startedAt"
>;

/** What a reply cost and did. */
export interface ActivityWork {
  toolCalls: readonly ToolCallOut[];
  promptTokens: number;
  completionTokens: number;
}

/** How a reply job ended. */
export interface ActivityEnd {
  status: "done" | "failed";
  error: string | null;
  /** The reply it posted; absent when it ended without one. */
  replyMessageId?: string;
  /** Absent: the entry keeps what it holds. */
  work?: ActivityWork | undefined;
}

/** Staff activity: written by the reply job through these methods, inside its own transactions. */
export class ActivityService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: ActivityStore,
    private readonly spaces: Pick<SpacesService, "list">,
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

  /** When a worker first took the job (epoch ms); null while no worker has. */
  startedAt(jobId: string): number | null {
    return this.store.get(jobId)?.startedAt ?? null;
  }

  /** How the newest reply job that posted (or rewrote) `replyMessageId` as `staffUserId` ended, if one did. */
  latestOfReply(staffUserId: string, replyMessageId: string): ActivityRow | undefined {
    return this.store.latestOfReply(staffUserId, replyMessageId);
  }

  /** A worker took the job for the first time: its entry, running, in the caller's unit. */
  start(entry: ActivityStart): void {
    this.uow.write(() =>
      this.store.insert({
        ...entry,
        replyMessageId: null,
        status: "running",
        toolCalls: "[]",
        promptTokens: 0,
        completionTokens: 0,
        durationMs: null,
        error: null,
        finishedAt: null,
      }),
    );
  }

  /** A worker took the job again (a retry, a restart): it runs on under its first entry. */
  resume(jobId: string): void {
    this.uow.write(() => this.store.update(jobId, { status: "running" }));
  }

  /** The job ended, in the caller's unit: how, what it did, and how long it took from its first start. */
  finish(jobId: string, end: ActivityEnd): void {
    this.uow.write(() => {
      const now = Date.now();
      const startedAt = this.startedAt(jobId);
      const patch: Partial<ActivityRow> = { status: end.status, error: end.error, finishedAt: now };
      if (startedAt !== null) patch.durationMs = now - startedAt;
      if (end.replyMessageId !== undefined) patch.replyMessageId = end.replyMessageId;
      if (end.work) {
        patch.toolCalls = JSON.stringify(end.work.toolCalls);
        patch.promptTokens = end.work.promptTokens;
        patch.completionTokens = end.work.completionTokens;
      }
      this.store.update(jobId, patch);
    });
  }
}
