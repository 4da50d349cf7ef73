/**
 * A task's labels in its panel: the chips it carries, and "Edit labels", a checklist of the space's labels
 * where each tick saves at once. Escape or the button closes the list.
 */
import { useId, useRef, useState } from "react";
import type { Label, Task, TaskChanges } from "../../../../src/api-types";
import { LabelChip } from "./TaskCard";
import type { Saved } from "./task-save";

export function LabelPicker({
  task,
  labels,
  canWrite,
  pending,
  save,
}: {
  task: Task;
  labels: readonly Label[];
  canWrite: boolean;
  /** The change on its way, shown at once. */
  pending: TaskChanges | null;
  save: (changes: TaskChanges, from: Task) => Promise<Saved>;
}) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const listId = useId();
  const ids = pending?.label_ids ?? task.label_ids;
  const carried = labels.filter((label) => ids.includes(label.id));
  const toggle = (id: string, on: boolean) => {
    const next = on ? [...ids, id] : ids.filter((other) => other !== id);
    void save({ label_ids: next }, task);
  };
  return (
    <div className="field label-picker">
      <span>Labels</span>
      <div className="row wrap">
        {carried.length === 0 && <span className="muted small">None</span>}
        {carried.map((label) => (
          <LabelChip key={label.id} label={label} />
        ))}
        {canWrite && (
          <button
            ref={button}
            type="button"
            className="link"
            aria-expanded={open}
            aria-controls={listId}
            onClick={() => setOpen(!open)}
          >
            {open ? "Done" : "Edit labels"}
          </button>
        )}
      </div>
      {open && (
        <fieldset
          id={listId}
          className="label-checklist"
          onKeyDown={(event) => {
            if (event.key !== "Escape") return;
            // Closes the list, not the panel.
            event.preventDefault();
            event.stopPropagation();
            setOpen(false);
            button.current?.focus();
          }}
        >
          <legend className="sr-only">Labels of this task</legend>
          {labels.length === 0 && (
            <p className="small muted">This space has no labels yet: make them with “Labels” above the board.</p>
          )}
          {labels.map((label, i) => (
            <label key={label.id} className="check">
              <input
                type="checkbox"
                // biome-ignore lint/a11y/noAutofocus: the list opens on purpose; its first box has the keyboard.
                autoFocus={i === 0}
                checked={ids.includes(label.id)}
                onChange={(event) => toggle(label.id, event.target.checked)}
              />
              <LabelChip label={label} />
            </label>
          ))}
        </fieldset>
      )}
    </div>
  );
}
