/**
 * The palette's "Jump to" entries: spaces, rooms, people and staff of the workspace, found by any part of their
 * name (ignoring case and accents), whole names and names starting with the words first.
 */
import type { ChatRoom, Member, Space } from "../../../../src/api-types";

/** Something the palette can go to. */
export interface JumpEntry {
  key: string;
  kind: "space" | "room" | "person" | "staff" | "task" | "file";
  label: string;
  /** Where it is, in words ("Launch", "Person"). */
  detail: string;
  href: string;
}

/** Lower case without accents, as names are compared. */
export function fold(text: string): string {
  return text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

/** How well `label` matches the words: 0 when one is missing, higher when it starts or is the label. */
export function nameScore(label: string, words: readonly string[]): number {
  const name = fold(label);
  let score = 1;
  for (const word of words) {
    const at = name.indexOf(word);
    if (at < 0) return 0;
    if (at === 0) score += 2;
    else if (/[^\p{L}\p{N}]/u.test(name[at - 1] ?? "")) score += 1;
  }
  if (name === words.join(" ")) score += 4;
  return score;
}

/** The query's words, folded. */
export function wordsOf(q: string): string[] {
  return fold(q).split(/\s+/).filter(Boolean);
}

/** Every place and person the palette offers, before matching. */
export function jumpEntries(input: {
  spaces: readonly Space[];
  rooms: ReadonlyMap<string, readonly ChatRoom[]>;
  members: readonly Member[];
  /** The space a person's tasks are shown in: the one on screen, else the first. */
  homeSpace: Space | null;
}): JumpEntry[] {
  const entries: JumpEntry[] = [];
  for (const space of input.spaces) {
    entries.push({
      key: `space:${space.id}`,
      kind: "space",
      label: space.name,
      detail: space.private ? "Private space" : "Space",
      href: `/spaces/${space.id}`,
    });
  }
  for (const space of input.spaces) {
    for (const room of input.rooms.get(space.id) ?? []) {
      entries.push({
        key: `room:${room.id}`,
        kind: "room",
        label: `#${room.name}`,
        detail: `Room in ${space.name}`,
        href: `/spaces/${space.id}/chat/${room.id}`,
      });
    }
  }
  for (const member of input.members) {
    if (member.is_service_account) {
      entries.push({
        key: `staff:${member.user_id}`,
        kind: "staff",
        label: member.display_name,
        detail: "AI staff",
        href: `/staff/${member.user_id}`,
      });
    } else if (input.homeSpace) {
      const space = input.homeSpace;
      entries.push({
        key: `person:${member.user_id}`,
        kind: "person",
        label: member.display_name,
        detail: `Person · their tasks in ${space.name}`,
        href: `/spaces/${space.id}/board?assignee=${member.user_id}`,
      });
    }
  }
  return entries;
}

/** The entries matching `q`, best first, at most `limit`. */
export function matchEntries(entries: readonly JumpEntry[], q: string, limit: number): JumpEntry[] {
  const words = wordsOf(q);
  if (words.length === 0) return [];
  return entries
    .map((entry) => ({ entry, score: nameScore(entry.label.replace(/^#/, ""), words) }))
    .filter((e) => e.score > 0)
    .sort((a, b) => b.score - a.score || a.entry.label.localeCompare(b.entry.label))
    .slice(0, limit)
    .map((e) => e.entry);
}
