/**
 * The space's labels: each with its colour and name, renamed or recoloured in place, deleted after asking;
 * a new one made with a name and a colour (a preset, or any from the colour field). Read-only without
 * tasks.write.
 */
import { type FormEvent, useEffect, useRef, useState } from "react";
import type { Label } from "../../../../src/api-types";
import { useAction } from "../../lib/hooks";
import { ErrorText, Modal } from "../../lib/ui";
import { LabelChip } from "./TaskCard";
import type { LabelOps } from "./use-board";

/** Colours offered for a new label, each readable as a tint in light and dark mode. */
export const PRESETS = [
  "#e5484d",
  "#f76b15",
  "#ffc53d",
  "#46a758",
  "#12a594",
  "#0090ff",
  "#6e56cf",
  "#d6409f",
  "#8d8d8d",
] as const;

export function LabelsDialog({
  labels,
  ops,
  canWrite,
  usage,
  onClose,
}: {
  labels: readonly Label[];
  ops: LabelOps;
  canWrite: boolean;
  /** How many tasks carry a label. */
  usage: (labelId: string) => number;
  onClose: () => void;
}) {
  return (
    <Modal title="Labels" onClose={onClose}>
      <div className="stack labels-dialog">
        {canWrite && <NewLabel ops={ops} next={PRESETS[labels.length % PRESETS.length] ?? PRESETS[0]} />}
        {labels.length === 0 ? (
          <p className="muted">No labels yet{canWrite ? ": make the first above." : "."}</p>
        ) : (
          <ul className="labels-list" aria-label="Labels of this space">
            {labels.map((label) =>
              canWrite ? (
                <LabelRow key={label.id} label={label} ops={ops} usage={usage(label.id)} />
              ) : (
                <li key={label.id}>
                  <LabelChip label={label} />
                  <span className="small muted">{tasksText(usage(label.id))}</span>
                </li>
              ),
            )}
          </ul>
        )}
      </div>
    </Modal>
  );
}

const tasksText = (n: number) => `${n} ${n === 1 ? "task" : "tasks"}`;

/** The form of a new label: its name and colour. */
function NewLabel({ ops, next }: { ops: LabelOps; next: string }) {
  const [name, setName] = useState("");
  const [color, setColor] = useState<string>(next);
  const input = useRef<HTMLInputElement>(null);
  // The next preset once a label is made, unless a colour was picked for the one being typed.
  const picked = useRef(false);
  useEffect(() => {
    if (!picked.current) setColor(next);
  }, [next]);
  const action = useAction(async () => {
    await ops.create({ name: name.trim(), color });
    setName("");
    picked.current = false;
    input.current?.focus();
  });
  const pick = (value: string) => {
    picked.current = true;
    setColor(value);
    action.clear();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim()) void action.run();
  };
  return (
    <form className="stack new-label" onSubmit={submit}>
      <div className="row">
        <input
          ref={input}
          aria-label="Name of the new label"
          placeholder="New label"
          maxLength={50}
          value={name}
          onChange={(event) => {
            setName(event.target.value);
            action.clear();
          }}
        />
        <input
          type="color"
          className="label-color"
          aria-label="Colour of the new label"
          value={color}
          onChange={(event) => pick(event.target.value)}
        />
        <button type="submit" className="primary" disabled={action.busy || !name.trim()}>
          Add label
        </button>
      </div>
      <fieldset className="label-presets">
        <legend className="sr-only">Preset colours</legend>
        {PRESETS.map((preset) => (
          <button
            key={preset}
            type="button"
            className="label-preset"
            style={{ background: preset }}
            aria-label={`Colour ${preset}`}
            aria-pressed={color === preset}
            onClick={() => pick(preset)}
          />
        ))}
        <span className="label-preview">
          <LabelChip label={{ name: name.trim() || "Preview", color }} />
        </span>
      </fieldset>
      <ErrorText error={action.error} />
    </form>
  );
}

/** One label, changed in place: its colour at once, its name on Enter or leaving the field. */
function LabelRow({ label, ops, usage }: { label: Label; ops: LabelOps; usage: number }) {
  const [name, setName] = useState(label.name);
  const [color, setColor] = useState(label.color);
  const [asking, setAsking] = useState(false);
  const deleteButton = useRef<HTMLButtonElement>(null);
  // Someone else's change shows, unless this row is being edited.
  const editing = useRef(false);
  useEffect(() => {
    if (!editing.current) setName(label.name);
  }, [label.name]);
  useEffect(() => setColor(label.color), [label.color]);
  const save = useAction((changes: { name?: string; color?: string }) => ops.change(label.id, changes));
  const remove = useAction(() => ops.remove(label.id));

  // A colour dragged through the picker is saved once it rests.
  useEffect(() => {
    if (color === label.color) return;
    const timer = setTimeout(() => void save.run({ color }), 400);
    return () => clearTimeout(timer);
  }, [color, label.color, save.run]);

  const rename = async () => {
    editing.current = false;
    const value = name.trim();
    if (!value || value === label.name) return setName(label.name);
    if (!(await save.run({ name: value }))) editing.current = true;
  };

  return (
    <li className="label-row">
      <input
        type="color"
        className="label-color"
        aria-label={`Colour of ${label.name}`}
        value={color}
        onChange={(event) => setColor(event.target.value)}
      />
      <input
        aria-label={`Name of ${label.name}`}
        maxLength={50}
        value={name}
        onFocus={() => {
          editing.current = true;
        }}
        onChange={(event) => {
          setName(event.target.value);
          save.clear();
        }}
        onBlur={() => void rename()}
        onKeyDown={(event) => {
          if (event.key === "Enter") {
            event.preventDefault();
            void rename();
          } else if (event.key === "Escape" && name !== label.name) {
            event.preventDefault();
            setName(label.name);
          }
        }}
      />
      <span className="small muted label-usage">{tasksText(usage)}</span>
      {asking ? (
        <span className="row" role="alertdialog" aria-label={`Delete ${label.name}?`}>
          <span className="small">{usage > 0 ? `Delete? It comes off ${tasksText(usage)}.` : "Delete?"}</span>
          <button type="button" className="danger" onClick={() => void remove.run()} disabled={remove.busy}>
            Delete
          </button>
          <button
            type="button"
            // biome-ignore lint/a11y/noAutofocus: the question opens on purpose; the safe answer has the keyboard.
            autoFocus
            onClick={() => {
              setAsking(false);
              requestAnimationFrame(() => deleteButton.current?.focus());
            }}
          >
            Keep it
          </button>
        </span>
      ) : (
        <button
          ref={deleteButton}
          type="button"
          className="link danger"
          aria-label={`Delete ${label.name}`}
          onClick={() => setAsking(true)}
        >
          Delete
        </button>
      )}
      <ErrorText error={save.error ?? remove.error} />
    </li>
  );
}
