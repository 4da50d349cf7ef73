/** Retrying a staff reply that failed, from its failure reply in a room (docs/api.md "Retrying a failed reply"). */
import { Elysia } from "elysia";
import { z } from "zod";
import type { AuthMacro } from "../../http/auth";
import { doc } from "../../http/docs";
import { lazy, noBodyIn, uuidOut } from "../../http/schemas";
import { assertMayRetry } from "./replies.policy";
import type { ReplyRetry } from "./replies.retry";

const retriedOut = lazy(() =>
  z
    .object({
      job_id: uuidOut,
      staff_user_id: uuidOut,
      chat_room_id: uuidOut,
      source_message_id: uuidOut,
      reply_message_id: uuidOut,
    })
    .meta({ id: "RetriedReply" }),
);

export function repliesRoutes(auth: AuthMacro, retry: ReplyRetry) {
  return new Elysia({ prefix: "/api/v1/organizations/:orgId/spaces/:spaceId/chat-rooms/:roomId/messages" })
    .use(auth)
    .post(
      "/:messageId/retry",
      ({ actor, params, status }) => status(202, retry.retry(actor, params.roomId, params.messageId)),
      {
        space: "chat.write",
        check: assertMayRetry,
        body: noBodyIn,
        detail: doc(
          "Asks the staff member again, for the failure reply `messageId`: a new reply job whose answer replaces that message's text",
          () => ({
            202: retriedOut(),
            400: "`message is not a failed reply`",
            403: "`only a person can retry a reply`",
            404: "`chat room not found`, `message not found`",
            409: "`reply is already being retried`; `the message it answered was deleted`; `the staff member can no longer answer here`",
          }),
          { access: "A person (not a service account) holding `chat.write`" },
        ),
      },
    );
}
