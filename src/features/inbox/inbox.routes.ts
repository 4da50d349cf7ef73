/** Read state, unread counts, the inbox and notification settings (contract §10). */
import { Elysia } from "elysia";
import type { AuthMacro } from "../../http/auth";
import { doc } from "../../http/docs";
import { presentItem, presentRoomUnread, presentSettings } from "./inbox.present";
import {
  inboxOut,
  inboxQuery,
  markReadIn,
  notificationSettingsOut,
  optionalOrgQuery,
  orgQuery,
  putNotificationsIn,
  readRoomIn,
  unreadOut,
} from "./inbox.schemas";
import type { InboxService } from "./inbox.service";

const ORG_404 = "`organization not found`: `org_id` names no organization the caller is a member of";

export function inboxRoutes(auth: AuthMacro, inbox: InboxService) {
  return new Elysia({ prefix: "/api/v1" })
    .use(auth)
    .post(
      "/organizations/:orgId/spaces/:spaceId/chat-rooms/:roomId/read",
      async ({ actor, params, body, status }) => {
        await inbox.readRoom(actor, params.roomId, body.message_id);
        return status(204);
      },
      {
        space: "member",
        body: readRoomIn,
        detail: doc(
          "Marks the room read up to a message, forward only (an older message changes nothing); the caller's other sockets hear `chat.read`",
          () => ({ 204: null, 404: "`chat room not found`; `message not found`" }),
        ),
      },
    )
    .get("/me/unread", ({ actor }) => ({ rooms: inbox.unread(actor).map(presentRoomUnread) }), {
      permission: "member",
      query: orgQuery,
      detail: doc("The rooms the caller can see with something unread in `org_id`, muted ones included", () => ({
        200: unreadOut(),
        404: ORG_404,
      })),
    })
    .get(
      "/me/inbox",
      ({ actor, query }) => {
        const { items, unread } = inbox.inbox(actor, query);
        return { items: items.map(presentItem), unread };
      },
      {
        permission: "member",
        query: inboxQuery,
        detail: doc(
          "The caller's inbox in `org_id`, newest first: `limit` (default 50, at most 200) items before `before`, only unread ones with `unread_only=true`; `unread` counts every unread item",
          () => ({ 200: inboxOut(), 404: ORG_404 }),
        ),
      },
    )
    .post(
      "/me/inbox/read",
      ({ actor, body, status }) => {
        inbox.markRead(actor, body);
        return status(204);
      },
      {
        permission: "member",
        query: optionalOrgQuery,
        body: markReadIn,
        detail: doc(
          "Marks the caller's items in `org_id` (of the body, or of the query as on the other `/me` routes) read: `ids`, or every one with `all: true`",
          () => ({
            204: null,
            400: "`ids: required unless all is true`; `org_id: required`",
            404: ORG_404,
          }),
        ),
      },
    )
    .get("/me/notifications", ({ actor }) => presentSettings(inbox.settings(actor)), {
      permission: "member",
      query: orgQuery,
      detail: doc("The caller's notification settings in `org_id`", () => ({
        200: notificationSettingsOut(),
        404: ORG_404,
      })),
    })
    .put("/me/notifications", ({ actor, body }) => presentSettings(inbox.putSettings(actor, body)), {
      permission: "member",
      query: orgQuery,
      body: putNotificationsIn,
      detail: doc("Changes the caller's notification settings in `org_id` (the fields given)", () => ({
        200: notificationSettingsOut(),
        400: "`muted_space_ids: no such space`; `muted_room_ids: no such chat room`",
        404: ORG_404,
      })),
    });
}
