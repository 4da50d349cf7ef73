/** "+ Add column" after the board's last column: a name, added last; Escape or Cancel closes it. */
import { type FormEvent, useRef, useState } from "react";
import { useAction } from "../../lib/hooks";
import { ErrorText } from "../../lib/ui";

export function AddColumn({ onAdd }: { onAdd: (name: string) => Promise<{ id: string }> }) {
  const [name, setName] = useState<string | null>(null);
  const button = useRef<HTMLButtonElement>(null);
  const action = useAction(async (value: string) => {
    const column = await onAdd(value);
    setName(null);
    // The new column is where the form was: show it, and give the keyboard its heading.
    requestAnimationFrame(() => {
      const heading = document.getElementById(`lane-${column.id}`);
      heading?.scrollIntoView({ inline: "nearest", block: "nearest" });
      heading?.focus();
    });
  });
  const close = () => {
    setName(null);
    action.clear();
    requestAnimationFrame(() => button.current?.focus());
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const value = name?.trim();
    if (value) void action.run(value);
  };

  if (name === null)
    return (
      <div className="lane-new">
        <button ref={button} type="button" className="lane-add" onClick={() => setName("")}>
          + Add column
        </button>
      </div>
    );
  return (
    <form className="lane-new lane-form" onSubmit={submit}>
      <input
        // biome-ignore lint/a11y/noAutofocus: the form opens on purpose, to type the name at once.
        autoFocus
        aria-label="Name of the new column"
        placeholder="Column name"
        maxLength={100}
        value={name}
        onChange={(event) => {
          setName(event.target.value);
          action.clear();
        }}
        onKeyDown={(event) => {
          if (event.key === "Escape") {
            event.preventDefault();
            close();
          }
        }}
      />
      <div className="row">
        <button type="submit" className="primary" disabled={action.busy || !name.trim()}>
          Add column
        </button>
        <button type="button" onClick={close}>
          Cancel
        </button>
      </div>
      <ErrorText error={action.error} />
    </form>
  );
}
