/** The rooms of a space beside the open one: unread counts and mentions, staff answering, and "New room". */
import type { ChatRoom } from "../../../../src/api-types";
import { Link } from "../../lib/router";
import { Counts } from "../inbox/Counts";
import { useNotificationSettings, useUnreadState } from "../inbox/unread";
import { mutedOf, roomCount } from "../inbox/unread-state";
import type { Thinking } from "./chat-types";
import { PlusIcon } from "./icons";

/** The room list (a menu on narrow screens, `open` there); the open room's count is not shown. */
export function RoomList({
  spaceId,
  rooms,
  currentId,
  thinking,
  canWrite,
  open: roomsOpen,
  onClose,
  onCreate,
}: {
  spaceId: string;
  rooms: readonly ChatRoom[];
  currentId: string | null;
  thinking: Readonly<Record<string, readonly Thinking[]>>;
  canWrite: boolean;
  open: boolean;
  onClose: () => void;
  onCreate: () => void;
}) {
  const state = useUnreadState();
  const settings = useNotificationSettings();
  const muted = mutedOf(settings);
  return (
    <nav
      className="chat-rooms"
      id="chat-rooms"
      aria-label="Rooms"
      onKeyDown={(event) => {
        if (event.key === "Escape" && roomsOpen) onClose();
      }}
    >
      <div className="chat-rooms-head">
        <h2>Rooms</h2>
        {canWrite && (
          <button type="button" className="icon" aria-label="New room" title="New room" onClick={onCreate}>
            <PlusIcon />
          </button>
        )}
      </div>
      <ul className="list chat-room-list">
        {rooms.map((room) => {
          const count = room.id === currentId ? { unread: 0, mentions: 0 } : roomCount(state, room.id, spaceId, muted);
          const quiet = muted.rooms.has(room.id) || muted.spaces.has(spaceId);
          const busy = (thinking[room.id]?.length ?? 0) > 0;
          return (
            <li key={room.id}>
              <Link
                href={`/spaces/${spaceId}/chat/${room.id}`}
                className={`chat-room-link${room.id === currentId ? " active" : ""}${
                  count.unread || count.mentions ? " unread" : ""
                }${quiet ? " muted-room" : ""}`}
                aria-current={room.id === currentId ? "page" : undefined}
              >
                <span className="muted" aria-hidden="true">
                  #
                </span>
                <span className="grow">{room.name}</span>
                {busy && (
                  <span title="A staff member is answering" role="img" aria-label="staff answering">
                    💭
                  </span>
                )}
                {muted.rooms.has(room.id) && (
                  <span title="Muted" role="img" aria-label="muted">
                    🔕
                  </span>
                )}
                <Counts count={count} />
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
