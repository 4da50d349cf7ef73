/** The rooms of a space beside the open one: unread counts, staff answering, and "New room". */
import type { ChatRoom } from "../../../../src/api-types";
import { Link } from "../../lib/router";
import type { Thinking } from "./chat-types";
import { PlusIcon } from "./icons";
import type { RoomUnread } from "./unread";

/** The room list (a menu on narrow screens, `open` there); the open room's count is not shown. */
export function RoomList({
  spaceId,
  rooms,
  currentId,
  unread,
  atLeast,
  thinking,
  canWrite,
  open: roomsOpen,
  onClose,
  onCreate,
}: {
  spaceId: string;
  rooms: readonly ChatRoom[];
  currentId: string | null;
  unread: RoomUnread;
  /** Rooms whose count is a lower bound ("20+"). */
  atLeast: ReadonlySet<string>;
  thinking: Readonly<Record<string, readonly Thinking[]>>;
  canWrite: boolean;
  open: boolean;
  onClose: () => void;
  onCreate: () => void;
}) {
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
          const count = room.id === currentId ? 0 : (unread[room.id]?.size ?? 0);
          const busy = (thinking[room.id]?.length ?? 0) > 0;
          return (
            <li key={room.id}>
              <Link
                href={`/spaces/${spaceId}/chat/${room.id}`}
                className={`chat-room-link${room.id === currentId ? " active" : ""}${count ? " unread" : ""}`}
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
                {count > 0 && (
                  <span className="unread-badge">
                    {atLeast.has(room.id) ? `${count}+` : count}
                    <span className="sr-only"> unread</span>
                  </span>
                )}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
