/** Naming in place: the field of a rename or of a new file or folder. */
import { type FormEvent, useEffect, useRef, useState } from "react";

/** The name input of a rename or a new node: Enter saves, Escape cancels, leaving the field saves too. */
export function NameInput({
  label,
  initial,
  placeholder,
  depth,
  className = "tree-edit",
  onSave,
  onCancel,
}: {
  label: string;
  initial: string;
  placeholder?: string;
  /** Indent in the tree (0 outside it). */
  depth: number;
  className?: string;
  onSave: (name: string) => Promise<string | null>;
  /** `byKeyboard`: Escape, or Enter on an empty name (not leaving the field), so the keyboard needs a new place. */
  onCancel: (byKeyboard: boolean) => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [error, setError] = useState<string | null>(null);
  const busy = useRef(false);
  // Saved: the field is about to go; a blur on the way out must not save a second time.
  const done = useRef(false);
  useEffect(() => {
    const el = input.current;
    if (!el) return;
    el.focus();
    // Select the name without its extension, as file managers do.
    const dot = initial.lastIndexOf(".");
    el.setSelectionRange(0, dot > 0 ? dot : initial.length);
  }, [initial]);
  const save = async (event?: FormEvent) => {
    event?.preventDefault();
    if (busy.current || done.current) return;
    const name = input.current?.value.trim() ?? "";
    if (name === "" || name === initial) {
      done.current = true;
      onCancel(event !== undefined);
      return;
    }
    busy.current = true;
    const failure = await onSave(name);
    busy.current = false;
    done.current = failure === null;
    if (failure) {
      setError(failure);
      input.current?.focus();
    }
  };
  return (
    <form className={className} style={{ "--depth": depth } as React.CSSProperties} onSubmit={save}>
      <input
        ref={input}
        aria-label={label}
        defaultValue={initial}
        placeholder={placeholder}
        maxLength={255}
        aria-invalid={error ? true : undefined}
        onKeyDown={(event) => {
          if (event.key === "Escape") {
            event.preventDefault();
            event.stopPropagation();
            done.current = true;
            onCancel(true);
          }
        }}
        onBlur={() => {
          // Leaving a field that shows an error keeps the error visible rather than saving again.
          if (!error) void save();
        }}
        onChange={() => setError(null)}
      />
      {error && (
        <p className="error small" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
