/**
 * Where inbox items come from: handlers of the domain events, each writing in the transaction of the write it
 * follows, so an item commits with its assignment, answer or proposal, or not at all. One method per kind. A
 * person's chat post is the exception, the write on the hot path: its items (mentions, thread replies) are written
 * after it commits, in batches (`inbox.batch.ts`). Deleting a subject deletes its items here too.
 */
import type { Principal } from "../../core/actor";
import type { EventBus, EventOf, MayWrite, Unit } from "../../core/events";
import { mentioned } from "../staff/staff.mentions";
import type { Mentionable } from "../staff/staff.service";
import type { PostItems } from "./inbox.batch";
import { type InboxService, type InboxWorld, summaryOf } from "./inbox.service";
import type { PostRow } from "./inbox.store";

/** A change can mention someone only with an `@` in its text: the common post costs one string scan. */
const mayMention: MayWrite = (_actor, text) => text.includes("@");

/**
 * A staff member's post (an answer) makes its items in its own transaction, with the `staff_reply` that follows it
 * there (one item a person per message: the answer's mention or thread reply, else the staff reply). Staff answer
 * one job at a time, never on the hot path.
 */
const byStaff = (actor: Principal | undefined) => actor !== undefined && actor.serviceAccountId !== null;

/** What the sources ask beyond the inbox's world: the organization's directory. */
export interface SourcesWorld extends InboxWorld {
  /** The members of the organization, people and staff, longest name first (as mentions match). */
  directory(orgId: string): readonly Mentionable[];
}

/** The handlers that make inbox items. */
export class InboxSources {
  constructor(
    private readonly inbox: InboxService,
    private readonly world: SourcesWorld,
    /** Null: a person's chat post writes its items in its own transaction, as a staff member's does. */
    private readonly posts: PostItems | null,
  ) {}

  listen(events: EventBus): void {
    // A person's chat post: its items in the batch after it. Only a post that names someone or answers in a thread
    // may make one.
    const posts = this.posts;
    posts?.writeWith((post, unit, once) => this.postItems(post, unit, once));
    if (posts) {
      events.subscribe((e) => {
        if (e.type === "chat.message.created" && !byStaff(e.actor)) {
          const { message } = e.payload;
          if (message.thread_root_id !== null || message.content.includes("@")) posts.posted(postOf(e));
          else posts.passed();
        }
        // Deleted (committed) before its batch: it makes no item.
        else if (e.type === "chat.message.deleted") posts.gone({ message: e.payload.id });
        else if (e.type === "chat.room.deleted") posts.gone({ room: e.payload.id });
      });
    }
    // A staff member's post (and without a batch, anyone's): in its transaction. A reply runs in a savepoint of its
    // own anyway (it writes its root's counts), so only a top-level post that may name someone says it may write.
    const inline = (actor: Principal | undefined) => posts === null || byStaff(actor);
    events.onWrite(
      "chat.message.created",
      (e, unit) => {
        if (inline(e.actor)) this.postItems(postOf(e), unit, false);
      },
      { mayWrite: (actor, text) => inline(actor) && text.includes("@") },
    );
    events.onWrite("task.message.created", (e, unit) => this.taskMentions(e, unit), { mayWrite: mayMention });
    events.onWrite("task.assigned", (e, unit) => this.assigned(e, unit));
    events.onWrite("ai.reply.finished", (e, unit) => this.staffReply(e, unit));
    events.onWrite("ai.reply.failed", (e, unit) => this.staffReply(e, unit));
    events.onWrite("automation.updated", (e, unit) => this.automationApproval(e, unit));
    events.onWrite("file.proposal.created", (e, unit) => this.proposalApproval(e, unit));
    // A subject gone takes its items along.
    events.onWrite("file.proposal.updated", (e) => {
      if (e.payload.status !== "pending") this.inbox.forget({ proposal: e.payload.id });
    });
    events.onWrite("automation.deleted", (e) => this.inbox.forget({ automation: e.payload.id }));
    events.onWrite("chat.message.deleted", (e) => this.inbox.forget({ message: e.payload.id }));
    events.onWrite("chat.room.deleted", (e) => this.inbox.forget({ room: e.payload.id }));
    events.onWrite("task.deleted", (e) => this.inbox.forget({ task: e.payload.id }));
    events.onWrite("member.removed", (e) =>
      this.inbox.forget({ member: { orgId: e.organization_id, userId: e.payload.user_id } }),
    );
  }

  /**
   * The items of a chat post: `mention` for each person it names; for a reply, `thread_reply` for everyone who
   * wrote in its thread before it (the root's author, earlier repliers), once each, but those it names (their
   * mention is the item). Never the poster (`deliver`). `once`: to no one who has an item about it already.
   */
  private postItems(post: PostRow, unit: Unit, once: boolean): void {
    const named = post.content.includes("@") ? this.mentionedPeople(post.orgId, post.content) : [];
    const deliver = (userId: string, kind: "mention" | "thread_reply", summary: string) => {
      if (once && this.inbox.hasItemAbout(userId, post.id)) return;
      this.inbox.deliver(unit, {
        orgId: post.orgId,
        userId,
        kind,
        spaceId: post.spaceId,
        actorUserId: post.authorUserId,
        chatRoomId: post.roomId,
        messageId: post.id,
        summary,
        at: post.createdAt,
      });
    };
    const said = summaryOf(post.content);
    for (const person of named) deliver(person.userId, "mention", said);
    if (post.threadRootId === null) return;
    // A reply of files alone is said by their names.
    const summary = said || summaryOf(post.attachmentNames.join(", "));
    const namedIds = new Set(named.map((person) => person.userId));
    for (const userId of this.inbox.threadAuthors(post.threadRootId, post.createdAt)) {
      if (!namedIds.has(userId)) deliver(userId, "thread_reply", summary);
    }
  }

