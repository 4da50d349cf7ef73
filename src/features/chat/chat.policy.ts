/** Chat rules that depend on rows and on what an emoji is. */
import { forbidden, invalid, missingPermission } from "../../http/errors";
import { charCount } from "../../lib/text";
import type { SpaceActor } from "../spaces/spaces.policy";
import type { MessageRow } from "./chat.store";

/** The longest message, in characters (code points, as every length of the API). */
export const MAX_CONTENT = 40_000;

const RGI_EMOJI = /^\p{RGI_Emoji}$/v;
const PICTOGRAPH = /^\p{Extended_Pictographic}$/u;

/**
 * Exactly one emoji: any RGI emoji, so a ZWJ family, a flag, a keycap or a skin-tone form counts as one. A
 * pictograph typed without its emoji presentation selector (`❤`) is stored as its emoji form (`❤️`), so both
 * spellings are one reaction.
 */
export function normalizeEmoji(raw: string | undefined): string {
  const emoji = (raw ?? "").trim();
  if (RGI_EMOJI.test(emoji)) return emoji;
  if (PICTOGRAPH.test(emoji) && RGI_EMOJI.test(`${emoji}\uFE0F`)) return `${emoji}\uFE0F`;
  // A keycap typed without its selector (`1⃣`) is the keycap (`1️⃣`).
  if (/^[0-9#*]\u20E3$/.test(emoji)) return `${emoji[0]}\uFE0F\u20E3`;
  throw invalid("emoji must be a single emoji");
}

/** The new content of an edit: text with something in it, at most `MAX_CONTENT` characters. */
export function assertEditContent(content: unknown): asserts content is string {
  if (content === undefined) throw invalid("content: required");
  if (typeof content !== "string") throw invalid("content: must be a string");
  if (content.trim() === "") throw invalid("content: must not be empty");
  if (charCount(content) > MAX_CONTENT) throw invalid(`content: must be at most ${MAX_CONTENT} characters`);
}

/** Only the author edits a message. */
export function assertCanEdit(actor: SpaceActor, message: MessageRow): void {
  if (message.authorUserId !== actor.userId) throw forbidden("only the author can edit this message");
}

/** The author deletes their own message; anyone else needs `chat.write`. */
export function assertCanDelete(actor: SpaceActor, message: MessageRow): void {
  if (message.authorUserId !== actor.userId && !actor.permissions.has("chat.write")) {
    throw missingPermission("chat.write");
  }
}

/** An http or https URL: attachments are links the server never fetches. */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    // Whitespace or a control character inside would be quietly escaped: not the link that was typed.
    if (/[\s\p{Cc}]/u.test(value)) return false;
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname.length > 0;
  } catch {
    return false;
  }
}
