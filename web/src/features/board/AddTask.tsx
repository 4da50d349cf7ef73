/** A column's "Add task" form, and the longest title it lets through. */
import { type FormEvent, useEffect, useRef, useState } from "react";
import type { Column } from "../../../../src/api-types";
import { useAction } from "../../lib/hooks";
import { ErrorText } from "../../lib/ui";

/** The longest task title the API takes. */
const TITLE_MAX = 500;

/** "Add task" at the bottom of a column: stays open after adding, for the next one; Escape closes it. */
export function AddTask({ column, onCreate }: { column: Column; onCreate: (title: string) => Promise<void> }) {
  const [open, setOpen] = useState(false);
  const [title, setTitle] = useState("");
  const input = useRef<HTMLInputElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  /** Closed by the user: the keyboard goes back to "+ Add task" (the form it was in is gone). */
  const reopen = useRef(false);
  useEffect(() => {
    if (open || !reopen.current) return;
    reopen.current = false;
    button.current?.focus();
  }, [open]);
  const tooLong = title.length > TITLE_MAX;
  const noteId = `lane-note-${column.id}`;
  // Emptied at once, so the next title can be typed while this one is stored; given back if refused (unless
  // something new was typed meanwhile).
  const { run, busy, error, clear } = useAction(async (value: string) => {
    setTitle("");
    try {
      await onCreate(value);
    } catch (err) {
      setTitle((current) => current || value);
      throw err;
    }
  });

  const close = () => {
    reopen.current = true;
    setOpen(false);
    setTitle("");
    clear();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const value = title.trim();
    if (value && !tooLong) void run(value).then(() => input.current?.focus());
  };

  if (!open)
    return (
      <button
        ref={button}
        type="button"
        className="lane-add"
        aria-label={`Add task to ${column.name}`}
        onClick={() => setOpen(true)}
      >
        + Add task
      </button>
    );
  return (
    <form className="lane-form" onSubmit={submit}>
      <input
        ref={input}
        // biome-ignore lint/a11y/noAutofocus: the form opens on purpose, to type the title at once.
        autoFocus
        aria-label={`Title of the new task in ${column.name}`}
        placeholder="Task title"
        value={title}
        // Not maxLength: a pasted title would be cut without a word. The note says so and Add waits.
        aria-invalid={tooLong || undefined}
        aria-describedby={tooLong ? noteId : undefined}
        onChange={(event) => setTitle(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Escape") {
            event.preventDefault();
            close();
          }
        }}
      />
      <div className="row">
        <button type="submit" className="primary" disabled={busy || !title.trim() || tooLong}>
          Add
        </button>
        <button type="button" onClick={close}>
          Cancel
        </button>
      </div>
      {tooLong && (
        <p className="small error" id={noteId} role="status">
          A title can have at most {TITLE_MAX} characters; this one has {title.length.toLocaleString()}. Shorten it, and
          put the rest in the description.
        </p>
      )}
      <ErrorText error={error} />
    </form>
  );
}
