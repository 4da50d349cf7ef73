/**
 * Unread counts as the sidebar, the room list and the Chat tab show them: a grey number of unread messages
 * (none for a muted room or space) and an accent "@n" for mentions, which is what needs the person.
 */
import { useLocation } from "../../lib/router";
import { useNotificationSettings, useUnreadState } from "./unread";
import { type Count, mutedOf, roomCount, spaceCount } from "./unread-state";

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** A count's badges; nothing when nothing is unread. Read as "2 unread, 1 mention". */
export function Counts({ count }: { count: Count }) {
  return (
    <>
      {count.unread > 0 && (
        <span className="count-pill" title={plural(count.unread, "unread message", "unread messages")}>
          {count.unread}
          {/* Each badge is read apart from the next: the comma goes with this one. */}
          <span className="sr-only"> unread{count.mentions > 0 ? "," : ""}</span>
        </span>
      )}
      {count.mentions > 0 && (
        <span className="mention-pill" title={plural(count.mentions, "mention of you", "mentions of you")}>
          <span aria-hidden="true">@{count.mentions}</span>
          <span className="sr-only">{plural(count.mentions, "mention", "mentions")}</span>
        </span>
      )}
    </>
  );
}

/** The Inbox link's count of unread items. */
export function InboxCount({ count }: { count: number }) {
  if (!count) return null;
  return (
    <span className="mention-pill" title={plural(count, "unread item", "unread items")}>
      {count}
      <span className="sr-only"> unread</span>
    </span>
  );
}

/** The room of `spaceId` whose chat the path shows, if any. */
function openRoom(path: string, spaceId: string): string | null {
  const parts = path.split("/");
  return parts[1] === "spaces" && parts[2] === spaceId && parts[3] === "chat" ? (parts[4] ?? null) : null;
}

/** A space's count as shown, leaving out the room open on screen (it is being read). */
export function useSpaceCount(spaceId: string): Count {
  const state = useUnreadState();
  const muted = mutedOf(useNotificationSettings());
  return spaceCount(state, spaceId, muted, openRoom(useLocation().path, spaceId));
}

/** A room's count as shown. */
export function useRoomCount(spaceId: string, roomId: string): Count {
  const state = useUnreadState();
  return roomCount(state, roomId, spaceId, mutedOf(useNotificationSettings()));
}
