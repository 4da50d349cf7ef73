/**
 * Where inbox items come from: handlers of the domain events, each writing in the transaction of the write it
 * follows, so an item commits with its message, assignment, answer or proposal, or not at all. One method per
 * kind. Deleting a subject deletes its items here too.
 */
import type { EventBus, EventOf, MayWrite, Unit } from "../../core/events";
import { mentioned } from "../staff/staff.mentions";
import type { Mentionable } from "../staff/staff.service";
import { type InboxService, type InboxWorld, summaryOf } from "./inbox.service";

/** A change can mention someone only with an `@` in its text: the common post costs one string scan. */
const mayMention: MayWrite = (_actor, text) => text.includes("@");

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
  ) {}

  listen(events: EventBus): void {
    events.onWrite("chat.message.created", (e, unit) => this.chatMentions(e, unit), { mayWrite: mayMention });
    // Registered after the mentions: a person a reply names has their mention, and no second item. It writes
    // only for a reply, whose post runs in a savepoint of its own anyway (it writes its root's counts), so a
    // top-level post is told it never writes.
    events.onWrite("chat.message.created", (e, unit) => this.threadReply(e, unit), { mayWrite: () => false });
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

  /** `mention`: the people a chat message names. */
  private chatMentions(event: EventOf<"chat.message.created">, unit: Unit): void {
    const { message } = event.payload;
    this.mentions(event, unit, message, { chatRoomId: message.chat_room_id });
  }

  /**
   * `thread_reply`: everyone who wrote in the thread before (the root's author, earlier repliers), once each;
   * never the replier, and not those the reply names (their mention is the item).
   */
  private threadReply(event: EventOf<"chat.message.created">, unit: Unit): void {
    const { message, attachments } = event.payload;
    if (message.thread_root_id === null) return;
    // A reply of files alone is said by their names.
    const summary = summaryOf(message.content) || summaryOf(attachments.map((a) => a.name).join(", "));
    const named = message.content.includes("@")
      ? new Set(this.mentionedPeople(event.organization_id, message.content).map((m) => m.userId))
      : null;
    for (const userId of this.inbox.threadAuthors(message.thread_root_id, message.id)) {
      if (named?.has(userId)) continue;
      this.inbox.deliver(unit, {
        orgId: event.organization_id,
        userId,
        kind: "thread_reply",
        spaceId: event.space_id,
        actorUserId: message.author_user_id,
        chatRoomId: message.chat_room_id,
        messageId: message.id,
        summary,
      });
    }
  }

  /** `mention`: the people a task comment names. */
  private taskMentions(event: EventOf<"task.message.created">, unit: Unit): void {
    const message = event.payload;
    this.mentions(event, unit, message, { taskId: message.task_id });
  }

  /** A `mention` item for each person `message` names, about the room or the task it was written in. */
  private mentions(
    event: { organization_id: string; space_id: string },
    unit: Unit,
    message: { id: string; content: string; author_user_id: string | null },
    place: { chatRoomId: string } | { taskId: string },
  ): void {
    if (!message.content.includes("@")) return;
    for (const person of this.mentionedPeople(event.organization_id, message.content)) {
      this.inbox.deliver(unit, {
        orgId: event.organization_id,
        userId: person.userId,
        kind: "mention",
        spaceId: event.space_id,
        actorUserId: message.author_user_id,
        ...place,
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
