/**
 * The reply job: a mention of staff in chat or in a task's messages (or a task assigned to staff) queues one
 * (`replies.queue.ts`), and the staff member answers through its provider, as itself, where it was asked.
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
import type { Config } from "../../config";
import type { Access } from "../../core/access";
import type { SpaceActor } from "../../core/actor";
import { AppError, notFound } from "../../core/errors";
import type { EventOf } from "../../core/events";
import type { UnitOfWork } from "../../db/unit";
import type { JobContext, JobKind } from "../../jobs/runner";
import { charCount } from "../../lib/text";
import {
  type AgentSource,
  bridgeComplete,
  launchRun,
  readConversation,
  succeeded,
  waitForRun,
} from "../../providers/agent";
import { type CallOptions, type Pacing, ProviderError } from "../../providers/http";
import {
  type ChatMessage,
  type Completion,
  complete,
  type FunctionTool,
  type LoopState,
  type SaveLoop,
  type ToolCallRecord,
  type Work,
} from "../../providers/modelrouter";
import type { ActivityService } from "../activity/activity.service";
import { MAX_CONTENT } from "../chat/chat.policy";
import type { Provider } from "../integrations/integrations.schemas";
import { type IntegrationsService, UnreadableKey } from "../integrations/integrations.service";
import type { SpacesService } from "../spaces/spaces.service";
import type { ServiceAccountRow, StaffService } from "../staff/staff.service";
import { type ReplyPayload, STAFF_REPLY, staffActor } from "./replies.queue";
import {
  askerReadsFiles,
  readFile,
  recentConversation,
  staffTools,
  type ToolScope,
  type ToolServices,
} from "./replies.tools";

/** The model an activity row names: the account's, or what answers for an `agent` staff member. */
function modelOf(config: Config, account: ServiceAccountRow): string {
  if (account.provider !== "agent") return account.modelrouterModel || config.modelrouter.defaultModel;
  return config.agent.localBridge ? config.agent.completionModel : "cloud-agent";
}

/** How a reply calls its provider: the job's deadline, its pacing, and where a retry's pause is recorded. */
type ProviderCall = Omit<CallOptions, "attemptTimeoutMs" | "provider">;

/** What a reply has done so far, for its activity entry whatever the outcome. */
interface Progress {
  work: Work;
}

const noWork = (): Work => ({ promptTokens: 0, completionTokens: 0, toolCalls: [] });

/** How a reply job paces itself; tests shrink both. */
export interface ReplyTiming extends Pacing {
  /** The context deadline of one reply, from its first start (about 25 minutes). */
  readonly contextTimeoutMs: number;
}

export const DEFAULT_REPLY_TIMING: ReplyTiming = { timeScale: 1, contextTimeoutMs: 25 * 60_000 };

const RECENT_MESSAGES = 20;
const LISTED_FILES = 200;
const NAMED_FILES = 3;

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

/** A failure said in the reply: provider errors, a missing key, the deadline. */
class ReplyFailure extends Error {}

/** Whether a failure is said in the reply (rather than retried by the runner). */
const isSaid = (error: unknown) => error instanceof ProviderError || error instanceof ReplyFailure;

