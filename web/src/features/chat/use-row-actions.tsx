/**
 * What the rows of one list of messages (a room, or a thread in the side panel) share: their actions, the
 * small stores of which row is selected, edited, the Tab stop and the one jumped to, and the reaction picker and
 * delete dialog they open.
 */
import { type ReactNode, type RefObject, useCallback, useMemo, useRef, useState } from "react";
import type { Message } from "../../../../src/api-types";
import type { Highlighter } from "../../lib/markdown";
import { useWorkspace } from "../../lib/workspace";
import { EmojiPicker } from "./EmojiPicker";
import { DeleteMessageDialog } from "./RoomParts";
import { type RoomData, reactionsOf } from "./room-state";
import { createEditing, createSelection, type RowActions } from "./row-context";
import type { useRoomWrites } from "./use-room-writes";

/** The rows' actions over `writes`, the list's data (read through `dataRef`) and its section (for its composer). */
export function useRowActions({
  writes,
  dataRef,
  sectionRef,
  highlight,
  openThread,
}: {
  writes: ReturnType<typeof useRoomWrites>;
  dataRef: RefObject<RoomData>;
  sectionRef: RefObject<HTMLElement | null>;
  highlight: Highlighter;
  openThread: ((rootId: string) => void) | null;
}): { actions: RowActions; editLast: () => boolean; overlays: ReactNode } {
  const ws = useWorkspace();
  const me = ws.me.id;
  const canWrite = ws.can("chat.write");
  const canModerate = ws.can("org.manage");
  const [picker, setPicker] = useState<{ messageId: string; anchor: HTMLElement } | null>(null);
  const [deleting, setDeleting] = useState<Message | null>(null);
  const [editing] = useState(createEditing);
  const [current] = useState(createSelection);
  const [jumped] = useState(createSelection);
  const [selection] = useState(createSelection);
  // Stable actions for the rows: they read the latest workspace through a ref.
  const wsRef = useRef(ws);
  wsRef.current = ws;
  const actions = useMemo<RowActions>(
    () => ({
      me,
      canWrite,
      canModerate,
      nameOf: (id) => wsRef.current.nameOf(id),
      toggleReaction: writes.toggleReaction,
      openPicker: (messageId, anchorEl) => setPicker({ messageId, anchor: anchorEl }),
      edit: writes.edit,
      askDelete: (message) => setDeleting(message),
      focusComposer: () => sectionRef.current?.querySelector<HTMLElement>('[role="combobox"]')?.focus(),
      openThread,
      selection,
      editing,
      current,
      jumped,
    }),
    [
      me,
      canWrite,
      canModerate,
      writes.toggleReaction,
      writes.edit,
      sectionRef,
      openThread,
      selection,
      editing,
      current,
      jumped,
    ],
  );

  /** Up in an empty composer: edits one's newest message of the list. */
  const editLast = useCallback(() => {
    const messages = dataRef.current.messages;
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i] as Message;
      if (m.author_user_id === me && !m.deleted_at) {
        editing.set(m.id);
        return true;
      }
    }
    return false;
  }, [me, editing, dataRef]);

  const overlays = (
    <>
      {picker && (
        <EmojiPicker
          anchor={picker.anchor}
          label="Add a reaction"
          onPick={(emoji) => {
            // Picking an emoji one has already reacted with takes it back, like clicking its chip.
            const mine = reactionsOf(dataRef.current, picker.messageId).some(
              (r) => r.user_id === me && r.emoji === emoji,
            );
            actions.toggleReaction(picker.messageId, emoji, mine);
            setPicker(null);
            picker.anchor.focus();
          }}
          onClose={() => setPicker(null)}
        />
      )}
      {deleting && (
        <DeleteMessageDialog
          message={deleting}
          highlight={highlight}
          onClose={() => {
            setDeleting(null);
            // The message's own buttons went with it: the keyboard goes back to the composer, once the dialog
            // (which keeps the focus from the page while open) is gone.
            setTimeout(actions.focusComposer);
          }}
          onConfirm={() => writes.remove(deleting)}
        />
      )}
    </>
  );
  return { actions, editLast, overlays };
}
