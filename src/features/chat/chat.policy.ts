/** Chat rules that depend on rows and on what an emoji is. */

import type { SpaceActor } from "../../core/actor";
import { forbidden, invalid, missingPermission } from "../../core/errors";
import { charCount, isInvisible } from "../../lib/text";
import type { MessageRow } from "./chat.store";

/** The longest message, in characters (code points, as every length of the API). */
export const MAX_CONTENT = 40_000;

const RGI_EMOJI = /^\p{RGI_Emoji}$/v;
const PICTOGRAPH = /^\p{Extended_Pictographic}$/u;

/** One part of an emoji in its emoji form: `❤` is `❤️`; a part that is an emoji as typed stays as it is. */
function qualified(part: string): string {
  if (RGI_EMOJI.test(part)) return part;
  return PICTOGRAPH.test(part) && RGI_EMOJI.test(`${part}\uFE0F`) ? `${part}\uFE0F` : part;
}

/**
 * Exactly one emoji: any RGI emoji, so a ZWJ family, a flag, a keycap or a skin-tone form counts as one. An
 * emoji typed without its emoji presentation selectors, as keyboards and copy-paste often produce them, is
 * stored in its fully-qualified form, so both spellings are one reaction: `❤` is `❤️`, `1⃣` is `1️⃣`, and in a
 * ZWJ sequence each part is qualified (`🤷‍♀` is `🤷‍♀️`, `🏳‍🌈` is `🏳️‍🌈`). Spaces around it are ignored.
 */
export function normalizeEmoji(raw: string | undefined): string {
  const emoji = (raw ?? "").trim();
  if (RGI_EMOJI.test(emoji)) return emoji;
  // A keycap typed without its selector (`1⃣`) is the keycap (`1️⃣`).
  if (/^[0-9#*]\u20E3$/.test(emoji)) return `${emoji[0]}\uFE0F\u20E3`;
  const candidate = emoji.replaceAll("\uFE0F", "").split("\u200D").map(qualified).join("\u200D");
  if (RGI_EMOJI.test(candidate)) return candidate;
  throw invalid("emoji must be a single emoji");
}

/** The new content of an edit: text with something in it, at most `MAX_CONTENT` characters. */
export function assertEditContent(content: unknown): asserts content is string {
  if (content === undefined) throw invalid("content: required");
  if (typeof content !== "string") throw invalid("content: must be a string");
  if (isInvisible(content)) throw invalid("content: must not be empty");
  if (charCount(content) > MAX_CONTENT) throw invalid(`content: must be at most ${MAX_CONTENT} characters`);
}

/** Only the author edits a message. */
export function assertCanEdit(actor: SpaceActor, message: MessageRow): void {
  if (message.authorUserId !== actor.userId) throw forbidden("only the author can edit this message");
}

/**
 * A room is deleted, with everything said in it, by whoever made it, the space's owners, or an `org.manage`
 * holder: not by any member who can write in the space.
 */
export function assertCanDeleteRoom(actor: SpaceActor, room: { createdBy: string | null }): void {
  const allowed =
    room.createdBy === actor.userId || actor.space.memberRole === "owner" || actor.permissions.has("org.manage");
  if (!allowed) throw forbidden("only the room's creator or a space owner can delete this room");
}

/** The author deletes their own message; anyone else needs `chat.write`. */
export function assertCanDelete(actor: SpaceActor, message: MessageRow): void {
  if (message.authorUserId !== actor.userId && !actor.permissions.has("chat.write")) {
    throw missingPermission("chat.write");
  }
}

/**
 * An http or https URL written out in full (`https://host/...`): attachments are links the server never
 * fetches, stored as they were typed, so they must mean the same to every reader. A browser reads `https:ex.com`
 * or `https:\\ex.com` as a link relative to the page it is on.
 */
export function isHttpUrl(value: string): boolean {
  try {
    if (!/^https?:\/\//i.test(value)) return false;
    const url = new URL(value);
    // Whitespace or a control character inside would be quietly escaped, and a backslash read as a slash: not
    // the link that was typed.
    if (/[\s\p{Cc}\\]/u.test(value)) return false;
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname.length > 0;
  } catch {
    return false;
  }
}
