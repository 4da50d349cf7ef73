/** Creating a room, and deleting one (with its messages, for good) after asking. */
import type { FormEvent } from "react";
import type { ChatRoom } from "../../../../src/api-types";
import { ConfirmDialog } from "../../lib/dialogs";
import { useAction } from "../../lib/hooks";
import { navigate } from "../../lib/router";
import { ErrorText, FormButtons, Modal } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { createRoom, deleteRoom } from "./api";

/** A room's name as typed, without the "#" in front that the UI adds itself (the API keeps names as given). */
export function roomName(typed: string): string {
  return typed.trim().replace(/^#+\s*/, "");
}

/** The "New room" dialog; the new room opens. */
export function CreateRoom({
  spaceId,
  onClose,
  onCreated,
}: {
  spaceId: string;
  onClose: () => void;
  onCreated: (room: ChatRoom) => void;
}) {
  const ws = useWorkspace();
  const { run, busy, error } = useAction(async (typed: string) => {
    // Rooms are shown as "#name": a "#" typed out of habit (as in Slack) would read "##name" everywhere.
    const name = roomName(typed);
    if (!name) throw new Error("A room needs a name after the #.");
    const room = await createRoom(ws.base, spaceId, name);
    onCreated(room);
    navigate(`/spaces/${spaceId}/chat/${room.id}`);
    onClose();
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void run(String(new FormData(event.currentTarget).get("name") ?? ""));
  };
  return (
    <Modal title="New room" onClose={onClose}>
      <form onSubmit={submit} className="stack">
        <label className="field">
          <span>Room name</span>
          <input name="name" required maxLength={80} autoComplete="off" placeholder="e.g. design" />
        </label>
        <ErrorText error={error} />
        <FormButtons onCancel={onClose} disabled={busy} label="Create room" />
      </form>
    </Modal>
  );
}

/** Asks before deleting `room` for everyone. */
export function DeleteRoom({
  spaceId,
  room,
  onClose,
  onDeleted,
}: {
  spaceId: string;
  room: ChatRoom;
  onClose: () => void;
  onDeleted: () => void;
}) {
  const ws = useWorkspace();
  return (
    <ConfirmDialog
      title={`Delete #${room.name}`}
      confirmLabel="Delete room"
      onClose={onClose}
      onConfirm={async () => {
        await deleteRoom(ws.base, spaceId, room.id);
        onDeleted();
      }}
    >
      <p>
        Delete <strong>#{room.name}</strong> for everyone? Its messages, reactions and attachments are deleted for good.
      </p>
    </ConfirmDialog>
  );
}
