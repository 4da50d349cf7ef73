/**
 * One automation as the space's list, its own page and the approval inbox show it: its status, who proposed it
 * and why, what it will do, when it runs next or why it cannot run, its last run, and the actions the status
 * allows (approve / reject, run now, pause / resume, edit, delete).
 */
import { type ReactNode, useEffect, useMemo, useState } from "react";
import type { Automation, AutomationRun, AutomationStatus, Space } from "../../../../src/api-types";
import { ConfirmDialog } from "../../lib/dialogs";
import { useAction } from "../../lib/hooks";
import { Markdown } from "../../lib/markdown";
import { Link } from "../../lib/router";
import { dateTime, ErrorText, timeAgo, toast } from "../../lib/ui";
import { FORMER_STAFF, useWorkspace } from "../../lib/workspace";
import { AutomationForm } from "./AutomationForm";
import { approveAutomation, deleteAutomation, patchAutomation } from "./api";
import { ConfigSummary } from "./ConfigSummary";
import { browserTimeZone, runTime } from "./cron";
import { KINDS, proposalNote, STATUS_HINTS, STATUSES, text } from "./model";
import { RejectDialog } from "./RejectDialog";
import { RunNowButton } from "./RunNow";

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

/** "in 5 s", "in 4 min", "in 3 h", "in 2 days": how far off a time is. */
export function timeUntil(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((Date.parse(iso) - now) / 1000));
  if (seconds < 60) return seconds <= 1 ? "now" : `in ${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `in ${minutes} min`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `in ${hours} h`;
  return `in ${Math.round(hours / 24)} days`;
}

/**
 * Re-renders while `until` is ahead, so "in 4 min" counts down: every second in its last minute, else every 30
 * seconds. The server's `automation.updated` brings the next time once a run has passed.
 */
function useClock(until: string | null): void {
  const [, setNow] = useState(0);
  useEffect(() => {
    if (!until) return;
    const left = Date.parse(until) - Date.now();
    if (left <= 0) return;
    const timer = setTimeout(() => setNow(Date.now()), left < 60_000 ? 1000 : 30_000);
    return () => clearTimeout(timer);
  });
}

/** When it runs next, or why it cannot run. */
function RunsNext({ automation: a }: { automation: Automation }) {
  useClock(a.next_run_at);
  if (a.config_problem)
    return <p className="notice warn small config-problem">Cannot run until this is fixed: {a.config_problem}</p>;
  if (!a.next_run_at) return null;
  const seconds = text(a.config, "cron").trim().split(/\s+/).length === 6;
  return (
    <p className="small next-run">
      Next run{" "}
      <time dateTime={a.next_run_at} title={dateTime(a.next_run_at)}>
        {timeUntil(a.next_run_at)}
      </time>{" "}
      <span className="muted">({runTime(new Date(a.next_run_at), browserTimeZone(), seconds)})</span>
    </p>
  );
}

/**
 * Its last run, whether a social post's token is stored, and (in the list) the way to its page. The inbox
 * leaves out what only says that nothing happened yet.
 */
function Facts({ automation: a, inbox, page }: { automation: Automation; inbox: boolean; page: boolean }) {
  const facts: ReactNode[] = [];
  if (a.last_run_at)
    facts.push(
      <span key="run">
        Last run{" "}
        <time dateTime={a.last_run_at} title={dateTime(a.last_run_at)}>
          {timeAgo(a.last_run_at)}
        </time>
      </span>,
    );
  else if (!inbox) facts.push("No runs yet");
  if (a.kind === "social_post" || a.has_oauth_token)
    facts.push(
      <span key="token">
        OAuth token: {a.has_oauth_token ? <span className="ok-text">set (write-only)</span> : "none"}
      </span>,
    );
  if (!inbox && !page)
    facts.push(
      <Link key="page" href={`/spaces/${a.space_id}/automations/${a.id}`}>
        Runs and details
      </Link>,
    );
  if (facts.length === 0) return null;
  return <p className="small muted">{facts.flatMap((fact, i) => (i === 0 ? [fact] : [" · ", fact]))}</p>;
}

/**
 * One automation. `space` shows which space it belongs to (the approval inbox); `inbox` keeps only the review
 * actions; `page` is its own page (its name is not a link there). Changes come back through the
 * `automation.updated` / `automation.deleted` live events, and `onSaved` for callers that want the answer at once;
 * `onRun` hears of a run started here.
 */
export function AutomationCard({
  automation: a,
  space,
  inbox = false,
  page = false,
  staffNames,
  onSaved,
  onDeleted,
  onRun,
}: {
  automation: Automation;
  space?: Space;
  inbox?: boolean;
  page?: boolean;
  staffNames: Map<string, string>;
  onSaved: (automation: Automation) => void;
  onDeleted: (id: string) => void;
  onRun?: (run: AutomationRun) => void;
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
    if (kind === "approve")
      toast(
        saved.config_problem
          ? `Approved “${a.name}”: it is active, but cannot run until this is fixed: ${saved.config_problem}`
          : `Approved “${a.name}”: it is active now`,
      );
  });
  const note = proposalNote(a);
  // Deleting a staff member nulls both creator fields; a person's account is never deleted, so no creator at
  // all means a staff member deleted since, and it reads "proposed by Former AI staff".
  const byStaff = a.created_by_service_account_id !== null || a.created_by_user_id === null;
  const staffName = a.created_by_service_account_id ? staffNames.get(a.created_by_service_account_id) : undefined;
  const former = byStaff && !staffName;
  const author = byStaff ? (staffName ?? FORMER_STAFF) : ws.nameOf(a.created_by_user_id);
  const write = ws.can("files.write");
  // A staff token in the browser still gets the buttons, so the API's refusal is shown rather than guessed.
  const review = write || ws.me.service_account_id !== null;
  // Run now is a person's: a staff token is refused it, so it is not offered.
  const person = ws.me.service_account_id === null;

  return (
    // Focusable from code only: the approval inbox moves the keyboard here when the card before it goes.
    <article className="card automation" aria-label={a.name} tabIndex={-1}>
      <header className="automation-head">
        <h3 className="grow">
          {page ? a.name : <Link href={`/spaces/${a.space_id}/automations/${a.id}`}>{a.name}</Link>}
        </h3>
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
      <ConfigSummary automation={a} />
      <RunsNext automation={a} />
      <Facts automation={a} inbox={inbox} page={page} />
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
            {a.status === "active" && person && a.kind !== "reverse_tunnel" && (
              <RunNowButton automation={a} onRun={(run) => onRun?.(run)} />
            )}
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
          <p>The automation is deleted for good, with its stored OAuth token and webhook secret.</p>
        </ConfirmDialog>
      )}
    </article>
  );
}
