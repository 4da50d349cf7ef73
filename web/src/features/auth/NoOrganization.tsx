/** Signed in but not a member: no organization, or a sign-up waiting for approval until it is approved. */
import { useCallback, useEffect, useRef, useState } from "react";
import { clearSignupPending, messageOf, signOut } from "../../lib/api";
import { navigate } from "../../lib/router";
import { busyProps, ErrorText } from "../../lib/ui";
import { listOrganizations } from "../../lib/workspace-api";
import { Card } from "./auth-form";

/** How often the waiting screen asks whether the signup was approved. */
const APPROVAL_POLL_MS = 10_000;

/**
 * While a signup waits for approval, asks the API whether the account is a member now: at once, every 10
 * seconds while shown, and whenever the window comes back into focus or view. Once it is, the stored session
 * stops being pending and the app opens the workspace, without signing in again. A denied signup ends the
 * session on the server, and the next check lands on the sign-in page.
 */
function useApprovalCheck(enabled: boolean): {
  check: () => void;
  checking: boolean;
  checkedAt: Date | null;
  error: string | null;
} {
  const [checking, setChecking] = useState(false);
  const [checkedAt, setCheckedAt] = useState<Date | null>(null);
  const [error, setError] = useState<string | null>(null);
  const running = useRef(false);
  const check = useCallback(() => {
    if (running.current) return;
    running.current = true;
    setChecking(true);
    listOrganizations()
      .then((organizations) => {
        setError(null);
        setCheckedAt(new Date());
        if (organizations.length > 0) clearSignupPending();
      })
      .catch((err) => setError(`Could not check whether your account was approved: ${messageOf(err)}`))
      .finally(() => {
        running.current = false;
        setChecking(false);
      });
  }, []);
  useEffect(() => {
    if (!enabled) return;
    check();
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") check();
    }, APPROVAL_POLL_MS);
    const onVisible = () => {
      if (document.visibilityState === "visible") check();
    };
    addEventListener("focus", check);
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      clearInterval(timer);
      removeEventListener("focus", check);
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, [enabled, check]);
  return { check, checking, checkedAt, error };
}

/** Signed in, but not (yet) a member of the organization. */
export function NoOrganization({ pending }: { pending: boolean }) {
  const [busy, setBusy] = useState(false);
  const approval = useApprovalCheck(pending);
  return (
    <Card title={pending ? "Waiting for approval" : "No organization"}>
      <p>
        {pending
          ? "Your account was created. An administrator has to approve it before you can work; this page opens your workspace as soon as they have."
          : "Your account is not a member of this organization. Ask an administrator for an invite link, and open it in this browser to join with this account."}
      </p>
      {/* A live region there all the while, so each check is answered aloud (the time changes each check). */}
      {pending && (
        <p className="muted small" role="status">
          {approval.checkedAt && !approval.error
            ? `Not approved yet · checked at ${approval.checkedAt.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" })}`
            : ""}
        </p>
      )}
      {pending && <ErrorText error={approval.error} />}
      <div className="row">
        {pending && (
          <button type="button" {...busyProps(approval.checking)} onClick={approval.check}>
            {approval.checking ? "Checking…" : "Check again"}
          </button>
        )}
        <button
          type="button"
          disabled={busy}
          onClick={() => {
            setBusy(true);
            void signOut().then(() => navigate("/login", { replace: true }));
          }}
        >
          Sign out
        </button>
      </div>
    </Card>
  );
}
