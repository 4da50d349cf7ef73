/**
 * What the person muted, with Unmute beside each. Rooms are named from the rooms of their spaces, asked for only
 * when some room is muted (the settings hold ids only).
 */
import type { ChatRoom } from "../../../../src/api-types";
import { useLoad } from "../../lib/hooks";
import { Link } from "../../lib/router";
import { useWorkspace } from "../../lib/workspace";
import { listRooms } from "../chat/api";
import { MuteButton } from "../inbox/MuteButton";
import { useNotificationSettings } from "../inbox/unread";

async function roomsOf(base: string, spaceIds: string[]): Promise<ChatRoom[]> {
  const lists = await Promise.allSettled(spaceIds.map((id) => listRooms(base, id)));
  return lists.flatMap((list) => (list.status === "fulfilled" ? list.value : []));
}

export function MutedList() {
  const ws = useWorkspace();
  const settings = useNotificationSettings();
  const anyRoom = (settings?.muted_room_ids.length ?? 0) > 0;
  const rooms = useLoad(
    anyRoom ? roomsOf : null,
    ws.base,
    ws.spaces.map((s) => s.id),
  );
  if (!settings) return null;
  const spaces = ws.spaces.filter((s) => settings.muted_space_ids.includes(s.id));
  const byId = new Map((rooms.data ?? []).map((r) => [r.id, r]));
  const spaceName = new Map(ws.spaces.map((s) => [s.id, s.name]));
  return (
    <section className="panel" aria-labelledby="profile-muted">
      <h2 id="profile-muted">Muted</h2>
      <p className="muted small">
        A muted room or space shows no unread count and adds nothing to your Inbox, except mentions of you. Mute one
        from its header.
      </p>
      {spaces.length === 0 && !anyRoom ? (
        <p className="muted">Nothing is muted.</p>
      ) : (
        <ul className="list muted-list">
          {spaces.map((space) => (
            <li key={space.id}>
              <Link href={`/spaces/${space.id}`} className="grow">
                {space.private ? "🔒 " : "# "}
                {space.name}
              </Link>
              <span className="muted small">space</span>
              <MuteButton what="space" id={space.id} name={space.name} />
            </li>
          ))}
          {settings.muted_room_ids.map((id) => {
            const room = byId.get(id);
            const name = room ? `#${room.name}` : "a room";
            return (
              <li key={id}>
                {room ? (
                  <Link href={`/spaces/${room.space_id}/chat/${room.id}`} className="grow">
                    {name}
                  </Link>
                ) : (
                  <span className="grow muted">{rooms.loading ? "Loading…" : "A room"}</span>
                )}
                <span className="muted small">
                  {room ? `room in ${spaceName.get(room.space_id) ?? "a space"}` : "room"}
                </span>
                <MuteButton what="room" id={id} name={name} />
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
