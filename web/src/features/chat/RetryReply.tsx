/**
 * "Retry" under a staff member's failure reply ("Sorry, I couldn't answer: …"): asks it again. The answer (or a
 * new failure) replaces the message's text in place, which ends the retry here; until then the button says
 * "Retrying…". The server decides what is a failed reply: a message that only looks like one is refused, and
 * the refusal is shown.
 */
import { useEffect, useState } from "react";
import type { Message } from "../../../../src/api-types";
import { ApiError } from "../../lib/api";
import { useAction } from "../../lib/hooks";
import { useWorkspace } from "../../lib/workspace";
import { retryReply } from "./api";

/** How every failure reply begins (the server's wording). */
const FAILURE_PREFIX = "Sorry, I couldn't answer:";

/** Whether a message reads as a staff member's failure reply. */
export function isFailedReply(message: Message, byStaff: boolean): boolean {
  return byStaff && message.deleted_at === null && message.content.startsWith(FAILURE_PREFIX);
}

/** The Retry button of a failure reply. */
export function RetryReply({ message }: { message: Message }) {
  const ws = useWorkspace();
  const [retrying, setRetrying] = useState(false);
  const retry = useAction(async () => {
    try {
      await retryReply(ws.base, message.space_id, message.chat_room_id, message.id);
    } catch (error) {
      // Someone else retried it first: it is under way all the same.
      if (!(error instanceof ApiError && error.status === 409 && error.message === "reply is already being retried"))
        throw error;
    }
    setRetrying(true);
  });
  // The message rewritten (the answer, or a new failure) ends this retry.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the message's new text is the signal.
  useEffect(() => setRetrying(false), [message.updated_at]);
  return (
    <div className="retry-reply">
      <button type="button" className="small" disabled={retrying || retry.busy} onClick={() => void retry.run()}>
        {retrying ? "Retrying…" : "Retry"}
      </button>
      {retry.error && (
        <span className="error small" role="alert">
          {retry.error}
        </span>
      )}
    </div>
  );
}
