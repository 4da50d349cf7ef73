/**
 * A column's heading: its name (renamed in place), its task count against its WIP limit ("4/3", in a warning
 * colour when over it), and its menu: rename, WIP limit, move left or right, delete.
 */
import { useEffect, useRef, useState } from "react";
import type { Column } from "../../../../src/api-types";
import { ConfirmDialog } from "../../lib/dialogs";
import { useAction } from "../../lib/hooks";
import { ErrorText, Modal } from "../../lib/ui";
import { FileMenu, type MenuItem } from "../files/FileMenu";
import { countText, countTitle, isOverLimit } from "./model";
import type { ColumnOps } from "./use-board";
import { WipLimitDialog } from "./WipLimitDialog";

/**
 * The heading of `column`, which holds `count` tasks (all of them, what its WIP limit counts) and shows `shown`
 * of them (those the filter lets through; without a limit, that is the count shown).
 */
export function LaneHead({
  column,
  count,
  shown,
  columns,
  canWrite,
  ops,
}: {
  column: Column;
  count: number;
  shown: number;
  /** How many columns the board has (the last cannot move right, the only one cannot go). */
  columns: number;
  canWrite: boolean;
  ops: ColumnOps;
}) {
  const [menu, setMenu] = useState<{ x: number; y: number } | null>(null);
  const [renaming, setRenaming] = useState(false);
  const [dialog, setDialog] = useState<"limit" | "delete" | null>(null);
  const menuButton = useRef<HTMLButtonElement>(null);
  const over = isOverLimit(column, count);
  const limited = column.wip_limit !== null;
  const headingId = `lane-${column.id}`;

  // A column moved left or right is the same element in another place: the keyboard stays on its menu button.
  const refocus = useRef(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the column's place changes, on purpose.
  useEffect(() => {
    if (!refocus.current) return;
    refocus.current = false;
    menuButton.current?.focus();
  }, [column.position]);

  const moveBy = (step: number) => {
    refocus.current = true;
    void ops.change(column.id, { position: column.position + step }).catch(() => {
      refocus.current = false;
    });
  };

  /** A dialog opened from the menu gives the keyboard back to the menu's button when it closes. */
  const open = (which: "limit" | "delete") => () => {
    menuButton.current?.focus();
    setDialog(which);
  };
  const items: MenuItem[] = [
    { label: "Rename", run: () => setRenaming(true) },
    { label: column.wip_limit === null ? "Set WIP limit…" : "Change WIP limit…", run: open("limit") },
    ...(column.position > 0 ? [{ label: "Move left", run: () => moveBy(-1) }] : []),
    ...(column.position < columns - 1 ? [{ label: "Move right", run: () => moveBy(1) }] : []),
    { label: "Delete column…", run: open("delete"), danger: true },
  ];

  return (
    <header className="lane-head">
      {renaming ? (
        <>
          {/* The region keeps its name while the field is open. */}
          <h2 id={headingId} className="sr-only">
            {column.name}
          </h2>
          <RenameColumn
            column={column}
            onRename={(name) => ops.change(column.id, { name })}
            onDone={() => {
              setRenaming(false);
              requestAnimationFrame(() => menuButton.current?.focus());
            }}
          />
        </>
      ) : (
        // Focusable by script only: where the keyboard goes when the last card of a read-only column is deleted.
        <h2 id={headingId} tabIndex={-1}>
          {column.name}
        </h2>
      )}
      <span className={`lane-count${over ? " over" : ""}`} title={countTitle(column, limited ? count : shown)}>
        <span aria-hidden="true">{countText(column, limited ? count : shown)}</span>
        <span className="sr-only">{countTitle(column, limited ? count : shown)}</span>
      </span>
      {canWrite && !renaming && (
        <button
          ref={menuButton}
          type="button"
          className="icon lane-menu-button"
          aria-label={`Column menu of ${column.name}`}
          aria-haspopup="menu"
          aria-expanded={menu !== null}
          onClick={(event) => {
            const box = event.currentTarget.getBoundingClientRect();
            setMenu({ x: box.right - 170, y: box.bottom + 4 });
          }}
        >
          ⋯
        </button>
      )}
      {menu && <FileMenu label={`Column ${column.name}`} at={menu} items={items} onClose={() => setMenu(null)} />}
      {dialog === "limit" && (
        <WipLimitDialog
          column={column}
          count={count}
          onSave={(wip_limit) => ops.change(column.id, { wip_limit })}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog === "delete" && (
        <DeleteColumn column={column} count={count} only={columns === 1} ops={ops} onClose={() => setDialog(null)} />
      )}
    </header>
  );
}

/** The column's name as a field: Enter or leaving it saves, Escape puts the name back. */
function RenameColumn({
  column,
  onRename,
  onDone,
}: {
  column: Column;
  onRename: (name: string) => Promise<unknown>;
  onDone: () => void;
}) {
  const [name, setName] = useState(column.name);
  const action = useAction(onRename);
  const save = async () => {
    const value = name.trim();
    if (!value || value === column.name) return onDone();
    if (await action.run(value)) onDone();
  };
  return (
    <div className="lane-rename">
      <input
        // biome-ignore lint/a11y/noAutofocus: opened on purpose, from the column's menu, to type the name.
        autoFocus
        aria-label={`Name of the column ${column.name}`}
        maxLength={100}
        value={name}
        aria-invalid={action.error ? true : undefined}
        onFocus={(event) => event.currentTarget.select()}
        onChange={(event) => {
          setName(event.target.value);
          action.clear();
        }}
        onBlur={() => void save()}
        onKeyDown={(event) => {
          if (event.key === "Enter") {
            event.preventDefault();
            void save();
          } else if (event.key === "Escape") {
            event.preventDefault();
            onDone();
          }
        }}
      />
      <ErrorText error={action.error} />
    </div>
  );
}

/** Deleting a column: asked first; a column holding tasks, or the board's only one, is explained instead. */
function DeleteColumn({
  column,
  count,
  only,
  ops,
  onClose,
}: {
  column: Column;
  count: number;
  only: boolean;
  ops: ColumnOps;
  onClose: () => void;
}) {
  if (only || count > 0)
    return (
      <Modal title={`Delete “${column.name}”`} onClose={onClose}>
        <div className="stack">
          <p>
            {only
              ? "A board needs at least one column: add another before deleting this one."
              : `“${column.name}” still holds ${count} ${count === 1 ? "task" : "tasks"}. Move ${count === 1 ? "it" : "them"} to another column first: only an empty column can be deleted.`}
          </p>
          <div className="row end">
            <button type="button" className="primary" onClick={onClose}>
              OK
            </button>
          </div>
        </div>
      </Modal>
    );
  return (
    <ConfirmDialog
      title={`Delete “${column.name}”?`}
      confirmLabel="Delete column"
      onConfirm={async () => {
        // The keyboard goes to the heading of the column beside it (the one before, else the one after).
        const lane = document.querySelector(`[data-column-id="${CSS.escape(column.id)}"]`);
        const beside = (lane?.previousElementSibling ?? lane?.nextElementSibling)?.querySelector("h2");
        await ops.remove(column.id);
        requestAnimationFrame(() => (beside instanceof HTMLElement ? beside.focus() : undefined));
      }}
      onClose={onClose}
    >
      The column goes from the board for everyone. It holds no tasks.
    </ConfirmDialog>
  );
}
