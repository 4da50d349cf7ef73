/** Inbox rows to JSON, field by field. */
import { iso, isoOrNull } from "../../lib/ids";
import type {
  DESKTOP_SETTINGS,
  EMAIL_SETTINGS,
  InboxItemOut,
  ItemKind,
  NotificationSettingsOut,
  RoomUnreadOut,
} from "./inbox.schemas";
import type { ItemRow, RoomUnreadRow } from "./inbox.store";

export function presentItem(row: ItemRow): InboxItemOut {
  return {
    id: row.id,
    kind: row.kind as ItemKind,
    space_id: row.spaceId,
    actor_user_id: row.actorUserId,
    chat_room_id: row.chatRoomId,
    message_id: row.messageId,
    task_id: row.taskId,
    automation_id: row.automationId,
    proposal_id: row.proposalId,
    summary: row.summary,
    read_at: isoOrNull(row.readAt),
    created_at: iso(row.createdAt),
  };
}

export function presentRoomUnread(row: RoomUnreadRow): RoomUnreadOut {
  return {
    chat_room_id: row.roomId,
    space_id: row.spaceId,
    unread: row.unread,
    mentions: row.mentions,
    last_read_message_id: row.lastReadMessageId,
  };
}

/** Settings as the service holds them. */
export interface Settings {
  email: (typeof EMAIL_SETTINGS)[number];
  desktop: (typeof DESKTOP_SETTINGS)[number];
  mutedSpaceIds: string[];
  mutedRoomIds: string[];
}

export function presentSettings(settings: Settings): NotificationSettingsOut {
  return {
    email: settings.email,
    desktop: settings.desktop,
    muted_space_ids: settings.mutedSpaceIds,
    muted_room_ids: settings.mutedRoomIds,
  };
}
