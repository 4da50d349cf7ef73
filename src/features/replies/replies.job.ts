/**
 * The reply job: a mention of staff in chat or in a task's messages (or a task assigned to staff) queues one
 * (`replies.queue.ts`), and the staff member answers through its provider (`ReplyProvider`), as itself, where it
 * was asked. The job runs it, gives up on it, posts the answer and settles it; the providers ask and resume.
 *
 * Retry and idempotency rule:
 * - The job and the 💭 are stored in the transaction of the message or assignment that asks; the activity row
 *   when a worker first takes the job.
 * - Exactly one reply per job: the reply and the job's completion commit in one transaction, guarded by the
 *   job's lease; a worker that lost its lease rolls back and posts nothing.
 * - Provider calls retry inside an attempt (providers/http.ts); each pause is recorded as the job's `run_at`,
 *   so a restart waits it out. When they fail for good, or the ~25-minute context deadline passes, the job
 *   ends with one short failure reply. Anything else (a bug, a full disk) is retried by the runner, and after
 *   its last attempt the failure reply is posted (`giveUp`).
 * - A launched cloud-agent run is saved in the payload with the message that links it, in one transaction,
 *   so a job resumed after a restart polls that run rather than launching a second one.
 * - A model gateway's tool loop is saved in the payload after every answer that calls tools, and a tool that
 *   writes (a proposal) commits with the saved result of its call, so a resumed job goes on from there: the
 *   gateway is not asked the same question again and nothing is proposed twice.
 */
import type { Access } from "../../core/access";
import type { SpaceActor } from "../../core/actor";
import { AppError, notFound } from "../../core/errors";
import type { EventOf } from "../../core/events";
import type { UnitOfWork } from "../../db/unit";
import type { JobContext, JobKind } from "../../jobs/runner";
import { charCount } from "../../lib/text";
import type { Pacing, ProviderCall } from "../../providers/http";
import type { Completion, Work } from "../../providers/modelrouter";
import type { ActivityService } from "../activity/activity.service";
import { MAX_CONTENT } from "../chat/chat.policy";
import type { Provider } from "../integrations/integrations.schemas";
import type { ServiceAccountRow, StaffService } from "../staff/staff.service";
import { withLinks } from "./replies.links";
import { ReplyPrompt } from "./replies.prompt";
import { type AnswerContext, isSaid, noWork, type ReplyProvider } from "./replies.provider";
import { type ReplyPayload, STAFF_REPLY, staffActor, THINKING } from "./replies.queue";
import type { ReplyScope, ToolServices } from "./replies.tools";

/** What a reply has done so far, for its activity entry whatever the outcome. */
interface Progress {
  work: Work;
}

/** How a reply job paces itself; tests shrink both. */
export interface ReplyTiming extends Pacing {
  /** The context deadline of one reply, from its first start (about 25 minutes). */
  readonly contextTimeoutMs: number;
}

export const DEFAULT_REPLY_TIMING: ReplyTiming = { timeScale: 1, contextTimeoutMs: 25 * 60_000 };

/** "25 minutes", "1 second": how long the context deadline is, in words. */
function duration(ms: number): string {
  const [n, unit] = ms >= 60_000 ? [Math.round(ms / 60_000), "minute"] : [Math.max(1, Math.round(ms / 1000)), "second"];
  return `${n} ${unit}${n === 1 ? "" : "s"}`;
}

/**
 * An answer cut to the longest message (chat and task messages alike), at a code point (never half an emoji),
 * saying that it was cut.
 */
function clip(text: string): string {
  if (charCount(text) <= MAX_CONTENT) return text;
  const note = "\n\n… (cut: the answer was longer than a message may be)";
  return `${[...text].slice(0, MAX_CONTENT - charCount(note)).join("")}${note}`;
}

