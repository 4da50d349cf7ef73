/**
 * Retrying a staff reply that failed: a person who may post in the room asks again, from the failure reply in
 * the chat. A new reply job is queued in the request's transaction with the 💭 back on the message it answers;
 * its answer (or its new failure) replaces the failure reply's text in place, so the conversation keeps one
 * reply where it was asked. One retry of a failure reply runs at a time.
 */
import type { Access } from "../../core/access";
import type { SpaceActor } from "../../core/actor";
import { AppError, conflict, invalid, notFound } from "../../core/errors";
import type { UnitOfWork } from "../../db/unit";
import type { JobQueue } from "../../jobs/queue";
import type { ActivityService } from "../activity/activity.service";
import type { ChatService } from "../chat/chat.service";
import type { StaffService } from "../staff/staff.service";
import type { ReplyEventPayload } from "./replies.events";
import { type ReplyPayload, STAFF_REPLY, staffActor, THINKING } from "./replies.queue";

/** What a retry answers: the reply job queued, the ids of the `ai.reply.*` events it will announce. */
export type RetriedReply = Pick<
  ReplyEventPayload,
  "job_id" | "staff_user_id" | "chat_room_id" | "source_message_id" | "reply_message_id"
>;

/** Queues the retry of a failed staff reply. */
export class ReplyRetry {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly deps: {
      chat: ChatService;
      staff: Pick<StaffService, "mentionables">;
      activity: Pick<ActivityService, "latestOfReply">;
      access: Access;
      jobs: JobQueue;
    },
  ) {}

  /**
   * Retries the staff reply whose failure is message `messageId`, for `actor` (a person who may post there).
   * The failure reply must be the newest outcome of that staff member's replies in it, its question still
   * there, and the staff member still able to answer there.
   */
  retry(actor: SpaceActor, roomId: string, messageId: string): RetriedReply {
    const { chat, staff, activity, access, jobs } = this.deps;
    return this.uow.write(() => {
      const failure = chat.message(actor, roomId, messageId);
      if (failure.deletedAt !== null) throw notFound("message not found");
      const entry = failure.authorUserId ? activity.latestOfReply(failure.authorUserId, failure.id) : undefined;
      if (entry?.status !== "failed" || entry.trigger !== "chat" || entry.sourceMessageId === null) {
        throw invalid("message is not a failed reply");
      }
      if (jobs.hasLive(STAFF_REPLY, "$.replaces", failure.id)) throw conflict("reply is already being retried");
      const source = this.question(actor, failure.roomId, entry.sourceMessageId);
      const account = staff.mentionables(actor.orgId).find((m) => m.userId === failure.authorUserId)?.staff;
      const acting = account && staffActor(access, account, actor.space.id, "chat");
      if (!account || !acting) throw conflict("the staff member can no longer answer here");
      // The staff member acknowledges again, as when it was first asked.
      chat.react(acting, failure.roomId, source.id, THINKING);
      const payload: ReplyPayload = {
        trigger: "chat",
        orgId: actor.orgId,
        spaceId: actor.space.id,
        staffUserId: account.userId,
        roomId: failure.roomId,
        taskId: null,
        sourceMessageId: source.id,
        // The question is asked again for whoever asked it (the retry only repeats it): the staff member acts
        // for them, with their permissions, as the first time. A message of an automation has no author: the
        // person retrying asks.
        askedBy: source.authorUserId ?? actor.userId,
        prompt: source.content,
        replaces: failure.id,
      };
      return {
        job_id: jobs.enqueue(STAFF_REPLY, payload),
        staff_user_id: account.userId,
        chat_room_id: failure.roomId,
        source_message_id: source.id,
        reply_message_id: failure.id,
      };
    });
  }

  /** The message the failed reply answered, unless it was deleted since. */
  private question(actor: SpaceActor, roomId: string, messageId: string) {
    let source: ReturnType<ChatService["message"]> | undefined;
    try {
      source = this.deps.chat.message(actor, roomId, messageId);
    } catch (error) {
      if (!(error instanceof AppError && error.kind === "not_found")) throw error;
    }
    if (!source || source.deletedAt !== null) throw conflict("the message it answered was deleted");
    return source;
  }
}
