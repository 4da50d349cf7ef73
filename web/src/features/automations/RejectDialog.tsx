/** Rejecting an automation that waits for approval, with an optional reason kept for whoever proposed it. */
import type { FormEvent } from "react";
import type { Automation } from "../../../../src/api-types";
import { useAction } from "../../lib/hooks";
import { ErrorText, Modal, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { rejectAutomation } from "./api";

/** Asks for an optional reason, then rejects. */
export function RejectDialog({ automation, onClose }: { automation: Automation; onClose: () => void }) {
  const ws = useWorkspace();
  const reject = useAction(async (reason: string) => {
    await rejectAutomation(ws.base, automation.space_id, automation.id, reason);
    toast(`Rejected “${automation.name}”`);
    onClose();
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void reject.run(String(new FormData(event.currentTarget).get("reason") ?? "").trim());
  };
  return (
    <Modal title={`Reject “${automation.name}”`} onClose={onClose}>
      <form className="stack" onSubmit={submit}>
        <label className="field">
          <span>Reason</span>
          <textarea
            name="reason"
            rows={3}
            maxLength={2000}
            placeholder="What should change before it can be approved? (optional)"
          />
        </label>
        <p className="muted small">The reason is kept with the automation, for whoever proposed it.</p>
        <ErrorText error={reject.error} />
        <div className="row end">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary danger-fill" disabled={reject.busy}>
            Reject
          </button>
        </div>
      </form>
    </Modal>
  );
}
