/**
 * One automation as both the space's list and the approval inbox show it: its status, who proposed it and why,
 * its configuration, and the actions the status allows (approve / reject, pause / resume, edit, delete).
 */
import { type FormEvent, useMemo, useState } from "react";
import type { Automation, AutomationStatus, Space } from "../../../../src/api-types";
import { ConfirmDialog } from "../../lib/dialogs";
import { useAction } from "../../lib/hooks";
import { Markdown } from "../../lib/markdown";
import { Link } from "../../lib/router";
import { dateTime, ErrorText, Modal, timeAgo, toast } from "../../lib/ui";
import { FORMER_STAFF, useWorkspace } from "../../lib/workspace";
import { AutomationForm } from "./AutomationForm";
import { approveAutomation, deleteAutomation, patchAutomation, rejectAutomation } from "./api";
import { KINDS, proposalNote, STATUS_HINTS, STATUSES } from "./model";

/** A status as a colored pill. */
export function StatusPill({ status }: { status: string }) {
  return (
    <span className={`status-pill status-${status}`} title={STATUS_HINTS[status as AutomationStatus]}>
      {STATUSES[status as AutomationStatus] ?? status}
    </span>
  );
}

/**
 * Names of staff members by service-account id, for "proposed by". Taken from the member list, which everyone
 * can read (the service-accounts list is for managers only); a deleted staff member reads "Former AI staff".
 */
export function useStaffNames(): Map<string, string> {
  const ws = useWorkspace();
  return useMemo(() => {
    const names = new Map<string, string>();
    for (const m of ws.members) if (m.service_account_id) names.set(m.service_account_id, m.display_name);
    return names;
  }, [ws.members]);
}

