/** Sign-up requests: accounts made through open signups, approved (with roles) or denied by a person. */
import { useEffect, useRef, useState } from "react";
import type { Role, SignupRequest } from "../../../../src/api-types";
import { ConfirmDialog } from "../../lib/dialogs";
import { useAction, useLoad } from "../../lib/hooks";
import { Link, navigate, useLocation } from "../../lib/router";
import { dateTime, ErrorText, FormButtons, Modal, Spinner, timeAgo, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { approveSignup, denySignup, listRoles, listSignupRequests } from "./api";
import { LoadError } from "./refusal";
import { defaultRoleIds, RolePicker, useMissing } from "./roles";

/** How often the open list asks again while visible: a new request has no live event. */
export const SIGNUPS_POLL_MS = 15_000;

/**
 * Calls `reload` every `SIGNUPS_POLL_MS` while the tab is visible, and at once when it becomes visible again
 * (sign-up requests have no live event, so this is how a new one shows up without a reload).
 */
function usePolling(reload: () => Promise<void>): void {
  const latest = useRef(reload);
  latest.current = reload;
  useEffect(() => {
    const again = () => {
      if (document.visibilityState === "visible") void latest.current();
    };
    const timer = setInterval(again, SIGNUPS_POLL_MS);
    document.addEventListener("visibilitychange", again);
    addEventListener("focus", again);
    return () => {
      clearInterval(timer);
      document.removeEventListener("visibilitychange", again);
      removeEventListener("focus", again);
    };
  }, []);
}

const FILTERS = [
  ["pending", "Pending"],
  ["approved", "Approved"],
  ["denied", "Denied"],
  ["", "All"],
] as const;

function ApproveDialog({
  request,
  roles,
  onClose,
  onDone,
}: {
  request: SignupRequest;
  roles: Role[];
  onClose: () => void;
  onDone: () => Promise<void>;
}) {
  const ws = useWorkspace();
  const missing = useMissing();
  const [value, setValue] = useState<string[]>(() => defaultRoleIds(roles, missing));
  const approve = useAction(async () => {
    await approveSignup(ws.base, request.id, value);
    await onDone();
    toast(`${request.display_name} can work now`);
    onClose();
  });
  return (
    <Modal title={`Approve ${request.display_name}`} onClose={onClose}>
      <form
        className="stack"
        onSubmit={(event) => {
          event.preventDefault();
          void approve.run();
        }}
      >
        <p>
          {request.display_name} <span className="muted">({request.email})</span> joins the organization with:
        </p>
        <RolePicker roles={roles} value={value} onChange={setValue} />
        <ErrorText error={approve.error} />
        <FormButtons onCancel={onClose} disabled={approve.busy} label="Approve" />
      </form>
    </Modal>
  );
}

/** The Sign-up requests tab. */
export function SignupsTab() {
  const ws = useWorkspace();
  // The filter lives in the address (`?status=approved`, `?status=all`; none: pending), so a reload, Back, or a
  // shared link keeps it.
  const { path, query } = useLocation();
  const asked = query.get("status");
  const status: (typeof FILTERS)[number][0] =
    asked === "all" ? "" : (FILTERS.find(([value]) => value && value === asked)?.[0] ?? "pending");
  const setStatus = (value: (typeof FILTERS)[number][0]) =>
    navigate(value === "pending" ? path : `${path}?status=${value || "all"}`, { replace: true });
  const requests = useLoad(listSignupRequests, ws.base, status || undefined);
  const roles = useLoad(listRoles, ws.base);
  usePolling(requests.reload);
  const [approving, setApproving] = useState<SignupRequest | null>(null);
  const [denying, setDenying] = useState<SignupRequest | null>(null);
  const done = async () => {
    await Promise.all([requests.reload(), ws.reloadMembers()]);
  };
  return (
    <div className="stack">
      {!ws.org.open_signups_enabled && (
        <p className="notice">
          Open signups are off, so no new requests arrive.{" "}
          {ws.can("org.manage") && <Link href="/settings/organization">Turn them on</Link>}
        </p>
      )}
      <fieldset className="filter-chips">
        <legend className="sr-only">Show requests</legend>
        {FILTERS.map(([value, label]) => (
          <button
            key={value || "all"}
            type="button"
            className={status === value ? "chip active" : "chip"}
            aria-pressed={status === value}
            onClick={() => setStatus(value)}
          >
            {label}
          </button>
        ))}
      </fieldset>
      <LoadError error={requests.error} />
      <LoadError error={roles.error} />
      {!requests.data && !requests.error && <Spinner />}
      {requests.data?.length === 0 && (
        <p className="muted">{status === "pending" ? "Nobody is waiting for approval." : "No requests here."}</p>
      )}
      <ul className="list">
        {requests.data?.map((r) => (
          <li key={r.id} className="card signup-row">
            <div className="grow">
              <strong>{r.display_name}</strong> <span className="muted">{r.email}</span>
              <br />
              <span className="muted small" title={dateTime(r.created_at)}>
                asked {timeAgo(r.created_at)}
                {r.resolved_at && ` · ${r.status} ${timeAgo(r.resolved_at)}`}
              </span>
            </div>
            {r.status === "pending" ? (
              <div className="row">
                <button
                  type="button"
                  className="primary"
                  disabled={!roles.data}
                  onClick={() => setApproving(r)}
                  aria-label={`Approve ${r.display_name}`}
                >
                  Approve
                </button>
                <button
                  type="button"
                  className="danger"
                  onClick={() => setDenying(r)}
                  aria-label={`Deny ${r.display_name}`}
                >
                  Deny
                </button>
              </div>
            ) : (
              <span className={`invite-state ${r.status === "approved" ? "accepted" : "expired"}`}>{r.status}</span>
            )}
          </li>
        ))}
      </ul>
      {approving && roles.data && (
        <ApproveDialog request={approving} roles={roles.data} onClose={() => setApproving(null)} onDone={done} />
      )}
      {denying && (
        <ConfirmDialog
          title={`Deny ${denying.display_name}?`}
          confirmLabel="Deny"
          onClose={() => setDenying(null)}
          onConfirm={async () => {
            await denySignup(ws.base, denying.id);
            await done();
            toast(`${denying.display_name} was denied`);
          }}
        >
          <p>{denying.email} can no longer sign in, and any open session ends.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