/** The reply job: asks the staff member's provider and posts the answer. */
export class ReplyJob implements JobKind {
  readonly kind = STAFF_REPLY;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly deps: {
      staff: Pick<StaffService, "mentionables">;
      /** The member's permissions in the organization; null when not a member. */
      permissionsOf: (orgId: string, userId: string) => ReadonlySet<string> | null;
      access: Access;
      activity: ActivityService;
      /** How each kind of staff member answers, by its `provider`. */
      providers: Record<Provider, ReplyProvider>;
    },
    private readonly services: ToolServices,
    private readonly timing: ReplyTiming = DEFAULT_REPLY_TIMING,
  ) {}

  async run(context: JobContext): Promise<void> {
    const payload = JSON.parse(context.job.payload) as ReplyPayload;
    const { account, actor } = this.actorOf(payload);
    if (!account || !actor) {
      this.settleWithoutReply(
        context,
        payload,
        account ? "the staff member can no longer answer here" : "the staff member was deleted",
      );
      return;
    }
    try {
      // A message deleted before the reply started is not sent to the provider at all.
      this.assertStillAsked(payload, actor);
    } catch (error) {
      this.settleIfGone(context, payload, error);
      return;
    }
    const provider = this.providerOf(account);
    const startedAt = this.start(context, payload, account, provider);
    const deadline = AbortSignal.timeout(Math.max(0, this.timing.contextTimeoutMs - (Date.now() - startedAt)));
    const signal = AbortSignal.any([context.signal, deadline]);
    // A pause a provider asked for outlives a restart: the job is not resumed before it ends.
    const call: ProviderCall = {
      signal,
      pacing: this.timing,
      onPause: (ms) => context.resumeNotBefore(Date.now() + ms),
    };
    const progress: Progress = { work: payload.loop ?? noWork() };
    let answer: Completion;
    try {
      answer = await provider.answer(this.answerContext(context, payload, account, actor, call, progress));
    } catch (error) {
      // A lost lease or a stopping server: whoever holds the job next carries on.
      if (context.signal.aborted) throw error;
      const { work } = progress;
      if (deadline.aborted) {
        const failure = `it took longer than ${duration(this.timing.contextTimeoutMs)}`;
        return this.post(context, payload, actor, { failure, work });
      }
      if (isSaid(error)) return this.post(context, payload, actor, { failure: error.message, work });
      throw error;
    }
    this.post(context, payload, actor, { answer });
  }

  /** Every attempt failed on our side: say so once, in the conversation. */
  giveUp(context: JobContext): void {
    const payload = JSON.parse(context.job.payload) as ReplyPayload;
    const { actor } = this.actorOf(payload);
    if (!actor) {
      this.settleWithoutReply(context, payload, "the staff member can no longer answer here");
      return;
    }
    this.post(context, payload, actor, { failure: "something went wrong on our side", work: payload.loop });
  }

  /** The staff account and, when it may still answer where it was asked, the staff member acting there. */
  private actorOf(payload: ReplyPayload): { account?: ServiceAccountRow; actor?: SpaceActor | null } {
    const account = this.deps.staff.mentionables(payload.orgId).find((m) => m.userId === payload.staffUserId)?.staff;
    if (!account) return {};
    return { account, actor: staffActor(this.deps.access, account, payload.spaceId, payload.trigger) };
  }

  /** The provider the staff member answers through. */
  private providerOf(account: ServiceAccountRow): ReplyProvider {
    return this.deps.providers[account.provider === "agent" ? "agent" : "modelrouter"];
  }

  /** What the provider gets: the prompt, and how it keeps its progress and posts as the staff member. */
  private answerContext(
    context: JobContext,
    payload: ReplyPayload,
    account: ServiceAccountRow,
    actor: SpaceActor,
    call: ProviderCall,
    progress: Progress,
  ): AnswerContext {
    return {
      account,
      actor,
      prompt: new ReplyPrompt(this.services, account, payload, this.scope(payload, actor)),
      call,
      saved: { run: payload.run, loop: payload.loop },
      save: (write) =>
        this.uow.write(() => {
          const saved = write();
          context.saveProgress({ ...payload, ...saved });
          return saved;
        }),
      post: (text) => this.postReply(actor, payload, text),
      report: (work) => {
        progress.work = work;
      },
    };
  }

  private scope(payload: ReplyPayload, actor: SpaceActor): ReplyScope {
    const directory = this.deps.staff.mentionables(payload.orgId);
    const names = new Map(directory.map((m) => [m.userId, m.name]));
    return {
      actor,
      roomId: payload.roomId,
      threadRootId: payload.threadRootId ?? null,
      taskId: payload.taskId,
      nameOf: (userId) => (userId && names.get(userId)) || "someone",
      memberId: (ref) => {
        const key = ref.toLowerCase();
        return directory.find((m) => m.userId === key || m.key === key)?.userId;
      },
      asker: this.deps.permissionsOf(payload.orgId, payload.askedBy) ?? new Set(),
    };
  }

  // Recording

  /** Records the first start (the context deadline counts from it); a resumed job keeps its entry. */
  private start(
    context: JobContext,
    payload: ReplyPayload,
    account: ServiceAccountRow,
    provider: ReplyProvider,
  ): number {
    const { activity } = this.deps;
    const firstStart = activity.startedAt(context.job.id);
    if (firstStart !== null) {
      activity.resume(context.job.id);
      return firstStart;
    }
    const startedAt = Date.now();
    this.uow.write((unit) => {
      activity.start({
        jobId: context.job.id,
        orgId: payload.orgId,
        spaceId: payload.spaceId,
        staffUserId: payload.staffUserId,
        trigger: payload.trigger,
        chatRoomId: payload.roomId,
        taskId: payload.taskId,
        sourceMessageId: payload.sourceMessageId,
        provider: account.provider,
        model: provider.model(account),
        createdAt: context.job.createdAt,
        startedAt,
      });
      unit.emit(this.event(context.job.id, payload, "ai.reply.started", null, null));
    });
    return startedAt;
  }

  /**
   * Posts the answer (or the failure reply) and ends the job, in one transaction. A room or task deleted
   * meanwhile leaves nothing to answer in: the job ends without a reply.
   */
  private post(
    context: JobContext,
    payload: ReplyPayload,
    actor: SpaceActor,
    outcome: { answer: Completion } | { failure: string; work?: Work | undefined },
  ): void {
    const failure = "failure" in outcome ? outcome.failure : null;
    const answer = "answer" in outcome ? outcome.answer : null;
    const work = "answer" in outcome ? outcome.answer : (outcome.work ?? noWork());
    // What it made on the way (a proposal, a task) is linked, even in a failure reply.
    const text = clip(withLinks(answer ? answer.text : `Sorry, I couldn't answer: ${failure}.`, work.toolCalls));
    try {
      context.complete((unit) => {
        // Deleted or no longer allowed here while it worked: the staff member has nothing to post.
        if (!this.actorOf(payload).actor) throw notFound("the staff member can no longer answer here");
        this.assertStillAsked(payload, actor);
        const replyId = this.answerIn(actor, payload, text);
        this.takeBackThinking(payload);
        this.deps.activity.finish(context.job.id, {
          status: failure ? "failed" : "done",
          error: failure,
          replyMessageId: replyId,
          work,
        });
        unit.emit(
          this.event(context.job.id, payload, failure ? "ai.reply.failed" : "ai.reply.finished", replyId, failure),
        );
      });
    } catch (error) {
      this.settleIfGone(context, payload, error, work);
    }
  }

  /** The message that asked is still there (chat): a reply to a deleted message would repeat what it said. */
  private assertStillAsked(payload: ReplyPayload, actor: SpaceActor): void {
    if (payload.sourceMessageId === null || payload.roomId === null) return;
    this.services.chat.assertAnswerable(actor, payload.roomId, payload.sourceMessageId);
  }

  /** A 404 on the way means there is nowhere left to answer: the job ends without a reply. */
  private settleIfGone(context: JobContext, payload: ReplyPayload, error: unknown, work?: Work): void {
    if (!(error instanceof AppError && error.kind === "not_found")) throw error;
    this.settleWithoutReply(context, payload, `nowhere to answer: ${error.message}`, work);
  }

  /** Ends the job with no reply (the staff member or the conversation is gone), keeping what it did. */
  private settleWithoutReply(context: JobContext, payload: ReplyPayload, error: string, work?: Work): void {
    context.complete((unit) => {
      this.takeBackThinking(payload);
      this.deps.activity.finish(context.job.id, { status: "failed", error, work });
      unit.emit(this.event(context.job.id, payload, "ai.reply.failed", null, error));
    });
  }

  /**
   * Takes back the staff member's 💭 on the chat message it was asked in, in the caller's unit (announced as
   * `chat.reaction.removed`): once it answered, failed, or has nowhere to answer. Seeing the space is enough, as
   * for anyone taking their reaction back; a staff member that no longer sees it, or a reaction already gone
   * (with its message or its room), leaves nothing to take back.
   */
  private takeBackThinking(payload: ReplyPayload): void {
    if (payload.sourceMessageId === null || payload.roomId === null) return;
    const { account } = this.actorOf(payload);
    const viewer = account && staffActor(this.deps.access, account, payload.spaceId, "member");
    if (!viewer) return;
    try {
      this.services.chat.unreact(viewer, payload.roomId, payload.sourceMessageId, THINKING);
    } catch (error) {
      if (!(error instanceof AppError && error.kind === "not_found")) throw error;
    }
  }

  /**
   * Puts the answer (or the failure reply) where it was asked, in the caller's unit; its message's id. A retry
   * rewrites the failure reply it retries, in place (`chat.message.updated`); one deleted meanwhile gets a new
   * message instead.
   */
  private answerIn(actor: SpaceActor, payload: ReplyPayload, text: string): string {
    if (payload.replaces && payload.roomId) {
      const failure = this.services.chat.message(actor, payload.roomId, payload.replaces);
      if (failure.deletedAt === null) return this.services.chat.edit(actor, payload.roomId, failure.id, text).id;
    }
    return this.postReply(actor, payload, text);
  }

  /** Posts a message of the staff member where it was asked, in the caller's unit; its id. */
  private postReply(actor: SpaceActor, payload: ReplyPayload, text: string): string {
    const { chat, tasks } = this.services;
    if (payload.trigger === "chat")
      return chat.postReply(actor, payload.roomId as string, text, payload.threadRootId ?? null).message.id;
    return tasks.postMessage(actor, payload.taskId as string, text).id;
  }

  private event<T extends "ai.reply.started" | "ai.reply.finished" | "ai.reply.failed">(
    jobId: string,
    payload: ReplyPayload,
    type: T,
    replyMessageId: string | null,
    error: string | null,
  ): EventOf<T> {
    return {
      type,
      organization_id: payload.orgId,
      space_id: payload.spaceId,
      payload: {
        job_id: jobId,
        staff_user_id: payload.staffUserId,
        chat_room_id: payload.roomId,
        source_message_id: payload.sourceMessageId,
        reply_message_id: replyMessageId,
        error,
        task_id: payload.taskId,
        asked_by_user_id: payload.askedBy || null,
      },
    };
  }
}
