/**
 * Mute / Unmute for a room or a space: a muted one still keeps its unread count on the server, but shows only
 * mentions and makes no inbox item other than a mention.
 */
import { useState } from "react";
import { messageOf } from "../../lib/api";
import { busyProps, toast } from "../../lib/ui";
import { setMuted, useNotificationSettings } from "./unread";

export function MuteButton({ what, id, name }: { what: "room" | "space"; id: string; name: string }) {
  const settings = useNotificationSettings();
  const [busy, setBusy] = useState(false);
  if (!settings) return null;
  const muted = (what === "room" ? settings.muted_room_ids : settings.muted_space_ids).includes(id);
  const change = async () => {
    setBusy(true);
    try {
      await setMuted(what, id, !muted);
    } catch (error) {
      toast(`${name} was not ${muted ? "unmuted" : "muted"}: ${messageOf(error)}`, "error");
    } finally {
      setBusy(false);
    }
  };
  return (
    <button
      type="button"
      className={muted ? "mute-button muted-on" : "mute-button"}
      title={
        muted
          ? `${name} is muted: only mentions of you count and notify`
          : `Mute ${name}: only mentions of you will count and notify`
      }
      {...busyProps(busy)}
      onClick={() => void change()}
    >
      <span aria-hidden="true">{muted ? "🔕" : "🔔"}</span>
      <span className="label">{`${muted ? "Unmute" : "Mute"} ${what}`}</span>
    </button>
  );
}
