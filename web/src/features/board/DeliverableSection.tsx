/**
 * The task panel's deliverable: whether one is required, the instructions for it (text for readers, a field
 * saved on leaving it for writers), and the files linked.
 */
import type { Space, Task, TaskChanges } from "../../../../src/api-types";
import { TaskDeliverables } from "./TaskDeliverables";
import type { Saved } from "./task-save";
import { type Draft, useDraft } from "./use-draft";

/** The deliverable section of `task`. */
export function DeliverableSection({
  space,
  task,
  canWrite,
  pending,
  save,
}: {
  space: Space;
  task: Task;
  canWrite: boolean;
  /** The change on its way, shown at once. */
  pending: TaskChanges | null;
  save: (changes: TaskChanges, from: Task) => Promise<Saved>;
}) {
  const instructions = useDraft<Draft>();
  const commitInstructions = async () => {
    const draft = instructions.latest.current;
    if (!draft) return;
    if (draft.value === draft.base.deliverable_instructions) {
      instructions.set(null);
      return;
    }
    if ((await save({ deliverable_instructions: draft.value }, draft.base)) !== "failed") instructions.set(null);
  };
  return (
    <section className="detail-section" aria-labelledby={`deliverable-${task.id}`}>
      <div className="detail-section-head">
        <h3 id={`deliverable-${task.id}`}>Deliverable</h3>
      </div>
      <label className="check">
        <input
          type="checkbox"
          checked={pending?.deliverable_required ?? task.deliverable_required}
          disabled={!canWrite}
          onChange={(event) => void save({ deliverable_required: event.target.checked }, task)}
        />
        Deliverable required
      </label>
      {!canWrite && (task.deliverable_required || task.deliverable_instructions) && (
        // Read-only: the text as written, not an empty box inviting to type.
        <div className="field">
          <span>Instructions for the deliverable</span>
          {task.deliverable_instructions.trim() ? (
            <p className="detail-instructions">{task.deliverable_instructions}</p>
          ) : (
            <p className="muted">No instructions.</p>
          )}
        </div>
      )}
      {canWrite && (pending?.deliverable_required || task.deliverable_required || task.deliverable_instructions) && (
        <label className="field">
          <span>Instructions for the deliverable</span>
          <textarea
            rows={3}
            placeholder="What should be delivered, in which format…"
            value={instructions.value ? instructions.value.value : task.deliverable_instructions}
            onFocus={() => {
              if (!instructions.latest.current) instructions.set({ value: task.deliverable_instructions, base: task });
            }}
            onChange={(event) =>
              instructions.set({ value: event.target.value, base: instructions.value?.base ?? task })
            }
            onBlur={() => void commitInstructions()}
            onKeyDown={(event) => {
              if (
                event.key === "Escape" &&
                instructions.value &&
                instructions.value.value !== instructions.value.base.deliverable_instructions
              ) {
                // As in the title: Escape puts the saved text back, and nothing is sent.
                event.preventDefault();
                instructions.set(null);
              }
            }}
          />
        </label>
      )}
      <TaskDeliverables space={space} task={task} canWrite={canWrite} />
    </section>
  );
}
