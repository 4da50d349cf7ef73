/**
 * Writing in the open room: a message shows as "Sending…" until the server has it; reactions, edits and
 * deletions are applied to the room's data as the server answers them.
 */
import { type Dispatch, type SetStateAction, useCallback, useRef, useState } from "react";
import type { Message, MessageBody } from "../../../../src/api-types";
import { ApiError, messageOf } from "../../lib/api";
import { toast } from "../../lib/ui";
import {
  deleteMessage,
  removeReaction as deleteReaction,
  editMessage,
  postMessage,
  addReaction as postReaction,
} from "./api";
import type { SendFailure } from "./Composer";
import type { AttachmentDraft, ThreadPlace } from "./chat-types";
import { addReaction, type RoomData, removeReaction, upsertMessage } from "./room-state";

/** An attachment as a post carries it: an uploaded file with its type and size, a link with its name if given. */
function attachmentBody(a: AttachmentDraft): NonNullable<MessageBody["attachments"]>[number] {
  if (a.file) return { url: a.url, name: a.name, mime: a.file.mime, size_bytes: a.file.size_bytes };
  return a.name ? { url: a.url, name: a.name } : { url: a.url };
}

/** A message being sent, shown until the server has it. */
export interface Pending {
  key: string;
  content: string;
  attachments: AttachmentDraft[];
}

/** The writes of `me` in the room `roomId`, applied through `setData`. */
export function useRoomWrites(
  base: string,
  spaceId: string,
  roomId: string,
  me: string,
  setData: Dispatch<SetStateAction<RoomData>>,
) {
  const [pending, setPending] = useState<Pending[]>([]);
  const pendingCounter = useRef(0);

  /** Sends a message; resolves to why it was not sent, or null. Nothing is sent twice or behind the user's back. */
  const send = useCallback(
    async (content: string, attachments: AttachmentDraft[], place?: ThreadPlace): Promise<SendFailure | null> => {
      const key = `pending-${++pendingCounter.current}`;
      setPending((list) => [...list, { key, content, attachments }]);
      try {
        const body: MessageBody = { ...place };
        if (content) body.content = content;
        if (attachments.length) body.attachments = attachments.map(attachmentBody);
        const answer = await postMessage(base, spaceId, roomId, body);
        setData((d) => upsertMessage(d, answer.message, answer.attachments));
        return null;
      } catch (err) {
        // Status 0: the request never reached the server (nothing was stored, so sending again is safe).
        return { message: messageOf(err), offline: err instanceof ApiError && err.status === 0 };
      } finally {
        setPending((list) => list.filter((p) => p.key !== key));
      }
    },
    [base, spaceId, roomId, setData],
  );

  /** One's own message arrived live: the first copy still "Sending…" with its text goes. */
  const arrived = useCallback((message: Message) => {
    setPending((list) => {
      const i = list.findIndex((p) => p.content === message.content);
      return i < 0 ? list : list.filter((_, j) => j !== i);
    });
  }, []);

  /** Adds or takes back one's reaction; a refusal is said in a notice. */
  const toggleReaction = useCallback(
    (messageId: string, emoji: string, mine: boolean) => {
      const done = mine
        ? deleteReaction(base, spaceId, roomId, messageId, emoji).then(() =>
            setData((d) => removeReaction(d, { message_id: messageId, user_id: me, emoji })),
          )
        : postReaction(base, spaceId, roomId, messageId, emoji).then((r) => setData((d) => addReaction(d, r)));
      done.catch((err) => toast(`Reaction not saved: ${messageOf(err)}`, "error"));
    },
    [base, spaceId, roomId, me, setData],
  );

  /** Saves an edit; resolves to the API's error in words, or null. */
  const edit = useCallback(
    async (message: Message, content: string): Promise<string | null> => {
      try {
        const saved = await editMessage(base, spaceId, roomId, message.id, content);
        setData((d) => upsertMessage(d, saved));
        return null;
      } catch (err) {
        return messageOf(err);
      }
    },
    [base, spaceId, roomId, setData],
  );

  /** Deletes a message (it keeps its place, marked deleted); a refusal is thrown for the dialog to show. */
  const remove = useCallback(
    async (message: Message) => {
      await deleteMessage(base, spaceId, roomId, message.id);
      const now = new Date().toISOString();
      setData((d) => upsertMessage(d, { ...message, content: "", deleted_at: now, updated_at: now }));
    },
    [base, spaceId, roomId, setData],
  );

  return { pending, send, arrived, toggleReaction, edit, remove };
}
