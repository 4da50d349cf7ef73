/** Request and response schemas of chat rooms, messages, reactions and attachments. */
import { z } from "zod";
import { nameIn, oneLine, timestampOut, uuidOut, visible } from "../../http/schemas";
import { isHttpUrl, MAX_CONTENT } from "./chat.policy";

export const roomOut = z
  .object({
    id: uuidOut,
    space_id: uuidOut,
    name: z.string(),
    /** (extension) Who created the room (`general`: the space's creator); null once that account is gone. */
    created_by: uuidOut.nullable(),
    created_at: timestampOut,
  })
  .meta({ id: "ChatRoom" });
export type RoomOut = z.infer<typeof roomOut>;

export const messageOut = z
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
  })
  .meta({ id: "ChatMessage" });
export type MessageOut = z.infer<typeof messageOut>;

export const reactionOut = z
  .object({
    message_id: uuidOut,
    user_id: uuidOut,
    emoji: z.string(),
    created_at: timestampOut,
  })
  .meta({ id: "Reaction" });
export type ReactionOut = z.infer<typeof reactionOut>;

export const attachmentOut = z
  .object({
    id: uuidOut,
    message_id: uuidOut,
    name: z.string(),
    mime: z.string(),
    size_bytes: z.number().int(),
    url: z.string(),
    created_at: timestampOut,
  })
  .meta({ id: "Attachment" });
export type AttachmentOut = z.infer<typeof attachmentOut>;

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
});
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
