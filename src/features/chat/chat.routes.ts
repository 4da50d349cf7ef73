/** Chat rooms, messages, reactions and attachments (api-spec §4 Chat). */
import { Elysia } from "elysia";
import { z } from "zod";
import type { SpaceActor } from "../../core/actor";
import type { EventBus } from "../../core/events";
import type { PageQuery } from "../../core/paging";
import { pageOf } from "../../core/paging";
import type { AuthMacro } from "../../http/auth";
import { doc } from "../../http/docs";
import { multipartFile } from "../../http/multipart";
import { originOf } from "../../http/origin";
import { lazy, pageQuery } from "../../http/schemas";
import { SpaceJsonCache, sendJson } from "../events/space-cache";
import { presentNode } from "../files/files.present";
import { nodeOut } from "../files/files.schemas";
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
  uploadedOut,
} from "./chat.schemas";
import type { ChatService, MessagePage, ThreadPage } from "./chat.service";

const pageOut = lazy(() =>
  z.object({
    messages: z.array(messageOut()),
    reactions: z.array(reactionOut()),
    attachments: z.array(attachmentOut()),
  }),
);

const threadOut = lazy(() =>
  pageOut().extend({
    /** (extension) The thread's root, with its own reactions and attachments. */
    root: z.object({ message: messageOut(), reactions: z.array(reactionOut()), attachments: z.array(attachmentOut()) }),
  }),
);

function presentPage(page: MessagePage) {
  return {
    messages: page.messages.map(presentMessage),
    reactions: page.reactions.map(presentReaction),
    attachments: page.attachments.map(presentAttachment),
  };
}

function presentThread(page: ThreadPage) {
  const { root } = page;
  return {
    ...presentPage(page),
    root: {
      message: presentMessage(root.message),
      reactions: root.reactions.map(presentReaction),
      attachments: root.attachments.map(presentAttachment),
    },
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
      detail: doc("Chat rooms of the space, by creation", () => ({
        200: z.object({ chat_rooms: z.array(roomOut()) }),
      })),
    })
    .post("", ({ actor, body, status }) => status(201, presentRoom(chat.createRoom(actor, body.name))), {
      space: "chat.write",
      body: createRoomIn,
      detail: doc("Creates a room; names are unique in the space, ignoring case", () => ({
        201: roomOut(),
        409: "`room name already exists`",
      })),
    })
    .delete(
      "/:roomId",
      ({ actor, params, status }) => {
        chat.deleteRoom(actor, params.roomId);
        return status(204);
      },
      {
        space: "chat.write",
        detail: doc("Deletes the room with its messages, reactions and attachments, for good", () => ({
          204: null,
          403: "Not the room's creator, a space owner or org.manage: `only the room's creator or a space owner can delete this room`",
        })),
      },
    )
    .get("/:roomId/messages", ({ actor, params, query, set }) => sendJson(set, page(actor, params.roomId, query)), {
      space: "member",
      query: pageQuery,
      detail: doc(
        "The newest `limit` (default 50, at most 200) messages before `before`, oldest first, with their reactions and attachments",
        () => ({
          200: pageOut(),
        }),
      ),
    })
    .post(
      "/:roomId/messages",
      async ({ actor, params, body, status }) => status(201, await chat.post(actor, params.roomId, body)),
      {
        space: "chat.write",
        body: postMessageIn,
        detail: doc(
          "Posts a message (content, or attachments by URL, or both); with `thread_root_id`, a reply in that message's thread (`also_in_room`: shown in the room too)",
          () => ({
            201: z.object({ message: messageOut(), attachments: z.array(attachmentOut()) }),
            400: "`content: required`; `thread_root_id: no such message in this room`; `thread_root_id: message has been deleted` (a deleted message without a thread); `also_in_room: needs thread_root_id`",
          }),
        ),
      },
    )
    .get(
      "/:roomId/messages/:messageId/replies",
      ({ actor, params, query }) => presentThread(chat.replies(actor, params.roomId, params.messageId, query)),
      {
        space: "member",
        query: pageQuery,
        detail: doc(
          "The thread of a message (of a reply: the thread it is in): its newest `limit` (default 50, at most 200) replies before `before`, oldest first, with their reactions and attachments, and its root",
          () => ({ 200: threadOut(), 404: "`message not found`" }),
        ),
      },
    )
    .post(
      "/:roomId/uploads",
      async ({ actor, params, request, status }) => {
        const { node, attachment } = await chat.upload(actor, params.roomId, multipartFile(request), originOf(request));
        return status(201, { attachment, node: presentNode(node) });
      },
      {
        space: "chat.write",
        detail: doc(
          "Uploads a file for a message into the space's Attachments folder (created when missing), under a free name: multipart/form-data with `file`, streamed. Post `attachment` in the message's `attachments`",
          () => ({
            201: z.object({ attachment: uploadedOut(), node: nodeOut() }),
            400: "`content-type must be multipart/form-data`; `file: required`",
            409: "`a file named Attachments is in the way` (a root file, not a folder, has the name)",
            413: "Over TANDEM_MAX_UPLOAD_BYTES: `file too large`",
          }),
          {
            body: {
              "multipart/form-data": {
                type: "object",
                properties: { file: { type: "string", format: "binary" } },
                required: ["file"],
              },
            },
          },
        ),
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
          () => ({
            200: messageOut(),
            403: "`only the author can edit this message`",
            409: "`message has been deleted`",
          }),
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
          () => ({ 204: null, 403: "`missing permission: chat.write` (someone else's message)" }),
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
        detail: doc("Adds the caller's reaction (one emoji); adding it again answers the same reaction", () => ({
          201: reactionOut(),
          400: "`emoji must be a single emoji`",
          409: "`message has been deleted`",
        })),
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
        detail: doc("Removes the caller's reaction `?emoji=`", () => ({
          204: null,
          400: "`emoji must be a single emoji`",
          404: "`reaction not found`",
        })),
      },
    );
}
