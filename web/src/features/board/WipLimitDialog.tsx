/** Setting a column's WIP limit: a number of tasks, or none. */
import { type FormEvent, useState } from "react";
import type { Column } from "../../../../src/api-types";
import { useAction } from "../../lib/hooks";
import { ErrorText, Modal } from "../../lib/ui";

/** The largest limit the API takes. */
const LIMIT_MAX = 100_000;

export function WipLimitDialog({
  column,
  count,
  onSave,
  onClose,
}: {
  column: Column;
  count: number;
  onSave: (limit: number | null) => Promise<unknown>;
  onClose: () => void;
}) {
  const [value, setValue] = useState(column.wip_limit === null ? "" : String(column.wip_limit));
  const action = useAction(async (limit: number | null) => {
    await onSave(limit);
    onClose();
  });
  const limit = value.trim() === "" ? null : Number(value);
  const valid = limit === null || (Number.isInteger(limit) && limit >= 1 && limit <= LIMIT_MAX);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (valid) void action.run(limit);
  };
  return (
    <Modal title={`WIP limit of “${column.name}”`} onClose={onClose}>
      <form className="stack" onSubmit={submit}>
        <label className="field">
          <span>Most tasks at once</span>
          <input
            type="number"
            inputMode="numeric"
            min={1}
            max={LIMIT_MAX}
            step={1}
            placeholder="No limit"
            value={value}
            aria-describedby={`wip-note-${column.id}`}
            aria-invalid={valid ? undefined : true}
            onChange={(event) => {
              setValue(event.target.value);
              action.clear();
            }}
          />
        </label>
        <p className="small muted" id={`wip-note-${column.id}`}>
          It holds {count} {count === 1 ? "task" : "tasks"} now. AI staff cannot put a task into a column at its limit;
          people can, and the column's count turns to a warning. Leave it empty for no limit.
        </p>
        {!valid && <p className="small error">A limit is a whole number from 1 to {LIMIT_MAX.toLocaleString()}.</p>}
        <ErrorText error={action.error} />
        <div className="row end">
          {column.wip_limit !== null && (
            <button type="button" className="link" onClick={() => void action.run(null)}>
              Remove the limit
            </button>
          )}
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={action.busy || !valid}>
            Save
          </button>
        </div>
      </form>
    </Modal>
  );
}
