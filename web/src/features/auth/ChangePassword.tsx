/**
 * Changing one's own password (POST /me/password), in a dialog opened from the sidebar. The server ends the
 * account's other sessions; this tab's session, shared by its other tabs, stays signed in.
 */
import { type FormEvent, useEffect, useRef, useState } from "react";
import { messageOf } from "../../lib/api";
import { useAction } from "../../lib/hooks";
import { ErrorText, FormButtons, Modal, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { changePassword } from "./api";

/** The dialog: current password, new password twice; the API's refusal is shown in its words. */
export function ChangePasswordDialog({ onClose }: { onClose: () => void }) {
  const ws = useWorkspace();
  const [mismatch, setMismatch] = useState(false);
  const current = useRef<HTMLInputElement>(null);
  // The dialog would start on its first input, the hidden username for password managers, which cannot take
  // focus (so Close would have it): the cursor goes to the current password. This runs after the dialog opens.
  useEffect(() => current.current?.focus(), []);
  /** The last refusal was of the current password (then the keyboard goes back there). */
  const wrongCurrent = useRef(false);
  const { run, busy, error } = useAction(async (body: { current_password: string; new_password: string }) => {
    wrongCurrent.current = false;
    try {
      await changePassword(body);
    } catch (err) {
      wrongCurrent.current = /current password/i.test(messageOf(err));
      throw err;
    }
    toast("Password changed. Your other sessions are signed out.");
    onClose();
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const next = String(data.get("new_password") ?? "");
    // Checked here: a typo in a password nobody can see would otherwise lock the person out.
    const differ = next !== String(data.get("confirm_password") ?? "");
    setMismatch(differ);
    if (differ) return;
    void run({ current_password: String(data.get("current_password") ?? ""), new_password: next }).then((ok) => {
      // A wrong current password is what is typed again: the keyboard goes there, its text selected.
      const field = current.current;
      if (!ok && wrongCurrent.current && field?.isConnected) {
        field.focus();
        field.select();
      }
    });
  };
  return (
    <Modal title="Change password" onClose={onClose}>
      <form onSubmit={submit} className="stack">
        {/* For password managers: which account this password belongs to. */}
        <input type="email" name="username" autoComplete="username" value={ws.me.email} readOnly hidden />
        <label className="field">
          <span>Current password</span>
          <input
            ref={current}
            name="current_password"
            type="password"
            autoComplete="current-password"
            required
            maxLength={1024}
          />
        </label>
        <label className="field">
          <span>New password (at least 8 characters)</span>
          <input
            name="new_password"
            type="password"
            autoComplete="new-password"
            required
            minLength={8}
            maxLength={1024}
          />
        </label>
        <label className="field">
          <span>Confirm new password</span>
          <input
            name="confirm_password"
            type="password"
            autoComplete="new-password"
            required
            minLength={8}
            maxLength={1024}
            aria-invalid={mismatch || undefined}
          />
        </label>
        <p className="muted small">Your other devices and browsers are signed out; this one stays signed in.</p>
        <FormButtons onCancel={onClose} disabled={busy} label="Change password" />
        <ErrorText error={mismatch ? "The new passwords do not match." : error} />
      </form>
    </Modal>
  );
}
