/**
 * Mentions in a message (contract §4): `<@userId>`, and `@Display Name`, case-insensitive, the longest name
 * that matches, not followed by a letter or digit. An `@` right after a letter or digit is not a mention, so
 * an email address (`ada@example.com`) names no one.
 */
import type { Mentionable } from "./staff.store";

const BY_ID = /<@([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})>/gi;
const WORD_CHAR = /[\p{L}\p{N}]/u;

/**
 * The members by the length of their name, longest first, then by their folded name: the first of `members`
 * (in its order) for each. A mention is looked up once per length rather than compared with every member: with
 * 200 members, comparing each was most of the cost of a post that names someone.
 */
type ByLength<T> = { length: number; byKey: Map<string, T> }[];
const indexes = new WeakMap<readonly Mentionable[], ByLength<Mentionable>>();

function indexOf<T extends Mentionable>(members: readonly T[]): ByLength<T> {
  const known = indexes.get(members);
  if (known) return known as ByLength<T>;
  const lengths = new Map<number, Map<string, T>>();
  for (const member of members) {
    let byKey = lengths.get(member.name.length);
    if (!byKey) {
      byKey = new Map();
      lengths.set(member.name.length, byKey);
    }
    if (!byKey.has(member.key)) byKey.set(member.key, member);
  }
  const index = [...lengths].map(([length, byKey]) => ({ length, byKey })).sort((a, b) => b.length - a.length);
  indexes.set(members, index);
  return index;
}

/**
 * The last answer: a post is scanned by two handlers of its event (staff replies and the inbox), with the same
 * text and the same directory, one right after the other.
 */
let last: { content: string; members: readonly Mentionable[]; found: readonly Mentionable[] } | undefined;

/** The members a message mentions, each once, in the order first mentioned; `members` longest name first. */
export function mentioned<T extends Mentionable>(content: string, members: readonly T[]): T[] {
  if (last?.content === content && last.members === members) return [...(last.found as readonly T[])];
  const found = scan(content, members);
  last = { content, members, found };
  return [...found];
}

function scan<T extends Mentionable>(content: string, members: readonly T[]): T[] {
  const found: { at: number; member: T }[] = [];
  if (content.includes("<@"))
    for (const match of content.matchAll(BY_ID)) {
      const id = (match[1] as string).toLowerCase();
      const member = members.find((m) => m.userId === id);
      if (member) found.push({ at: match.index, member });
    }
  for (let at = content.indexOf("@"); at !== -1; at = content.indexOf("@", at + 1)) {
    if (at > 0 && WORD_CHAR.test(content[at - 1] as string)) continue;
    for (const { length, byKey } of indexOf(members)) {
      const end = at + 1 + length;
      const member = byKey.get(content.slice(at + 1, end).toLowerCase());
      if (!member) continue;
      const next = content.codePointAt(end);
      if (next !== undefined && WORD_CHAR.test(String.fromCodePoint(next))) continue;
      found.push({ at, member });
      break;
    }
  }
  found.sort((a, b) => a.at - b.at);
  return [...new Set(found.map((f) => f.member))];
}
