/**
 * The filter above the board's columns: words, assignee, due date, label and priority, and how many tasks
 * show. "/" anywhere on the board puts the cursor in its words.
 */
import { type ReactNode, useEffect, useRef } from "react";
import type { Label, Member, Priority } from "../../../../src/api-types";
import { AssigneeOptions } from "./AssigneeOptions";
import type { BoardFilter, DueChoice } from "./filter";
import { PriorityOptions } from "./TaskCard";

/** True when the keyboard is in something that takes text (so "/" is typed there, not a shortcut). */
function typingIn(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
}

/** The filter's fields; `setFilter` changes the address. */
export function FilterBar({
  filter,
  setFilter,
  filtering,
  audience,
  labels,
  shownTotal,
  total,
  children,
}: {
  filter: BoardFilter;
  setFilter: (change: Partial<BoardFilter>) => void;
  filtering: boolean;
  /** Who the tasks can be assigned to; null while a private space's members load. */
  audience: readonly Member[] | null;
  labels: readonly Label[];
  shownTotal: number;
  total: number;
  /** What follows the count on the same line (the board's Labels button). */
  children?: ReactNode;
}) {
  const filterBox = useRef<HTMLInputElement>(null);

  // "/" goes to the filter box, as in many tools, unless the keyboard is in a field or a dialog is open.
  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey || typingIn(event.target)) return;
      if (document.querySelector("dialog[open]")) return;
      event.preventDefault();
      filterBox.current?.focus();
      filterBox.current?.select();
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);
  return (
    <search className="board-filter" aria-label="Filter tasks">
      <input
        ref={filterBox}
        type="search"
        aria-label="Filter tasks by title or description"
        aria-keyshortcuts="/"
        placeholder="Filter tasks  ( / )"
        value={filter.text}
        onChange={(event) => setFilter({ text: event.target.value })}
        onKeyDown={(event) => {
          if (event.key === "Escape" && filter.text) {
            event.preventDefault();
            setFilter({ text: "" });
          }
        }}
      />
      <label className="board-filter-choice">
        <span>Assignee</span>
        <select value={filter.assignee} onChange={(event) => setFilter({ assignee: event.target.value })}>
          <option value="">Anyone</option>
          <option value="me">Me</option>
          <option value="none">Unassigned</option>
          <AssigneeOptions
            members={audience ?? []}
            loading={!audience}
            current={["", "me", "none"].includes(filter.assignee) ? null : filter.assignee}
          />
        </select>
      </label>
      <label className="board-filter-choice">
        <span>Due</span>
        <select value={filter.due} onChange={(event) => setFilter({ due: event.target.value as DueChoice })}>
          <option value="">Any time</option>
          <option value="overdue">Overdue</option>
          <option value="week">Due in the next 7 days</option>
          <option value="none">No due date</option>
        </select>
      </label>
      <label className="board-filter-choice">
        <span>Label</span>
        <select value={filter.label} onChange={(event) => setFilter({ label: event.target.value })}>
          <option value="">Any label</option>
          {labels.map((label) => (
            <option key={label.id} value={label.id}>
              {label.name}
            </option>
          ))}
          {/* A label in the address that is gone (deleted, or of a link from elsewhere) still shows as chosen. */}
          {filter.label && !labels.some((l) => l.id === filter.label) && (
            <option value={filter.label}>(a deleted label)</option>
          )}
        </select>
      </label>
      <label className="board-filter-choice">
        <span>Priority</span>
        <select
          value={filter.priority}
          onChange={(event) => setFilter({ priority: event.target.value as "" | Priority })}
        >
          <option value="">Any priority</option>
          <PriorityOptions />
        </select>
      </label>
      {filtering && (
        <button
          type="button"
          className="link"
          onClick={() => {
            setFilter({ text: "", assignee: "", due: "", label: "", priority: "" });
            filterBox.current?.focus();
          }}
        >
          Clear filters
        </button>
      )}
      <span className="small muted board-filter-count" role="status">
        {filtering
          ? `${shownTotal} of ${total} ${total === 1 ? "task" : "tasks"}`
          : `${total} ${total === 1 ? "task" : "tasks"}`}
      </span>
      {children}
    </search>
  );
}