  /** `mention`: the people a task comment names, in its transaction. */
  private taskMentions(event: EventOf<"task.message.created">, unit: Unit): void {
    const message = event.payload;
    if (!message.content.includes("@")) return;
    for (const person of this.mentionedPeople(event.organization_id, message.content)) {
      this.inbox.deliver(unit, {
        orgId: event.organization_id,
        userId: person.userId,
        kind: "mention",
        spaceId: event.space_id,
        actorUserId: message.author_user_id,
        taskId: message.task_id,
        messageId: message.id,
        summary: summaryOf(message.content),
      });
    }
  }

  /** `assigned`: a task given to someone by someone else. */
  private assigned(event: EventOf<"task.assigned">, unit: Unit): void {
    const task = event.payload;
    if (task.assignee_user_id === null) return;
    this.inbox.deliver(unit, {
      orgId: event.organization_id,
      userId: task.assignee_user_id,
      kind: "assigned",
      spaceId: event.space_id,
      actorUserId: event.actor?.userId ?? null,
      taskId: task.id,
      summary: summaryOf(task.title),
    });
  }

  /**
   * `staff_reply`: a staff member answered the person who asked (a failure reply is an answer too). A reply that
   * also names them is already their mention: one item, not two.
   */
  private staffReply(event: EventOf<"ai.reply.finished" | "ai.reply.failed">, unit: Unit): void {
    const reply = event.payload;
    if (reply.reply_message_id === null || reply.asked_by_user_id === null) return;
    if (this.inbox.hasItemAbout(reply.asked_by_user_id, reply.reply_message_id)) return;
    this.inbox.deliver(unit, {
      orgId: event.organization_id,
      userId: reply.asked_by_user_id,
      kind: "staff_reply",
      spaceId: event.space_id,
      actorUserId: reply.staff_user_id,
      chatRoomId: reply.chat_room_id,
      messageId: reply.reply_message_id,
      taskId: reply.task_id,
      summary: summaryOf(this.inbox.messageText(reply.reply_message_id)),
    });
  }

  /** `approval`: an automation waiting for review, to each person who may approve it; gone once it no longer waits. */
  private automationApproval(event: EventOf<"automation.updated">, unit: Unit): void {
    const automation = event.payload;
    if (automation.status !== "pending_approval") {
      this.inbox.forget({ automation: automation.id });
      return;
    }
    for (const userId of this.approvers(event.organization_id, event.space_id)) {
      this.inbox.deliver(unit, {
        orgId: event.organization_id,
        userId,
        kind: "approval",
        spaceId: event.space_id,
        actorUserId: event.actor?.userId ?? null,
        automationId: automation.id,
        summary: summaryOf(automation.name),
      });
    }
  }

  /** `approval`: a file edit proposal waiting, to each person who may accept it. */
  private proposalApproval(event: EventOf<"file.proposal.created">, unit: Unit): void {
    const proposal = event.payload;
    for (const userId of this.approvers(event.organization_id, event.space_id)) {
      this.inbox.deliver(unit, {
        orgId: event.organization_id,
        userId,
        kind: "approval",
        spaceId: event.space_id,
        actorUserId: proposal.author_user_id,
        proposalId: proposal.id,
        summary: summaryOf(proposal.note) || "A file edit waits for review",
      });
    }
  }

  /** The people a text mentions (staff answer mentions through their replies, not an inbox). */
  private mentionedPeople(orgId: string, text: string): Mentionable[] {
    return mentioned(text, this.world.directory(orgId)).filter((member) => member.staff === null);
  }

  /**
   * Who may resolve an approval in a space: people (never staff) holding `files.write` who see it, as the
   * approve, reject, accept and reject routes require.
   */
  private approvers(orgId: string, spaceId: string): string[] {
    return this.world
      .directory(orgId)
      .filter((member) => member.staff === null)
      .filter((member) => {
        const actor = this.world.memberActor(orgId, member.userId);
        return actor?.permissions.has("files.write") === true && this.world.sees(actor, spaceId);
      })
      .map((member) => member.userId);
  }
}

/** A chat post as its event tells it. */
function postOf(event: EventOf<"chat.message.created">): PostRow {
  const { message, attachments } = event.payload;
  return {
    id: message.id,
    orgId: event.organization_id,
    spaceId: message.space_id,
    roomId: message.chat_room_id,
    authorUserId: message.author_user_id,
    content: message.content,
    threadRootId: message.thread_root_id,
    createdAt: Date.parse(message.created_at),
    attachmentNames: attachments.map((a) => a.name),
  };
}
