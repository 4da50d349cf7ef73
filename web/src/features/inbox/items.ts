/** How an inbox item is said (its kind in words, with an icon) and where it leads. */
import type { InboxItem, InboxItemKind } from "../../../../src/api-types";
import { listProposals } from "../files/api";

/** Each kind's icon and what it says of the person ("Olivia Owner mentioned you"). */
export const KINDS: Record<InboxItemKind, { icon: string; label: string; verb: string }> = {
  mention: { icon: "@", label: "Mention", verb: "mentioned you" },
  assigned: { icon: "☑", label: "Assigned to you", verb: "assigned you a task" },
  thread_reply: { icon: "↩", label: "Reply", verb: "replied in a thread" },
  staff_reply: { icon: "✦", label: "Staff answer", verb: "answered you" },
  approval: { icon: "⏳", label: "Waiting for approval", verb: "asks for your approval" },
};

/** Said of an item without an actor (an automation's message, a proposal of staff since deleted). */
const WITHOUT_ACTOR: Record<InboxItemKind, string> = {
  mention: "You were mentioned",
  assigned: "A task was assigned to you",
  thread_reply: "A reply in a thread",
  staff_reply: "Former AI staff answered you",
  approval: "Waiting for your approval",
};

/** One line saying who did what: "Olivia Owner mentioned you", "Waiting for your approval". */
export function headline(item: InboxItem, nameOf: (id: string) => string): string {
  return item.actor_user_id ? `${nameOf(item.actor_user_id)} ${KINDS[item.kind].verb}` : WITHOUT_ACTOR[item.kind];
}

/**
 * The address of what the item is about, when it can be told from the item alone: the room (a thread reply's
 * thread, at the reply), the task, the automation. A file proposal needs its file, looked up by `placeOf`.
 */
export function directPlaceOf(item: InboxItem): string | null {
  const space = `/spaces/${item.space_id}`;
  if (item.task_id) return `${space}/board?task=${item.task_id}`;
  // A reply in a thread opens its thread beside the room, at the reply.
  if (item.kind === "thread_reply" && item.chat_room_id && item.message_id)
    return `${space}/chat/${item.chat_room_id}?message=${item.message_id}`;
  if (item.chat_room_id) return `${space}/chat/${item.chat_room_id}`;
  if (item.automation_id) return `${space}/automations/${item.automation_id}`;
  if (item.proposal_id) return null;
  return space;
}

/** The address of what the item is about; a proposal opens its file (or the space's files once resolved). */
export async function placeOf(base: string, item: InboxItem): Promise<string> {
  const direct = directPlaceOf(item);
  if (direct) return direct;
  const files = `/spaces/${item.space_id}/files`;
  try {
    const pending = await listProposals(base, item.space_id, "pending");
    const proposal = pending.find((p) => p.id === item.proposal_id);
    return proposal ? `${files}/${proposal.node_id}` : files;
  } catch {
    return files;
  }
}

/** `items` with those of `ids` (or all) read at `at`; the same item objects where nothing changes. */
export function withRead(items: readonly InboxItem[], ids: readonly string[] | "all", at: string): InboxItem[] {
  const read = ids === "all" ? null : new Set(ids);
  return items.map((i) => (!i.read_at && (read === null || read.has(i.id)) ? { ...i, read_at: at } : i));
}
