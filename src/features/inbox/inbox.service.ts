/**
 * What needs a person (contract §10): how far they read each room, what is unread, their inbox, their
 * notification settings. Items are written by the handlers of the domain events (`inbox.sources.ts`) through
 * `deliver`, in the transaction of the write they follow, or for a person's chat post in the batch after it
 * (`inbox.batch.ts`), which every read of an inbox writes first; nothing here is called by another feature's
 * service.
 */
import type { OrgActor, SpaceActor } from "../../core/actor";
import { invalid, notFound } from "../../core/errors";
import type { Unit } from "../../core/events";
import { pageOf } from "../../core/paging";
import type { GroupCommit } from "../../db/group-commit";
import type { UnitOfWork } from "../../db/unit";
import { isUuid, newId, nextStamp } from "../../lib/ids";
import type { PostItems } from "./inbox.batch";
import { presentItem, type Settings } from "./inbox.present";
import type { ItemKind, PutNotificationsIn } from "./inbox.schemas";
import type { InboxStore, ItemRow, RoomUnreadRow } from "./inbox.store";

/**
 * The defaults, as Slack users expect them: email a digest of what waited unread, and show every inbox item on
 * the desktop (items are already only what needs the person; `mentions` narrows it to mentions).
 */
export const DEFAULT_SETTINGS: Settings = { email: "digest", desktop: "all", mutedSpaceIds: [], mutedRoomIds: [] };

/** The longest summary: one line of a message, enough for a sidebar or a notification. */
const SUMMARY_MAX = 200;

/** A message's text as one short line. */
export function summaryOf(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  // No more UTF-16 units than the limit: no more characters either (splitting into characters costs µs).
  if (line.length <= SUMMARY_MAX) return line;
  const chars = [...line];
  return chars.length <= SUMMARY_MAX ? line : `${chars.slice(0, SUMMARY_MAX - 1).join("")}…`;
}

/** What the inbox asks of the rest of the organization. */
export interface InboxWorld {
  /** The spaces the actor can see. */
  visibleSpaceIds(actor: OrgActor): string[];
  /** The user as a member of the organization; null when they are not one. */
  memberActor(orgId: string, userId: string): OrgActor | null;
  /** Whether the actor sees the space. */
  sees(actor: OrgActor, spaceId: string): boolean;
  /** Whether the member is staff (staff have no inbox: they are asked through mentions and assignments). */
  isStaff(orgId: string, userId: string): boolean;
}

/** An item to deliver: who gets it, what it is about, and who caused it. */
export interface ItemDraft {
  orgId: string;
  userId: string;
  kind: ItemKind;
  spaceId: string;
  actorUserId: string | null;
  chatRoomId?: string | null;
  messageId?: string | null;
  taskId?: string | null;
  automationId?: string | null;
  proposalId?: string | null;
  summary: string;
  /**
   * When what it is about happened, when that was before now (a chat post whose item is written in the batch after
   * it): the item's time (the first millisecond from then that none of the person's items has), so the inbox
   * lists items in the order what they are about happened, even when an item written meanwhile is newer.
   */
  at?: number;
}

