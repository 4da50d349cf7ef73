/** Queues a reply job inside the write that asks for it: a message that mentions staff, a task assigned to staff. */
import type { Access } from "../../core/access";
import type { Principal, SpaceActor } from "../../core/actor";
import { AppError } from "../../core/errors";
import type { DomainEvent, EventBus, EventOf } from "../../core/events";
import type { JobQueue } from "../../jobs/queue";
import type { LoopState } from "../../providers/modelrouter";
import type { ChatService } from "../chat/chat.service";
import { mentioned } from "../staff/staff.mentions";
import type { Mentionable, ServiceAccountRow, StaffService } from "../staff/staff.service";

/** The job kind's name in the job table. */
export const STAFF_REPLY = "staff_reply";
/** The reaction a staff member acknowledges a message with, and takes back once it has answered. */
export const THINKING = "💭";

/** What a reply job knows from the moment it is queued. */
export interface ReplyPayload {
  trigger: "chat" | "task";
  orgId: string;
  spaceId: string;
  staffUserId: string;
  roomId: string | null;
  /** The thread the question was asked in (the answer goes there too); absent or null at a room's top level. */
  threadRootId?: string | null;
  taskId: string | null;
  sourceMessageId: string | null;
  askedBy: string;
  /** The message, or the task's title and description. */
  prompt: string;
  /** A launched cloud-agent run, the message that links it, and when it was launched (epoch ms). */
  run?: { id: string; url: string | null; linkMessageId: string; launchedAt?: number };
  /** A model gateway's tool loop, as far as it got (a restart resumes it). */
  loop?: LoopState;
  /** A retry: the failure reply (a chat message of the staff member) whose text the answer replaces. */
  replaces?: string;
}

const needOf = (trigger: ReplyPayload["trigger"] | "member") =>
  trigger === "chat" ? "chat.write" : trigger === "task" ? "tasks.write" : "member";

/**
 * The staff member acting in a space, with the permission its reply needs (`member`: only seeing the space);
 * null when it may not.
 */
export function staffActor(
  access: Access,
  account: ServiceAccountRow,
  spaceId: string,
  trigger: ReplyPayload["trigger"] | "member",
): SpaceActor | null {
  try {
    return access.spaceActor(
      { userId: account.userId, serviceAccountId: account.id },
      account.orgId,
      spaceId,
      needOf(trigger),
    );
  } catch (error) {
    if (error instanceof AppError) return null;
    throw error;
  }
}

/** Whether a change by `actor` with this text can ask staff: people ask, staff never wake each other, and a mention has an `@`. */
const mayAsk = (actor: Principal, text: string) => actor.serviceAccountId === null && text.includes("@");

/**
 * Handlers of the messages posted (mentions) and the tasks assigned, inside their transaction: the job and the 💭
 * commit with the message or the assignment.
 */
export class ReplyQueue {
  constructor(
    private readonly deps: {
      staff: Pick<StaffService, "mentionables">;
      access: Access;
      chat: ChatService;
      jobs: JobQueue;
    },
  ) {}

  /** Listens to the writes that ask staff. */
  listen(events: EventBus): void {
    events.onWrite("chat.message.created", (event) => this.chatMessagePosted(event), { mayWrite: mayAsk });
    events.onWrite("task.message.created", (event) => this.taskMessagePosted(event), { mayWrite: mayAsk });
    events.onWrite("task.assigned", (event) => this.taskAssigned(event));
  }

  private chatMessagePosted(event: EventOf<"chat.message.created">): void {
    const { message } = event.payload;
    for (const { account, acting } of this.mentionedStaff(event, message.content, "chat")) {
      // The staff member acknowledges at once, through chat like anyone reacting.
      this.deps.chat.react(acting, message.chat_room_id, message.id, THINKING);
      this.enqueue(event, {
        trigger: "chat",
        staffUserId: account.userId,
        roomId: message.chat_room_id,
        threadRootId: message.thread_root_id,
        taskId: null,
        sourceMessageId: message.id,
        prompt: message.content,
      });
    }
  }

  private taskAssigned(event: EventOf<"task.assigned">): void {
    const task = event.payload;
    if (!event.actor || event.actor.serviceAccountId !== null || !task.assignee_user_id) return;
    const member = this.deps.staff.mentionables(event.organization_id).find((m) => m.userId === task.assignee_user_id);
    const account = member && this.staffWhoMay(event, member, "task")?.account;
    if (!account) return;
    const description = task.description.trim() ? `\n\n${task.description.trim()}` : "";
    this.enqueue(event, {
      trigger: "task",
      staffUserId: account.userId,
      roomId: null,
      taskId: task.id,
      sourceMessageId: null,
      prompt: `Task: ${task.title}${description}`,
    });
  }

  private taskMessagePosted(event: EventOf<"task.message.created">): void {
    const message = event.payload;
    for (const { account } of this.mentionedStaff(event, message.content, "task")) {
      this.enqueue(event, {
        trigger: "task",
        staffUserId: account.userId,
        roomId: null,
        taskId: message.task_id,
        sourceMessageId: message.id,
        prompt: message.content,
      });
    }
  }

  /** The staff a person's message mentions who may answer where it was posted. */
  private mentionedStaff(event: DomainEvent, content: string, trigger: ReplyPayload["trigger"]) {
    // The common case costs one string scan.
    if (!event.actor || !mayAsk(event.actor, content)) return [];
    return mentioned(content, this.deps.staff.mentionables(event.organization_id)).flatMap(
      (member) => this.staffWhoMay(event, member, trigger) ?? [],
    );
  }

  /** The member's staff account, acting in the space, when it can see the space and write where it will answer. */
  private staffWhoMay(event: DomainEvent, member: Mentionable, trigger: ReplyPayload["trigger"]) {
    const account = member.staff;
    if (!account || account.userId === event.actor?.userId) return undefined;
    const acting = staffActor(this.deps.access, account, event.space_id, trigger);
    return acting ? { account, acting } : undefined;
  }

  /** Only the job row: its activity entry is written when a worker takes it, off the poster's path. */
  private enqueue(event: DomainEvent, reply: Omit<ReplyPayload, "orgId" | "spaceId" | "askedBy">): void {
    const payload: ReplyPayload = {
      ...reply,
      orgId: event.organization_id,
      spaceId: event.space_id,
      askedBy: event.actor?.userId ?? "",
    };
    this.deps.jobs.enqueue(STAFF_REPLY, payload);
  }
}
