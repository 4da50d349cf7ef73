/** Editing one's message in place: Enter saves, Escape cancels; emptied, it offers deleting the message instead. */
import { type KeyboardEvent, useContext, useEffect, useRef, useState } from "react";
import type { Message } from "../../../../src/api-types";
import { ErrorText } from "../../lib/ui";
import { type RowActions, RowContext } from "./row-context";

/** The editor of `message`, with the text typed so far kept by the room (`editing.draft`). */
export function MessageEditor({ message, onDone }: { message: Message; onDone: () => void }) {
  const ctx = useContext(RowContext) as RowActions;
  const [text, setText] = useState(() => ctx.editing.draft ?? message.content);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** Saving an empty text was asked: the API refuses it, so deleting is offered instead. */
  const [empty, setEmpty] = useState(false);
  const ref = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    const area = ref.current;
    if (!area) return;
    area.focus();
    area.setSelectionRange(area.value.length, area.value.length);
  }, []);
  const save = async () => {
    if (text === message.content) return onDone();
    if (!text.trim()) {
      setError(null);
      setEmpty(true);
      return;
    }
    setBusy(true);
    const failure = await ctx.edit(message, text);
    setBusy(false);
    if (failure) setError(failure);
    else onDone();
  };
  const onKey = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Escape") {
      event.preventDefault();
      onDone();
    } else if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void save();
    }
  };
  return (
    <div className="message-edit">
      <textarea
        ref={ref}
        aria-label="Edit message"
        value={text}
        rows={Math.min(10, text.split("\n").length + 1)}
        onChange={(event) => {
          setText(event.target.value);
          ctx.editing.draft = event.target.value;
          setEmpty(false);
          setError(null);
        }}
        onKeyDown={onKey}
      />
      <div className="row small">
        <button type="button" className="primary" disabled={busy} onClick={() => void save()}>
          Save
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
        <span className="muted">Enter to save, Escape to cancel</span>
      </div>
      <ErrorText error={error} />
      {empty && (
        <div className="row small" role="alert">
          <span>A message cannot be empty. Delete it instead?</span>
          <button
            type="button"
            className="danger"
            onClick={() => {
              onDone();
              ctx.askDelete(message);
            }}
          >
            Delete message
          </button>
        </div>
      )}
    </div>
  );
}