/** The inbox feature's operations. */
export class InboxService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: InboxStore,
    /** Reading a room is frequent (every room a person looks at, as messages arrive): it commits in groups. */
    private readonly writes: GroupCommit,
    private readonly world: InboxWorld,
    /** The items of chat posts waiting for their batch: written before any read of an inbox. */
    /** Null: every post's items are written in its own transaction (PostgreSQL). */
    private readonly posts: PostItems | null,
  ) {}

  /** At start: the items of the chat posts a crash left waiting. */
  start(): void {
    this.posts?.start();
  }

  /** At stop: the items of the chat posts waiting. */
  stop(): void {
    this.posts?.stop();
  }

  // Read state

  /**
   * Moves the caller's read position in the room to the message, forward only (an older or the same message
   * changes nothing); their items about the room's messages up to it are read with it. Their tabs and devices
   * hear `chat.read`, and `inbox.read` when items were read with it.
   */
  async readRoom(actor: SpaceActor, roomId: string, messageId: string): Promise<void> {
    // The items of the posts read are written before they are read (a post stored later is later in the room).
    this.posts?.flush();
    const room = isUuid(roomId) ? this.store.room(actor.space.id, roomId) : undefined;
    if (!room) throw notFound("chat room not found");
    const message = isUuid(messageId) ? this.store.message(room.id, messageId) : undefined;
    if (!message) throw notFound("message not found");
    const { threadRootId } = message;
    if (threadRootId !== null && !message.alsoInRoom) {
      await this.readThread(actor, room, threadRootId, message.createdAt);
      return;
    }
    await this.writes.run((unit) => {
      actor.recheck?.();
      const current = this.store.readState(actor.userId, room.id);
      if (current && current.messageCreatedAt >= message.createdAt) return;
      const now = Date.now();
      this.store.putReadState({
        userId: actor.userId,
        roomId: room.id,
        messageId: message.id,
        messageCreatedAt: message.createdAt,
        updatedAt: now,
      });
      const itemIds = this.store.readRoomItems(actor.userId, room.id, message.createdAt, now);
      unit.emit({
        type: "chat.read",
        organization_id: actor.orgId,
        space_id: room.spaceId,
        payload: { chat_room_id: room.id, message_id: message.id },
        actor,
        to: actor.userId,
      });
      if (itemIds.length > 0) this.emitRead(unit, actor, room.spaceId, itemIds);
    });
  }

  /**
   * Reading a thread up to one of its replies (which the room's own list does not show): the caller's items
   * about its replies up to it are read, their tabs and devices hear `inbox.read`; the room's read position
   * stays where it is.
   */
  private async readThread(
    actor: SpaceActor,
    room: { id: string; spaceId: string },
    rootId: string,
    upTo: number,
  ): Promise<void> {
    await this.writes.run((unit) => {
      actor.recheck?.();
      const ids = this.store.readThreadItems(actor.userId, room.id, rootId, upTo, Date.now());
      if (ids.length > 0) this.emitRead(unit, actor, room.spaceId, ids);
    });
  }

  private emitRead(unit: Unit, actor: SpaceActor, spaceId: string, ids: string[]): void {
    unit.emit({
      type: "inbox.read",
      organization_id: actor.orgId,
      space_id: spaceId,
      payload: { ids },
      actor,
      to: actor.userId,
    });
  }

  /** Who wrote in the thread of `rootId` before `before` (a reply's time): the root's author and earlier repliers. */
  threadAuthors(rootId: string, before: number): string[] {
    return this.store.threadAuthors(rootId, before);
  }

  /** The rooms the caller can see with something unread, muted ones included. */
  unread(actor: OrgActor): RoomUnreadRow[] {
    this.posts?.flush();
    const joinedAt = this.store.joinedAt(actor.orgId, actor.userId) ?? Number.MAX_SAFE_INTEGER;
    return this.store
      .unreadRooms(actor.userId, joinedAt, this.world.visibleSpaceIds(actor))
      .filter((room) => room.unread > 0);
  }

  // Inbox

  /** A page of the caller's items in the spaces they can see, newest first, and how many are unread in all. */
  inbox(
    actor: OrgActor,
    query: { unread_only?: "true" | "false" | undefined; limit?: number | undefined; before?: string | undefined },
  ): { items: ItemRow[]; unread: number } {
    this.posts?.flush();
    const spaces = this.world.visibleSpaceIds(actor);
    const { limit, before } = pageOf(query);
    const items = this.store.items(actor.userId, actor.orgId, spaces, {
      unreadOnly: query.unread_only === "true",
      before,
      limit,
    });
    return { items, unread: this.store.unreadItems(actor.userId, actor.orgId, spaces) };
  }

  /**
   * Marks the caller's items read: the given ones (others' or unknown ids are ignored), or all of them. Their
   * tabs and devices hear `inbox.read` with the ids that were unread (or `all`); nothing read sends nothing.
   */
  markRead(actor: OrgActor, input: { ids?: string[] | undefined; all?: boolean | undefined }): void {
    if (input.all !== true && input.ids === undefined) throw invalid("ids: required unless all is true");
    const ids = input.all === true ? null : (input.ids ?? []);
    if (ids !== null && ids.length === 0) return;
    this.posts?.flush();
    this.uow.write((unit) => {
      const read = this.store.markRead(actor.userId, actor.orgId, ids, Date.now());
      if (read === 0 || (Array.isArray(read) && read.length === 0)) return;
      unit.emit({
        type: "inbox.read",
        organization_id: actor.orgId,
        space_id: "",
        payload: Array.isArray(read) ? { ids: read } : { all: true },
        actor,
        to: actor.userId,
      });
    });
  }

  /**
   * Writes an item in `unit` (of the write it follows, or of a batch after it) and tells the person's sockets.
   * Nothing the person did themselves, nothing for staff, nothing in a space they cannot see; in a room or space
   * they muted, only a mention. An approval is delivered once per person and subject.
   */
  deliver(unit: Unit, draft: ItemDraft): void {
    if (draft.userId === draft.actorUserId) return;
    if (this.world.isStaff(draft.orgId, draft.userId)) return;
    const member = this.world.memberActor(draft.orgId, draft.userId);
    if (!member || !this.world.sees(member, draft.spaceId)) return;
    if (draft.kind !== "mention" && this.isMuted(draft)) return;
    const row: ItemRow = {
      id: newId(),
      orgId: draft.orgId,
      userId: draft.userId,
      kind: draft.kind,
      spaceId: draft.spaceId,
      actorUserId: draft.actorUserId,
      chatRoomId: draft.chatRoomId ?? null,
      messageId: draft.messageId ?? null,
      taskId: draft.taskId ?? null,
      automationId: draft.automationId ?? null,
      proposalId: draft.proposalId ?? null,
      summary: draft.summary,
      readAt: null,
      createdAt:
        draft.at === undefined
          ? nextStamp(this.store.latestItemAt(draft.userId))
          : this.store.freeItemTime(draft.userId, draft.at),
      emailedAt: null,
    };
    if (draft.kind === "approval") {
      if (!this.store.insertItemOnce(row)) return;
    } else {
      this.store.insertItem(row);
    }
    unit.emit({
      type: "inbox.item",
      organization_id: row.orgId,
      space_id: row.spaceId,
      payload: presentItem(row),
      to: row.userId,
    });
  }

  private isMuted(draft: ItemDraft): boolean {
    const settings = this.store.settings(draft.orgId, draft.userId);
    if (!settings) return false;
    if ((JSON.parse(settings.mutedSpaceIds) as string[]).includes(draft.spaceId)) return true;
    return draft.chatRoomId != null && (JSON.parse(settings.mutedRoomIds) as string[]).includes(draft.chatRoomId);
  }

  /** Whether the user has an item about the message already. */
  hasItemAbout(userId: string, messageId: string): boolean {
    return this.store.hasItemAbout(userId, messageId);
  }

  /** The text of a message, for the summary of an item about it. */
  messageText(messageId: string): string {
    return this.store.messageText(messageId);
  }

  /** For email: the oldest `limit` items neither read nor emailed, made at or before `before`, of everyone. */
  awaitingEmail(before: number, limit: number): ItemRow[] {
    this.posts?.flush();
    return this.store.awaitingEmail(before, limit);
  }

  /** Email dealt with these items (sent them, or passed them over): it looks at them no more. */
  markEmailed(ids: readonly string[]): void {
    if (ids.length === 0) return;
    this.uow.write(() => this.store.markEmailed(ids, Date.now()));
  }

  /** What goes with a deleted subject (see docs/api.md): its items, and for a room, everyone's read state. */
  forget(
    subject:
      | { message: string }
      | { task: string }
      | { room: string }
      | { automation: string }
      | { proposal: string }
      | { member: { orgId: string; userId: string } },
  ): void {
    if ("message" in subject) this.store.dropMessage(subject.message);
    else if ("task" in subject) this.store.dropTask(subject.task);
    else if ("room" in subject) this.store.dropRoom(subject.room);
    else if ("automation" in subject) this.store.dropAutomationApprovals(subject.automation);
    else if ("proposal" in subject) this.store.dropProposalApprovals(subject.proposal);
    else this.store.forgetMember(subject.member.orgId, subject.member.userId);
  }

  // Notification settings

  /** The caller's settings; muted rooms and spaces they can no longer see (or that are gone) are not listed. */
  settings(actor: OrgActor): Settings {
    const row = this.store.settings(actor.orgId, actor.userId);
    if (!row) return { ...DEFAULT_SETTINGS };
    const visible = new Set(this.world.visibleSpaceIds(actor));
    const rooms = this.store.liveRooms(JSON.parse(row.mutedRoomIds) as string[]);
    return {
      email: row.email as Settings["email"],
      desktop: row.desktop as Settings["desktop"],
      mutedSpaceIds: (JSON.parse(row.mutedSpaceIds) as string[]).filter((id) => visible.has(id)),
      mutedRoomIds: rooms.filter((room) => visible.has(room.spaceId)).map((room) => room.id),
    };
  }

  /**
   * Changes the fields given; the others keep their value. A muted space or room must be one the caller can
   * see (400 otherwise, the same for one that does not exist).
   */
  putSettings(actor: OrgActor, input: PutNotificationsIn): Settings {
    const visible = new Set(this.world.visibleSpaceIds(actor));
    const spaces = input.muted_space_ids && [...new Set(input.muted_space_ids)];
    if (spaces?.some((id) => !visible.has(id))) throw invalid("muted_space_ids: no such space");
    const roomIds = input.muted_room_ids && [...new Set(input.muted_room_ids)];
    if (roomIds) {
      const live = this.store.liveRooms(roomIds).filter((room) => visible.has(room.spaceId));
      if (live.length !== roomIds.length) throw invalid("muted_room_ids: no such chat room");
    }
    return this.uow.write(() => {
      const current = this.settings(actor);
      const next: Settings = {
        email: input.email ?? current.email,
        desktop: input.desktop ?? current.desktop,
        mutedSpaceIds: spaces ?? current.mutedSpaceIds,
        mutedRoomIds: roomIds ?? current.mutedRoomIds,
      };
      this.store.putSettings({
        orgId: actor.orgId,
        userId: actor.userId,
        email: next.email,
        desktop: next.desktop,
        mutedSpaceIds: JSON.stringify(next.mutedSpaceIds),
        mutedRoomIds: JSON.stringify(next.mutedRoomIds),
        updatedAt: Date.now(),
      });
      return next;
    });
  }
}
