/**
 * Dialogs screens share: confirming a destructive action, and a secret (a staff token, an invite
 * link) that the server shows exactly once.
 */
import { type ReactNode, useId } from "react";
import { useAction } from "./hooks";
import { copy, ErrorText, Modal } from "./ui";

/**
 * Asks before something that cannot be undone. `onConfirm` runs the action; its error stays in the dialog in
 * the API's words, and the dialog closes only when it succeeded.
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  onConfirm,
  onClose,
  danger = true,
}: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
  danger?: boolean;
}) {
  const action = useAction(onConfirm);
  return (
    <Modal title={title} onClose={onClose}>
      <div className="stack">
        <div>{children}</div>
        <ErrorText error={action.error} />
        <div className="row end">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            className={danger ? "primary danger-fill" : "primary"}
            disabled={action.busy}
            onClick={() => void action.run().then((ok) => ok && onClose())}
          >
            {confirmLabel}
          </button>
        </div>
      </div>
    </Modal>
  );
}

/**
 * A value shown once: read-only, selected on focus, with a copy button and a warning that it cannot be shown
 * again (the server keeps only its hash).
 */
export function ShownOnce({ label, value, warning }: { label: string; value: string; warning: ReactNode }) {
  const id = useId();
  return (
    <div className="shown-once stack">
      <p className="shown-once-warning" role="note">
        <strong>Copy it now.</strong> {warning}
      </p>
      <label className="field" htmlFor={id}>
        <span>{label}</span>
      </label>
      <div className="row">
        <input
          id={id}
          className="grow mono"
          readOnly
          value={value}
          onFocus={(event) => event.currentTarget.select()}
          spellCheck={false}
        />
        <button type="button" className="primary" onClick={() => void copy(value, `${label} copied`)}>
          Copy
        </button>
      </div>
    </div>
  );
}
