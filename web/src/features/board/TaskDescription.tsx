/** The task panel's description: markdown shown, or edited with Write and Preview, Save and Cancel. */

import { useEffect, useRef } from "react";
import type { Task, TaskChanges } from "../../../../src/api-types";
import { Markdown } from "../../lib/markdown";
import type { Saved } from "./task-save";
import type { Draft } from "./use-draft";

/** The description being edited, and whether its preview shows. */
export type DescriptionDraft = Draft & { preview: boolean };

/**
 * The description section of `task`. The draft is held by the panel, which asks before leaving a task whose
 * description has unsaved text; Save, Cancel and Escape put the keyboard back on "Edit description".
 */
export function TaskDescription({
  task,
  canWrite,
  draft: description,
  onDraft: setDescription,
  save,
}: {
  task: Task;
  canWrite: boolean;
  draft: DescriptionDraft | null;
  onDraft: (draft: DescriptionDraft | null) => void;
  save: (changes: TaskChanges, from: Task) => Promise<Saved>;
}) {
  const editDescription = useRef<HTMLButtonElement>(null);
  /** Set when the description editor closes: the keyboard goes back to "Edit description" (its form is gone). */
  const backToEdit = useRef(false);
  const close = () => {
    backToEdit.current = true;
    setDescription(null);
  };
  useEffect(() => {
    if (description || !backToEdit.current) return;
    backToEdit.current = false;
    editDescription.current?.focus();
  }, [description]);

  const commitDescription = async () => {
    if (!description) return;
    if (description.value === description.base.description) {
      close();
      return;
    }
    if ((await save({ description: description.value }, description.base)) !== "failed") close();
  };

  return (
    <section className="detail-section" aria-labelledby={`description-${task.id}`}>
      <div className="detail-section-head">
        <h3 id={`description-${task.id}`}>Description</h3>
        {canWrite && !description && (
          <button
            ref={editDescription}
            type="button"
            className="link"
            onClick={() => setDescription({ value: task.description, base: task, preview: false })}
          >
            Edit description
          </button>
        )}
      </div>
      {description ? (
        <div className="stack">
          <div className="tabs" role="tablist" aria-label="Description editor">
            <button
              type="button"
              role="tab"
              aria-selected={!description.preview}
              className={description.preview ? "tab" : "tab active"}
              onClick={() => setDescription({ ...description, preview: false })}
            >
              Write
            </button>
            <button
              type="button"
              role="tab"
              aria-selected={description.preview}
              className={description.preview ? "tab active" : "tab"}
              onClick={() => setDescription({ ...description, preview: true })}
            >
              Preview
            </button>
          </div>
          {description.preview ? (
            <div className="detail-preview">
              {description.value.trim() ? (
                <Markdown source={description.value} />
              ) : (
                <p className="muted">Nothing to preview.</p>
              )}
            </div>
          ) : (
            <textarea
              aria-label="Description"
              rows={8}
              // biome-ignore lint/a11y/noAutofocus: the user asked to edit, so the text is where they type.
              autoFocus
              placeholder="Markdown: **bold**, _italic_, lists, [links](https://…), `code`"
              value={description.value}
              onChange={(event) => setDescription({ ...description, value: event.target.value })}
              onKeyDown={(event) => {
                if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
                  event.preventDefault();
                  void commitDescription();
                } else if (event.key === "Escape") {
                  // Escape cancels the edit, as Cancel does; typed text is only thrown away once confirmed.
                  event.preventDefault();
                  if (
                    description.value === description.base.description ||
                    confirm("Discard your changes to the description?")
                  )
                    close();
                }
              }}
            />
          )}
          <div className="row">
            <button type="button" className="primary" onClick={() => void commitDescription()}>
              Save description
            </button>
            <button type="button" onClick={close}>
              Cancel
            </button>
            <span className="small muted">Ctrl + Enter saves</span>
          </div>
        </div>
      ) : task.description.trim() ? (
        <Markdown source={task.description} className="detail-description" />
      ) : (
        <p className="muted">No description.</p>
      )}
    </section>
  );
}
