/** Request and response schemas of chat rooms, messages, reactions and attachments. */
import { z } from "zod";
import { idIn, lazy, nameIn, oneLine, timestampOut, uuidOut, visible } from "../../http/schemas";
import { isHttpUrl, MAX_CONTENT } from "./chat.policy";

export const roomOut = lazy(() =>
  z
    .object({
      id: uuidOut,
      space_id: uuidOut,
      name: z.string(),
      /** (extension) Who created the room (`general`: the space's creator); null once that account is gone. */
      created_by: uuidOut.nullable(),
      created_at: timestampOut,
    })
    .meta({ id: "ChatRoom" }),
);
export type RoomOut = z.infer<ReturnType<typeof roomOut>>;

export const messageOut = lazy(() =>
  z
    .object({
      id: uuidOut,
      chat_room_id: uuidOut,
      space_id: uuidOut,
      author_user_id: uuidOut.nullable(),
      content: z.string(),
      created_at: timestampOut,
      updated_at: timestampOut,
      edited_at: timestampOut.nullable(),
      deleted_at: timestampOut.nullable(),
      /** (extension) On a message an automation posted (its author is null): the automation. */
      automation_id: uuidOut.optional(),
      /** The top-level message whose thread this reply is in; null for a top-level message. */
      thread_root_id: uuidOut.nullable(),
      /** A reply also shown in the room's own list (false for a top-level message). */
      also_in_room: z.boolean(),
      /** How many live replies the message's thread holds (0 for a reply, which has no thread of its own). */
      reply_count: z.number().int(),
      /** When the newest live reply of its thread was posted; null while it has none. */
      last_reply_at: timestampOut.nullable(),
    })
    .meta({ id: "ChatMessage" }),
);
export type MessageOut = z.infer<ReturnType<typeof messageOut>>;

export const reactionOut = lazy(() =>
  z
    .object({
      message_id: uuidOut,
      user_id: uuidOut,
      emoji: z.string(),
      created_at: timestampOut,
    })
    .meta({ id: "Reaction" }),
);
export type ReactionOut = z.infer<ReturnType<typeof reactionOut>>;

export const attachmentOut = lazy(() =>
  z
    .object({
      id: uuidOut,
      message_id: uuidOut,
      name: z.string(),
      mime: z.string(),
      size_bytes: z.number().int(),
      url: z.string(),
      created_at: timestampOut,
    })
    .meta({ id: "Attachment" }),
);
export type AttachmentOut = z.infer<ReturnType<typeof attachmentOut>>;

export const createRoomIn = z.object({ name: nameIn(80) });

export const attachmentIn = z.object({
  url: z
    .string()
    .trim()
    .max(2048)
    .refine(isHttpUrl, { params: { message: "must be an http(s) URL" } }),
  /** Empty: the URL's last path segment. Otherwise one line with something visible, as every name. */
  name: oneLine(visible(z.string().trim().max(255))).optional(),
  mime: oneLine(z.string().trim().max(255)).optional(),
  size_bytes: z.number().int().min(0).optional(),
});
export type AttachmentIn = z.infer<typeof attachmentIn>;

export const postMessageIn = z.object({
  content: z.string().max(MAX_CONTENT).optional(),
  attachments: z.array(attachmentIn).max(20).optional(),
  /**
   * A message of the same room whose thread the reply goes in (a reply's id: its root's thread); null or absent
   * for a top-level message. Looked up by the service (400 `thread_root_id: ...` when it is not one).
   */
  thread_root_id: idIn.nullable().optional().meta({ format: "uuid" }),
  /** A reply also shown in the room (needs `thread_root_id`). */
  also_in_room: z.boolean().optional(),
});
export type PostMessageIn = z.infer<typeof postMessageIn>;

/** An upload made ready to attach: what `attachments` of a post takes. */
export const uploadedOut = lazy(() =>
  z
    .object({
      url: z.string(),
      name: z.string(),
      mime: z.string(),
      size_bytes: z.number().int(),
    })
    .meta({ id: "ChatUpload" }),
);
export type UploadedOut = z.infer<ReturnType<typeof uploadedOut>>;
/**
 * An edit's `content` is checked by the service after the author is (403 first, docs/api.md: a caller without
 * access learns nothing from a validation message); here it is only described.
 */
export const editMessageIn = z.object({
  content: z.unknown().optional().meta({ type: "string", maxLength: MAX_CONTENT, "x-required": true }),
});
/** Whatever is not one emoji (a number, null, a long string) gets the one message of contract §4. */
const emojiIn = z
  .string({ error: "emoji must be a single emoji" })
  .max(64, { error: "emoji must be a single emoji" })
  .optional()
  .meta({ "x-required": true });
export const reactIn = z.object({ emoji: emojiIn });
export const unreactQuery = z.object({ emoji: emojiIn });