/** Asks for an optional reason, then rejects. */
function RejectDialog({ automation, onClose }: { automation: Automation; onClose: () => void }) {
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

/**
 * One automation. `space` shows which space it belongs to (the approval inbox); `inbox` keeps only the review
 * actions. Changes come back through the `automation.updated` / `automation.deleted` live events, and `onSaved`
 * for callers that want the answer at once.
 */
export function AutomationCard({
  automation: a,
  space,
  inbox = false,
  staffNames,
  onSaved,
  onDeleted,
}: {
  automation: Automation;
  space?: Space;
  inbox?: boolean;
  staffNames: Map<string, string>;
  onSaved: (automation: Automation) => void;
  onDeleted: (id: string) => void;
}) {
  const ws = useWorkspace();
  const [dialog, setDialog] = useState<"reject" | "edit" | "delete" | null>(null);
  const act = useAction(async (kind: "approve" | "pause" | "resume" | "activate" | "submit") => {
    let saved: Automation;
    if (kind === "approve") saved = await approveAutomation(ws.base, a.space_id, a.id);
    else {
      const status = ({ pause: "paused", resume: "active", activate: "active", submit: "pending_approval" } as const)[
        kind
      ];
      saved = await patchAutomation(ws.base, a.space_id, a.id, { status });
    }
    onSaved(saved);
    if (kind === "approve") toast(`Approved “${a.name}”: marked Active (this version of Tandem does not run it)`);
  });
  const note = proposalNote(a);
  const { proposal_note: _, ...config } = a.config;
  // Deleting a staff member nulls both creator fields; a person's account is never deleted, so no creator at
  // all means a staff member deleted since, and it reads "proposed by Former AI staff".
  const byStaff = a.created_by_service_account_id !== null || a.created_by_user_id === null;
  const staffName = a.created_by_service_account_id ? staffNames.get(a.created_by_service_account_id) : undefined;
  const former = byStaff && !staffName;
  const author = byStaff ? (staffName ?? FORMER_STAFF) : ws.nameOf(a.created_by_user_id);
  const write = ws.can("files.write");
  // A staff token in the browser still gets the buttons, so the API's refusal is shown rather than guessed.
  const review = write || ws.me.service_account_id !== null;

  return (
    // Focusable from code only: the approval inbox moves the keyboard here when the card before it goes.
    <article className="card automation" aria-label={a.name} tabIndex={-1}>
      <header className="automation-head">
        <h3 className="grow">{a.name}</h3>
        <StatusPill status={a.status} />
      </header>
      <p className="muted small">
        {KINDS[a.kind] ?? a.kind} · {byStaff ? "proposed by " : "created by "}
        <strong>{author}</strong>
        {byStaff && !former && <span className="staff-tag"> AI staff</span>} ·{" "}
        <time dateTime={a.created_at} title={dateTime(a.created_at)}>
          {timeAgo(a.created_at)}
        </time>
        {space && (
          <>
            {" "}
            · in <Link href={`/spaces/${space.id}/automations`}>{space.name}</Link>
          </>
        )}
      </p>
      {note && (
        <blockquote className="proposal-note">
          <span className="small muted">{former ? "Why it was proposed" : `Why ${author} proposes it`}</span>
          <Markdown source={note} />
        </blockquote>
      )}
      {Object.keys(config).length > 0 ? (
        <details className="automation-config" open={inbox}>
          <summary className="small">Configuration</summary>
          <pre>{JSON.stringify(config, null, 2)}</pre>
        </details>
      ) : (
        <p className="small muted">No configuration.</p>
      )}
      <p className="small muted">
        OAuth token: {a.has_oauth_token ? <span className="ok-text">set (write-only)</span> : "none"}
        {a.last_run_at && <> · last run {timeAgo(a.last_run_at)}</>}
      </p>
      {a.last_error && <p className="error small">Last run failed: {a.last_error}</p>}
      {a.status === "rejected" && (
        <p className="small rejection">
          Rejected by {ws.nameOf(a.reviewed_by_user_id)}
          {a.reviewed_at && ` ${timeAgo(a.reviewed_at)}`}
          {a.rejection_reason ? `: ${a.rejection_reason}` : " (no reason given)"}
        </p>
      )}
      {a.status !== "rejected" && a.reviewed_at && (
        <p className="small muted">
          Approved by {ws.nameOf(a.reviewed_by_user_id)} {timeAgo(a.reviewed_at)}
        </p>
      )}
      <ErrorText error={act.error} />
      <footer className="automation-actions">
        {a.status === "pending_approval" && review && (
          <>
            <button type="button" className="primary" disabled={act.busy} onClick={() => void act.run("approve")}>
              Approve
            </button>
            <button type="button" className="danger" disabled={act.busy} onClick={() => setDialog("reject")}>
              Reject
            </button>
          </>
        )}
        {!inbox && write && (
          <>
            {a.status === "active" && (
              <button type="button" disabled={act.busy} onClick={() => void act.run("pause")}>
                Pause
              </button>
            )}
            {a.status === "paused" && (
              <button type="button" disabled={act.busy} onClick={() => void act.run("resume")}>
                Resume
              </button>
            )}
            {a.status === "draft" && (
              <>
                <button type="button" disabled={act.busy} onClick={() => void act.run("activate")}>
                  Activate
                </button>
                <button type="button" disabled={act.busy} onClick={() => void act.run("submit")}>
                  Ask for approval
                </button>
              </>
            )}
            <button type="button" onClick={() => setDialog("edit")}>
              Edit
            </button>
            <button type="button" className="link danger" onClick={() => setDialog("delete")}>
              Delete
            </button>
          </>
        )}
      </footer>
      {dialog === "reject" && <RejectDialog automation={a} onClose={() => setDialog(null)} />}
      {dialog === "edit" && (
        <AutomationForm spaceId={a.space_id} automation={a} onClose={() => setDialog(null)} onSaved={onSaved} />
      )}
      {dialog === "delete" && (
        <ConfirmDialog
          title={`Delete “${a.name}”?`}
          confirmLabel="Delete automation"
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            await deleteAutomation(ws.base, a.space_id, a.id);
            onDeleted(a.id);
          }}
        >
          <p>The automation is deleted for good, with its stored OAuth token.</p>
        </ConfirmDialog>
      )}
    </article>
  );
}
