/**
 * Mentions in a message (contract §4): `<@userId>`, and `@Display Name`, case-insensitive, the longest name
 * that matches, not followed by a letter or digit. An `@` right after a letter or digit is not a mention, so
 * an email address (`ada@example.com`) names no one.
 */
import type { Mentionable } from "./staff.store";

const BY_ID = /<@([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})>/gi;
const WORD_CHAR = /[\p{L}\p{N}]/u;

/** The members a message mentions, each once, in the order first mentioned; `members` longest name first. */
export function mentioned<T extends Mentionable>(content: string, members: readonly T[]): T[] {
  const found: { at: number; member: T }[] = [];
  if (content.includes("<@"))
    for (const match of content.matchAll(BY_ID)) {
      const id = (match[1] as string).toLowerCase();
      const member = members.find((m) => m.userId === id);
      if (member) found.push({ at: match.index, member });
    }
  for (let at = content.indexOf("@"); at !== -1; at = content.indexOf("@", at + 1)) {
    if (at > 0 && WORD_CHAR.test(content[at - 1] as string)) continue;
    const member = members.find((m) => {
      const end = at + 1 + m.name.length;
      if (content.slice(at + 1, end).toLowerCase() !== m.key) return false;
      const next = content.codePointAt(end);
      return next === undefined || !WORD_CHAR.test(String.fromCodePoint(next));
    });
    if (member) found.push({ at, member });
  }
  found.sort((a, b) => a.at - b.at);
  return [...new Set(found.map((f) => f.member))];
}
