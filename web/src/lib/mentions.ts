/**
 * Mentions, as chat messages and task comments share them. `@` autocomplete: finding the mention being typed
 * at the caret and the members it may name; and finding the mentions in a written text, to highlight them.
 * The rules follow the server's (docs/api.md "AI staff replies"): an `@` right after a letter or digit is not a
 * mention, and a mention is `@Display Name`.
 */
import { useMemo } from "react";
import type { Member } from "../../../src/api-types";
import type { Highlighter } from "./markdown";

/** Someone who can be mentioned. */
export interface Candidate {
  id: string;
  name: string;
  staff: boolean;
}

/** Longest query kept open: past it, the `@` was not a mention. */
const MAX_QUERY = 40;
const WORD = /[\p{L}\p{N}]/u;

/** The mention being typed just before `caret`: where its `@` is and the text after it; null when none. */
export function mentionAt(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret);
  const at = before.lastIndexOf("@");
  if (at < 0) return null;
  if (at > 0 && WORD.test(before[at - 1] as string)) return null;
  const query = before.slice(at + 1);
  if (query.length > MAX_QUERY || /[\n@]/.test(query) || query.startsWith(" ")) return null;
  return { start: at, query };
}

/**
 * The candidates whose name begins with the query, or one of whose words does (`@love` finds "Ada Lovelace");
 * those matching from the start first, people and staff alike, then by name. At most `limit`.
 */
export function matchCandidates(candidates: readonly Candidate[], query: string, limit = 8): Candidate[] {
  const q = query.toLocaleLowerCase();
  const scored: { c: Candidate; rank: number }[] = [];
  for (const c of candidates) {
    const name = c.name.toLocaleLowerCase();
    if (name.startsWith(q)) scored.push({ c, rank: 0 });
    else if (!q.includes(" ") && name.split(/\s+/).some((word) => word.startsWith(q))) scored.push({ c, rank: 1 });
  }
  scored.sort((a, b) => a.rank - b.rank || a.c.name.localeCompare(b.c.name));
  return scored.slice(0, limit).map((s) => s.c);
}

/** The text with the typed mention replaced by `@Name ` and where the caret goes after it. */
export function insertMention(
  text: string,
  mention: { start: number; query: string },
  name: string,
): { text: string; caret: number } {
  const end = mention.start + 1 + mention.query.length;
  const inserted = `@${name} `;
  const after = text.slice(end).replace(/^ /, "");
  return { text: text.slice(0, mention.start) + inserted + after, caret: mention.start + inserted.length };
}

/** Someone a rendered message may mention: every member of the organization, people and staff. */
export interface Mentionable {
  id: string;
  name: string;
  staff: boolean;
}

/** A mention found in a run of text: `[start, end)`, who it names and what to show (`<@id>` shows `@Name`). */
export interface FoundMention {
  start: number;
  end: number;
  userId: string;
  label: string;
}

const BY_ID = /<@([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})>/gi;

/**
 * A finder of the mentions in a run of text, by the server's rule (docs/api.md "AI staff replies"): `<@userId>`
 * of a member, and `@Display Name`, case-insensitive, the longest name that matches, not followed by a letter
 * or digit, with no letter or digit right before the `@`. A name a person and a staff member share names the
 * staff member. Mentions never overlap; the earlier one wins.
 */
export function mentionFinder(members: readonly Mentionable[]): (text: string) => FoundMention[] {
  // Longest first, staff before a person of the very same name: the first match is the one the server picks.
  const byName = members
    .filter((m) => m.name.length > 0)
    .map((m) => ({ ...m, key: m.name.toLowerCase() }))
    .sort((a, b) => b.name.length - a.name.length || Number(b.staff) - Number(a.staff));
  const byId = new Map(members.map((m) => [m.id.toLowerCase(), m]));
  return (text) => {
    if (!text.includes("@")) return [];
    const found: FoundMention[] = [];
    if (text.includes("<@"))
      for (const match of text.matchAll(BY_ID)) {
        const member = byId.get((match[1] as string).toLowerCase());
        if (member)
          found.push({
            start: match.index,
            end: match.index + match[0].length,
            userId: member.id,
            label: `@${member.name}`,
          });
      }
    for (let at = text.indexOf("@"); at !== -1; at = text.indexOf("@", at + 1)) {
      if (at > 0 && WORD.test(text[at - 1] as string)) continue;
      const member = byName.find((m) => {
        const end = at + 1 + m.name.length;
        if (text.slice(at + 1, end).toLowerCase() !== m.key) return false;
        const next = text.codePointAt(end);
        return next === undefined || !WORD.test(String.fromCodePoint(next));
      });
      if (member) {
        const end = at + 1 + member.name.length;
        found.push({ start: at, end, userId: member.id, label: text.slice(at, end) });
      }
    }
    found.sort((a, b) => a.start - b.start);
    const kept: FoundMention[] = [];
    for (const f of found) if (!kept.length || f.start >= (kept[kept.length - 1] as FoundMention).end) kept.push(f);
    return kept;
  };
}

/**
 * The highlighter of mentions in rendered markdown: every member's mention tinted, those of `me` filled and
 * titled "Mentions you" (the `.mention` classes). Make it once per list of names: a new one renders anew.
 */
export function mentionHighlighter(members: readonly Mentionable[], me: string): Highlighter {
  const find = mentionFinder(members);
  return (text) =>
    find(text).map((f) => ({
      start: f.start,
      end: f.end,
      label: f.label,
      className: f.userId === me ? "mention me" : "mention",
      title: f.userId === me ? "Mentions you" : undefined,
    }));
}

/**
 * `mentionHighlighter` of the organization's members, made again only when a name changes, not each time the
 * member list is fetched again: a new highlighter renders every message anew.
 */
export function useMentionHighlighter(members: readonly Member[], me: string): Highlighter {
  const mentionables = JSON.stringify(
    members.map((m) => ({ id: m.user_id, name: m.display_name, staff: m.is_service_account })),
  );
  return useMemo(() => mentionHighlighter(JSON.parse(mentionables) as Mentionable[], me), [mentionables, me]);
}