/** The reply job: asks the staff member's provider and posts the answer. */
export class ReplyJob implements JobKind {
  readonly kind = STAFF_REPLY;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly config: Config,
    private readonly deps: {
      staff: Pick<StaffService, "mentionables">;
      /** The member's permissions in the organization; null when not a member. */
      permissionsOf: (orgId: string, userId: string) => ReadonlySet<string> | null;
      spaces: SpacesService;
      access: Access;
      activity: ActivityService;
      integrations: IntegrationsService;
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
    const startedAt = this.start(context, payload, account);
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
      answer =
        account.provider === "agent"
          ? await this.agentAnswer(context, payload, account, actor, call, progress)
          : await this.modelAnswer(context, payload, account, actor, call, progress);
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

  // Answering

  /** The organization's key of `provider`, or a failure that says what to do about it. */
  private providerKey(orgId: string, provider: Provider, name: string): string {
    let key: string | null;
    try {
      key = this.deps.integrations.reveal(orgId, provider);
    } catch (error) {
      if (!(error instanceof UnreadableKey)) throw error;
      throw new ReplyFailure(
        `the stored ${name} key cannot be read: the server runs with another encryption key than the one it was stored with (an owner can store it again under Integrations)`,
      );
    }
    if (!key) throw new ReplyFailure(`no ${name} key is set (an owner can add it under Integrations)`);
    return key;
  }

  private async modelAnswer(
    context: JobContext,
    payload: ReplyPayload,
    account: ServiceAccountRow,
    actor: SpaceActor,
    call: ProviderCall,
    progress: Progress,
  ): Promise<Completion> {
    const key = this.providerKey(payload.orgId, "modelrouter", "model gateway");
    const scope = this.scope(payload, actor);
    const settings = this.config.modelrouter;
    const tools = settings.toolsEnabled ? staffTools(this.services, scope) : [];
    const state: LoopState = payload.loop ?? {
      messages: [
        {
          role: "system",
          content: this.instructions(account, actor, payload, scope, { preread: !settings.skipPreread, tools }),
        },
        { role: "user", content: `${scope.nameOf(payload.askedBy)}: ${payload.prompt}` },
      ],
      rounds: 0,
      ...noWork(),
    };
    progress.work = state;
    // Saved after every answer that calls tools and with every tool that writes (a proposal): a restart
    // resumes the loop there, and never proposes the same thing twice.
    const save: SaveLoop = (loop, write) =>
      this.uow.write(() => {
        write?.();
        context.saveProgress({ ...payload, loop });
      });
    const model = account.modelrouterModel || settings.defaultModel;
    return complete(settings, key, model, state, tools, call, save);
  }

  private async agentAnswer(
    context: JobContext,
    payload: ReplyPayload,
    account: ServiceAccountRow,
    actor: SpaceActor,
    call: ProviderCall,
    progress: Progress,
  ): Promise<Completion> {
    const key = this.providerKey(payload.orgId, "agent", "agent");
    const settings = this.config.agent;
    const scope = this.scope(payload, actor);
    const asked = `${scope.nameOf(payload.askedBy)}: ${payload.prompt}`;
    if (settings.localBridge) {
      const conversation: ChatMessage[] = [
        { role: "system", content: this.instructions(account, actor, payload, scope, { preread: true, tools: [] }) },
        { role: "user", content: asked },
      ];
      return { ...(await bridgeComplete(settings, key, conversation, call)), toolCalls: [] };
    }
    // A cloud agent cannot call back for the conversation or the files: what it may read comes with the prompt.
    const prompt = `${this.instructions(account, actor, payload, scope, { preread: true, tools: [] })}\n\n${asked}`;
    const run =
      payload.run ?? (await this.launch(context, payload, actor, this.repositoryOf(account, actor), key, prompt, call));
    // The run shows in the activity however it ends, timed from its launch (across a restart too).
    const launchedAt = run.launchedAt ?? Date.now();
    const record = (result: string, error: string | null): ToolCallRecord => ({
      name: "cloud_agent_run",
      arguments: run.id,
      result,
      duration_ms: Date.now() - launchedAt,
      error,
    });
    let status = "";
    try {
      status = await waitForRun(settings, key, run.id, call);
      if (!succeeded(status)) throw new ReplyFailure(`the agent run ended with status ${status}`);
      const text = await readConversation(settings, key, run.id, call);
      if (!text) throw new ReplyFailure("the agent run finished without an answer");
      return { text, ...noWork(), toolCalls: [record(status, null)] };
    } catch (error) {
      progress.work = { ...noWork(), toolCalls: [record(status, isSaid(error) ? (error as Error).message : null)] };
      throw error;
    }
  }

  /** Launches the run, then links it in the conversation and saves it in the job, in one transaction. */
  private async launch(
    context: JobContext,
    payload: ReplyPayload,
    actor: SpaceActor,
    source: AgentSource | null,
    key: string,
    prompt: string,
    call: ProviderCall,
  ): Promise<NonNullable<ReplyPayload["run"]>> {
    const launched = await launchRun(this.config.agent, key, prompt, source, call);
    const where = source ? ` on ${source.repository}${source.ref ? ` (${source.ref})` : ""}` : "";
    const link = `Started a cloud agent run${where}: ${launched.url ?? launched.id}. I'll post the result here when it finishes.`;
    return this.uow.write(() => {
      const reply = this.postReply(actor, payload, link);
      const run = { id: launched.id, url: launched.url, linkMessageId: reply, launchedAt: Date.now() };
      context.saveProgress({ ...payload, run });
      return run;
    });
  }

  /** The account's repository, else the space's git link, else none. */
  private repositoryOf(account: ServiceAccountRow, actor: SpaceActor) {
    if (account.agentDefaultRepoUrl) {
      return { repository: account.agentDefaultRepoUrl, ref: account.agentDefaultRef };
    }
    const link = this.deps.spaces.gitLink(actor);
    return link ? { repository: link.repoUrl, ref: link.ref || null } : null;
  }

  /**
   * Who the staff member is, where it is asked, and (pre-read) what it can see there, for the person who
   * asked: the space's files only when they may read them. `tools`: the tools it is offered (none for agents,
   * which only read what this text gives them).
   */
  private instructions(
    account: ServiceAccountRow,
    actor: SpaceActor,
    payload: ReplyPayload,
    scope: ToolScope,
    { preread, tools }: { preread: boolean; tools: readonly FunctionTool[] },
  ): string {
    const where =
      payload.trigger === "chat"
        ? "a chat room"
        : payload.sourceMessageId
          ? "the messages of a task, where you were mentioned"
          : "the messages of a task assigned to you";
    const offered = new Set(tools.map((t) => t.name));
    const ways = [
      offered.has("propose_file_patch") &&
        "to suggest a change to a file, call propose_file_patch with its whole new text",
      offered.has("propose_automation") && "to suggest an automation, call propose_automation",
    ].filter(Boolean);
    const parts = [
      `You are ${account.name}, an AI staff member working alongside the people of the space "${actor.space.name}" in Tandem, a team workspace. You are answering in ${where}. Reply in Markdown, briefly and concretely.`,
      ways.length > 0
        ? `You cannot change files or start automations yourself: ${ways.join("; ")}. A person reviews every proposal.`
        : "You cannot change the space's files or start automations: say what you would change, and a person will.",
      `Current time: ${new Date().toISOString()}.`,
    ];
    if (!preread) return parts.join("\n");
    parts.push(`\nRecent conversation:\n${recentConversation(this.services, scope, RECENT_MESSAGES)}`);
    if (!askerReadsFiles(scope)) return parts.join("\n");
    const files = this.services.files.paths(actor);
    const listed = files.slice(0, LISTED_FILES).map((f) => f.path);
    if (files.length > LISTED_FILES) listed.push(`… and ${files.length - LISTED_FILES} more`);
    parts.push(`\nFiles of the space:\n${listed.join("\n") || "(none)"}`);
    const asked = payload.prompt.toLowerCase();
    const named = files
      .filter((f) => f.node.kind === "file" && f.node.name.length >= 3 && asked.includes(f.node.name.toLowerCase()))
      .slice(0, NAMED_FILES);
    for (const file of named) parts.push(`\nContents of ${file.path}:\n${readFile(this.services, actor, file.node)}`);
    return parts.join("\n");
  }

  private scope(payload: ReplyPayload, actor: SpaceActor): ToolScope {
    const names = new Map(this.deps.staff.mentionables(payload.orgId).map((m) => [m.userId, m.name]));
    return {
      actor,
      roomId: payload.roomId,
      taskId: payload.taskId,
      nameOf: (userId) => (userId && names.get(userId)) || "someone",
      asker: this.deps.permissionsOf(payload.orgId, payload.askedBy) ?? new Set(),
    };
  }

  // Recording

  /** Records the first start (the context deadline counts from it); a resumed job keeps its entry. */
  private start(context: JobContext, payload: ReplyPayload, account: ServiceAccountRow): number {
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
        model: modelOf(this.config, account),
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
    const text = clip(answer ? answer.text : `Sorry, I couldn't answer: ${failure}.`);
    try {
      context.complete((unit) => {
        // Deleted or no longer allowed here while it worked: the staff member has nothing to post.
        if (!this.actorOf(payload).actor) throw notFound("the staff member can no longer answer here");
        this.assertStillAsked(payload, actor);
        const replyId = this.postReply(actor, payload, text);
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
      this.deps.activity.finish(context.job.id, { status: "failed", error, work });
      unit.emit(this.event(context.job.id, payload, "ai.reply.failed", null, error));
    });
  }

  /** Posts a message of the staff member where it was asked, in the caller's unit; its id. */
  private postReply(actor: SpaceActor, payload: ReplyPayload, text: string): string {
    const { chat, tasks } = this.services;
    if (payload.trigger === "chat") return chat.postReply(actor, payload.roomId as string, text).message.id;
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
      },
    };
  }
}
