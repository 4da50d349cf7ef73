/**
 * Mentions in a message (contract §4): `<@userId>`, and `@Display Name`, case-insensitive, the longest name
 * that matches, not followed by a letter or digit. An `@` right after a letter or digit is not a mention, so
 * an email address (`ada@example.com`) names no one.
 */
import type { Mentionable } from "./staff.store";

const BY_ID = /<@([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})>/gi;
const WORD_CHAR = /[\p{L}\p{N}]/u;

/** The user ids a message mentions, each once, in the order first mentioned. */
export function mentionedUserIds(content: string, members: readonly Mentionable[]): string[] {
  const found: { at: number; userId: string }[] = [];
  for (const match of content.matchAll(BY_ID)) {
    const id = (match[1] as string).toLowerCase();
    if (members.some((m) => m.userId === id)) found.push({ at: match.index, userId: id });
  }
  const byLength = members
    .filter((m) => m.name.length > 0)
    .map((m) => ({ ...m, key: m.name.toLowerCase() }))
    .sort((a, b) => b.name.length - a.name.length);
  for (let at = content.indexOf("@"); at !== -1; at = content.indexOf("@", at + 1)) {
    if (at > 0 && WORD_CHAR.test(content[at - 1] as string)) continue;
    const member = byLength.find((m) => {
      const end = at + 1 + m.name.length;
      if (content.slice(at + 1, end).toLowerCase() !== m.key) return false;
      const next = content.slice(end).match(/^./su)?.[0];
      return next === undefined || !WORD_CHAR.test(next);
    });
    if (member) found.push({ at, userId: member.userId });
  }
  found.sort((a, b) => a.at - b.at);
  return [...new Set(found.map((f) => f.userId))];
}
