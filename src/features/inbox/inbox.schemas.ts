/** Request and response schemas of read state, unread counts, the inbox and notification settings (contract §10). */
import { z } from "zod";
import { idIn, lazy, limitIn, timestampIn, timestampOut, uuidIn, uuidOut } from "../../http/schemas";

/**
 * What an inbox item is about. `thread_reply` comes with threads: its source (a reply in a thread the person
 * wrote in) plugs in beside the others in `inbox.sources.ts`.
 */
export const ITEM_KINDS = ["mention", "assigned", "thread_reply", "staff_reply", "approval"] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

export const EMAIL_SETTINGS = ["off", "digest", "all"] as const;
export const DESKTOP_SETTINGS = ["all", "mentions", "none"] as const;

export const inboxItemOut = lazy(() =>
  z
    .object({
      id: uuidOut,
      kind: z.enum(ITEM_KINDS),
      space_id: uuidOut,
      actor_user_id: uuidOut.nullable(),
      chat_room_id: uuidOut.nullable(),
      message_id: uuidOut.nullable(),
      task_id: uuidOut.nullable(),
      automation_id: uuidOut.nullable(),
      proposal_id: uuidOut.nullable(),
      summary: z.string(),
      read_at: timestampOut.nullable(),
      created_at: timestampOut,
    })
    .meta({ id: "InboxItem" }),
);
export type InboxItemOut = z.infer<ReturnType<typeof inboxItemOut>>;

export const inboxOut = lazy(() =>
  z.object({
    items: z.array(inboxItemOut()),
    /** Unread items the caller can see, in all (not only this page). */
    unread: z.number().int(),
  }),
);

export const roomUnreadOut = lazy(() =>
  z
    .object({
      chat_room_id: uuidOut,
      space_id: uuidOut,
      unread: z.number().int(),
      mentions: z.number().int(),
      last_read_message_id: uuidOut.nullable(),
    })
    .meta({ id: "RoomUnread" }),
);
export type RoomUnreadOut = z.infer<ReturnType<typeof roomUnreadOut>>;

export const unreadOut = lazy(() => z.object({ rooms: z.array(roomUnreadOut()) }));

export const notificationSettingsOut = lazy(() =>
  z
    .object({
      email: z.enum(EMAIL_SETTINGS),
      desktop: z.enum(DESKTOP_SETTINGS),
      muted_space_ids: z.array(uuidOut),
      muted_room_ids: z.array(uuidOut),
    })
    .meta({ id: "NotificationSettings" }),
);
export type NotificationSettingsOut = z.infer<ReturnType<typeof notificationSettingsOut>>;

/** `org_id` of a `/me/...` route: any string (one naming no organization of the caller's is a 404). */
const orgIdIn = z.string().max(64);

export const orgQuery = z.object({ org_id: orgIdIn });

export const inboxQuery = z.object({
  org_id: orgIdIn,
  unread_only: z.enum(["true", "false"]).optional().meta({ default: "false" }),
  limit: limitIn.optional(),
  before: timestampIn("invalid before").optional(),
});

export const readRoomIn = z.object({ message_id: idIn });

/** `?org_id=` as the other `/me` routes take it; `POST /me/inbox/read` takes it there or in its body. */
export const optionalOrgQuery = z.object({ org_id: orgIdIn.optional() });

export const markReadIn = z.object({
  /** Required unless the query names it (the permission macro answers `org_id: required` when neither does). */
  org_id: orgIdIn.optional(),
  ids: z.array(uuidIn).max(1000).optional(),
  all: z.boolean().optional(),
});

const mutedIds = z.array(uuidIn).max(1000);

export const putNotificationsIn = z.object({
  email: z.enum(EMAIL_SETTINGS).optional(),
  desktop: z.enum(DESKTOP_SETTINGS).optional(),
  muted_space_ids: mutedIds.optional(),
  muted_room_ids: mutedIds.optional(),
});
export type PutNotificationsIn = z.infer<typeof putNotificationsIn>;
