/** Pure steps of the workspace's directory (its members and spaces) through the live events that change it. */
import type { Member, Space } from "../../../src/api-types";

/** A member joined (`member.joined`) or changed (`member.updated`): in the list, in joining order. */
export function memberJoined(list: readonly Member[], member: Member): Member[] {
  const at = list.findIndex((m) => m.user_id === member.user_id);
  if (at >= 0) return list.map((m, i) => (i === at ? member : m));
  return [...list, member].sort((a, b) => (a.joined_at < b.joined_at ? -1 : a.joined_at > b.joined_at ? 1 : 0));
}

/** A member left the organization (or a staff member was deleted). */
export function memberLeft(list: readonly Member[], userId: string): Member[] {
  return list.some((m) => m.user_id === userId) ? list.filter((m) => m.user_id !== userId) : (list as Member[]);
}

/** A space the person can see was created: in the list, oldest first. */
export function spaceCreated(list: readonly Space[], space: Space): Space[] {
  if (list.some((s) => s.id === space.id)) return list.map((s) => (s.id === space.id ? space : s));
  return [...list, space].sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
}
