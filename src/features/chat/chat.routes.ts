/** Chat rooms, messages, reactions and attachments (api-spec §4 Chat). */
import { Elysia } from "elysia";
import { z } from "zod";
import type { SpaceActor } from "../../core/actor";
import type { EventBus } from "../../core/events";
import type { PageQuery } from "../../core/paging";
import { pageOf } from "../../core/paging";
import type { AuthMacro } from "../../http/auth";
import { doc } from "../../http/docs";
import { pageQuery } from "../../http/schemas";
import { SpaceJsonCache, sendJson } from "../events/space-cache";
import { presentAttachment, presentMessage, presentReaction, presentRoom } from "./chat.present";
import {
  attachmentOut,
  createRoomIn,
  editMessageIn,
  messageOut,
  postMessageIn,
  reactIn,
  reactionOut,
  roomOut,
  unreactQuery,
} from "./chat.schemas";
import type { ChatService, MessagePage } from "./chat.service";

const pageOut = z.object({
  messages: z.array(messageOut),
  reactions: z.array(reactionOut),
  attachments: z.array(attachmentOut),
});

function presentPage(page: MessagePage) {
  return {
    messages: page.messages.map(presentMessage),
    reactions: page.reactions.map(presentReaction),
    attachments: page.attachments.map(presentAttachment),
  };
}

export function chatRoutes(auth: AuthMacro, chat: ChatService, events: EventBus) {
  // The newest page of a room, what opening it asks for, is kept serialized; older pages are made each time.
  const pages = new SpaceJsonCache(events, "chat.");
  const page = (actor: SpaceActor, roomId: string, query: PageQuery) => {
    const make = () => presentPage(chat.messages(actor, roomId, query));
    if (query.before !== undefined) return JSON.stringify(make());
    return pages.json(actor.space.id, `${roomId}:${pageOf(query).limit}`, make);
  };
  return new Elysia({ prefix: "/api/v1/organizations/:orgId/spaces/:spaceId/chat-rooms" })
    .use(auth)
    .get("", ({ actor }) => ({ chat_rooms: chat.rooms(actor).map(presentRoom) }), {
      space: "member",
      detail: doc("Chat rooms of the space, by creation", { 200: z.object({ chat_rooms: z.array(roomOut) }) }),
    })
    .post("", ({ actor, body, status }) => status(201, presentRoom(chat.createRoom(actor, body.name))), {
      space: "chat.write",
      body: createRoomIn,
      detail: doc("Creates a room; names are unique in the space, ignoring case", {
        201: roomOut,
        409: "`room name already exists`",
      }),
    })
    .delete(
      "/:roomId",
      ({ actor, params, status }) => {
        chat.deleteRoom(actor, params.roomId);
        return status(204);
      },
      {
        space: "chat.write",
        detail: doc("Deletes the room with its messages, reactions and attachments, for good", {
          204: null,
          403: "Not the room's creator, a space owner or org.manage: `only the room's creator or a space owner can delete this room`",
        }),
      },
    )
    .get("/:roomId/messages", ({ actor, params, query, set }) => sendJson(set, page(actor, params.roomId, query)), {
      space: "member",
      query: pageQuery,
      detail: doc(
        "The newest `limit` (default 50, at most 200) messages before `before`, oldest first, with their reactions and attachments",
        {
          200: pageOut,
        },
      ),
    })
    .post(
      "/:roomId/messages",
      async ({ actor, params, body, status }) => status(201, await chat.post(actor, params.roomId, body)),
      {
        space: "chat.write",
        body: postMessageIn,
        detail: doc("Posts a message (content, or attachments by URL, or both)", {
          201: z.object({ message: messageOut, attachments: z.array(attachmentOut) }),
        }),
      },
    )
    .patch(
      "/:roomId/messages/:messageId",
      ({ actor, params, body }) => presentMessage(chat.edit(actor, params.roomId, params.messageId, body.content)),
      {
        space: "member",
        body: editMessageIn,
        detail: doc(
          "Edits a message (its author only)",
          {
            200: messageOut,
            403: "`only the author can edit this message`",
            409: "`message has been deleted`",
          },
          { access: "The message's author" },
        ),
      },
    )
    .delete(
      "/:roomId/messages/:messageId",
      ({ actor, params, status }) => {
        chat.delete(actor, params.roomId, params.messageId);
        return status(204);
      },
      {
        space: "member",
        detail: doc(
          "Soft-deletes a message (its author, or a `chat.write` holder)",
          { 204: null, 403: "`missing permission: chat.write` (someone else's message)" },
          { access: "The message's author, or a holder of `chat.write`" },
        ),
      },
    )
    .post(
      "/:roomId/messages/:messageId/reactions",
      ({ actor, params, body, status }) =>
        status(201, presentReaction(chat.react(actor, params.roomId, params.messageId, body.emoji))),
      {
        space: "chat.write",
        body: reactIn,
        detail: doc("Adds the caller's reaction (one emoji); adding it again answers the same reaction", {
          201: reactionOut,
          400: "`emoji must be a single emoji`",
          409: "`message has been deleted`",
        }),
      },
    )
    .delete(
      "/:roomId/messages/:messageId/reactions",
      ({ actor, params, query, status }) => {
        chat.unreact(actor, params.roomId, params.messageId, query.emoji);
        return status(204);
      },
      {
        space: "chat.write",
        query: unreactQuery,
        detail: doc("Removes the caller's reaction `?emoji=`", {
          204: null,
          400: "`emoji must be a single emoji`",
          404: "`reaction not found`",
        }),
      },
    );
}
