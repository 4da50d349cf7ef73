/** Pages before the workspace: first-run setup, sign in, register, accept an invite, waiting for approval. */
import { type FormEvent, type ReactNode, useCallback, useEffect, useRef, useState } from "react";
import type { InviteInfo, TokenPair, User } from "../../../../src/api-types";
import { ApiError, clearSignupPending, messageOf, sessionEndedReason, signIn, signOut } from "../../lib/api";
import { useAction } from "../../lib/hooks";
import { Link, navigate, useLocation } from "../../lib/router";
import { busyProps, ErrorText, usePageTitle } from "../../lib/ui";
import { getMe, listOrganizations } from "../../lib/workspace-api";
import { acceptInvite, inviteInfo, logIn, logOut, register, setUp } from "./api";

function Card({
  title,
  pageTitle,
  intro,
  children,
}: {
  title: string;
  /** The window's title, when the heading would repeat "Tandem". */
  pageTitle?: string;
  intro?: ReactNode;
  children: ReactNode;
}) {
  usePageTitle(pageTitle ?? title);
  return (
    <main className="auth-card">
      <h1>{title}</h1>
      {intro && <p className="muted">{intro}</p>}
      {children}
    </main>
  );
}

/**
 * A form whose submit runs `action` with its fields; the API's error is shown under it. The submit button stays
 * focusable while busy; when the request is refused, the keyboard goes to the field named `retry` (the
 * password after a wrong one), its text selected to type again.
 */
function AuthForm({
  submit,
  label,
  retry,
  children,
}: {
  /** Runs with a reader of the form's fields by name. */
  submit: (field: (name: string) => string) => Promise<unknown>;
  label: string;
  retry?: string;
  children: ReactNode;
}) {
  const { run, busy, error } = useAction(submit);
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const ok = await run((name) => String(data.get(name) ?? ""));
    const field = retry ? form.elements.namedItem(retry) : null;
    if (!ok && field instanceof HTMLInputElement && form.isConnected) {
      field.focus();
      field.select();
    }
  };
  return (
    <form onSubmit={(event) => void onSubmit(event)} className="stack">
      {children}
      <button type="submit" className="primary" {...busyProps(busy)}>
        {label}
      </button>
      <ErrorText error={error} />
    </form>
  );
}

function Field({
  name,
  label,
  type = "text",
  autoComplete,
  required = true,
  defaultValue,
  minLength,
  readOnly,
  hint,
}: {
  name: string;
  label: string;
  type?: string;
  autoComplete?: string;
  required?: boolean;
  defaultValue?: string;
  minLength?: number;
  readOnly?: boolean;
  /** Said under the field (why it cannot be changed, say). */
  hint?: string;
}) {
  return (
    <label className="field">
      <span>{label}</span>
      <input
        name={name}
        type={type}
        autoComplete={autoComplete}
        required={required}
        defaultValue={defaultValue}
        minLength={minLength}
        readOnly={readOnly}
      />
      {hint && <span className="muted small">{hint}</span>}
    </label>
  );
}

/** The register route's refusal while open sign-ups are off, in words. */
const SIGNUPS_OFF =
  "This organization does not take sign-up requests: open sign-ups are off. Ask an administrator for an invite link.";

export function SetupPage({ onDone }: { onDone: () => void }) {
  const { query } = useLocation();
  const token = query.get("token");
  if (!token)
    return (
      <Card title="Set up Tandem" pageTitle="Set up">
        <p>
          This install has no organization yet. Open the setup link that <code>tandem serve</code> printed in its log,
          or run <code>tandem setup</code>.
        </p>
      </Card>
    );
  return (
    <Card
      title="Set up Tandem"
      pageTitle="Set up"
      intro="Create your organization and its owner account. This works once."
    >
      <AuthForm
        label="Create organization"
        submit={async (f) => {
          const login = await setUp({
            token,
            org_name: f("org_name"),
            admin_email: f("admin_email"),
            admin_password: f("admin_password"),
            ...(f("admin_name").trim() ? { admin_name: f("admin_name").trim() } : {}),
          });
          signIn(login);
          // The one-time token must not linger in the history.
          navigate("/spaces", { replace: true });
          onDone();
        }}
      >
        <Field name="org_name" label="Organization name" autoComplete="organization" />
        <Field name="admin_name" label="Your name" autoComplete="name" required={false} />
        <Field name="admin_email" label="Email" type="email" autoComplete="email" />
        <Field
          name="admin_password"
          label="Password (at least 8 characters)"
          type="password"
          autoComplete="new-password"
          minLength={8}
        />
      </AuthForm>
    </Card>
  );
}

/**
 * Sign in. `openSignups` (the instance's `open_signups_enabled`) decides whether requesting an account is
 * offered. When the last session ended elsewhere, the page says so first.
 */
export function LoginPage({ openSignups }: { openSignups: boolean }) {
  // Read once: signing in clears it, and the notice should not vanish while the form is filled in.
  const [ended] = useState(sessionEndedReason);
  const { query } = useLocation();
  // Reached from an invite's "Sign in": once signed in, back to the invite, to join with this account.
  const invite = query.get("invite");
  return (
    <Card
      title="Sign in to Tandem"
      pageTitle="Sign in"
      intro={invite ? "Sign in with your account, then join with your invite." : undefined}
    >
      {ended && (
        <p
          role="status"
          style={{ borderLeft: "3px solid var(--warn)", background: "var(--raised)", padding: "8px 12px", margin: 0 }}
        >
          {ended}
        </p>
      )}
      <AuthForm
        label="Sign in"
        retry="password"
        submit={async (f) => {
          signIn(await logIn({ email: f("email"), password: f("password") }));
          if (invite) navigate(inviteHref(invite), { replace: true });
          else if (location.pathname === "/login" || location.pathname === "/") navigate("/spaces", { replace: true });
        }}
      >
        <Field
          name="email"
          label="Email"
          type="email"
          autoComplete="username"
          defaultValue={query.get("email") ?? undefined}
        />
        <Field name="password" label="Password" type="password" autoComplete="current-password" />
      </AuthForm>
      <p className="muted small">
        {invite ? (
          <Link href={inviteHref(invite)}>Back to the invite</Link>
        ) : openSignups ? (
          <>
            No account? <Link href="/register">Request one</Link>, or ask for an invite link.
          </>
        ) : (
          "No account? Ask an administrator for an invite link."
        )}
      </p>
    </Card>
  );
}

/** Request an account; while open sign-ups are off (`openSignups` false) the page says so instead of a form. */
export function RegisterPage({ openSignups }: { openSignups: boolean }) {
  if (!openSignups)
    return (
      <Card title="Request an account">
        <p role="status">{SIGNUPS_OFF}</p>
        <p className="muted small">
          <Link href="/login">Back to sign in</Link>
        </p>
      </Card>
    );
  return (
    <Card title="Request an account" intro="An administrator approves new accounts before they can work.">
      <AuthForm
        label="Request account"
        submit={async (f) => {
          try {
            signIn(
              await register({
                email: f("email"),
                password: f("password"),
                display_name: f("display_name"),
              }),
            );
          } catch (error) {
            // Sign-ups were turned off after the page loaded.
            if (error instanceof ApiError && error.message === "signups_disabled") throw new Error(SIGNUPS_OFF);
            throw error;
          }
          navigate("/spaces", { replace: true });
        }}
      >
        <Field name="display_name" label="Your name" autoComplete="name" />
        <Field name="email" label="Email" type="email" autoComplete="email" />
        <Field
          name="password"
          label="Password (at least 8 characters)"
          type="password"
          autoComplete="new-password"
          minLength={8}
        />
      </AuthForm>
      <p className="muted small">
        <Link href="/login">Back to sign in</Link>
      </p>
    </Card>
  );
}

/** The invite page of `token` (the sign-in page sends back there). */
function inviteHref(token: string): string {
  return `/invite?token=${encodeURIComponent(token)}`;
}

/** What `token`'s invite is, or why it cannot be used (asked before anything is typed). */
function useInviteInfo(token: string): { info: InviteInfo | null; problem: string | null } {
  const [info, setInfo] = useState<InviteInfo | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    inviteInfo(token).then(setInfo, (error) => setProblem(messageOf(error)));
  }, [token]);
  return { info, problem };
}

/**
 * An invite link opened while signed out: create an account with it. Someone who has an account already (a
 * member removed earlier, say) signs in through the link below, which brings them back here to join with it.
 */
export function AcceptInvitePage() {
  const { query } = useLocation();
  const token = query.get("token") ?? "";
  const { info, problem } = useInviteInfo(token);
  const title = info ? `Join ${info.organization_name} on Tandem` : "Join your team on Tandem";
  const email = info?.email ?? query.get("email");
  const signInHref = `/login?invite=${encodeURIComponent(token)}${email ? `&email=${encodeURIComponent(email)}` : ""}`;
  if (problem) {
    return (
      <Card title={title}>
        <ErrorText error={`This invite cannot be used: ${problem}. Ask whoever sent it for a new one.`} />
        <p className="muted small">
          Already have an account? <Link href="/login">Sign in</Link>
        </p>
      </Card>
    );
  }
  return (
    <Card title={title} intro="Create your account to accept the invite.">
      <AuthForm
        label="Join"
        submit={async (f) => {
          try {
            signIn(
              await acceptInvite({
                token,
                email: f("email"),
                password: f("password"),
                display_name: f("display_name"),
              }),
            );
          } catch (error) {
            // The email has an account, and this is not its password: say what to do, not only what went wrong.
            if (error instanceof ApiError && error.message === "email already registered")
              throw new Error(
                "email already registered: this email has an account. Sign in below to join with it, or type that account's password here.",
              );
            throw error;
          }
          navigate("/spaces", { replace: true });
        }}
      >
        <Field name="display_name" label="Your name" autoComplete="name" />
        <Field
          // Remounted once the invite's email is known, so it is filled in. An invite made for one address is
          // accepted only with it: the field is fixed, not left to be refused after submitting.
          key={info?.email ?? ""}
          name="email"
          label="Email"
          type="email"
          autoComplete="email"
          defaultValue={info?.email ?? query.get("email") ?? ""}
          readOnly={Boolean(info?.email)}
          hint={info?.email ? "This invite is for this address." : undefined}
        />
        <Field
          name="password"
          label="Password (at least 8 characters)"
          type="password"
          autoComplete="new-password"
          minLength={8}
        />
      </AuthForm>
      <p className="muted small">
        Already have an account? <Link href={signInHref}>Sign in</Link> to join with it.
      </p>
    </Card>
  );
}

/** Signs out and stays on the address: the invite page then offers to create an account with the link. */
function SignOutHere({ className }: { className?: string }) {
  const [leaving, setLeaving] = useState(false);
  return (
    <button
      type="button"
      className={className}
      {...busyProps(leaving)}
      onClick={() => {
        setLeaving(true);
        void signOut();
      }}
    >
      Sign out
    </button>
  );
}

/**
 * An invite link opened while signed in: join its organization with this account (a member removed earlier, a
 * signup still waiting, someone signed in to accept it). The API joins an existing account when the invite is
 * accepted with its email and its password, so the page asks for the password only. A member already, or an
 * invite made for another address, is told so before anything is typed.
 */
export function JoinWithAccountPage() {
  const { query } = useLocation();
  const token = query.get("token") ?? "";
  const { info, problem } = useInviteInfo(token);
  const [me, setMe] = useState<User | null>(null);
  const [orgs, setOrgs] = useState<{ name: string }[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    Promise.all([getMe(), listOrganizations()]).then(
      ([user, list]) => {
        setMe(user);
        setOrgs(list);
      },
      (err) => setError(messageOf(err)),
    );
  }, []);
  const title = info ? `Join ${info.organization_name} on Tandem` : "Join your team on Tandem";
  const signOutHere = <SignOutHere />;
  const open = <Link href="/spaces">Open Tandem</Link>;

  if (problem || error)
    return (
      <Card title={title}>
        <ErrorText
          error={problem ? `This invite cannot be used: ${problem}. Ask whoever sent it for a new one.` : error}
        />
        <div className="row">{orgs?.length ? open : signOutHere}</div>
      </Card>
    );
  if (!info || !me || !orgs)
    return (
      <Card title={title}>
        <p className="muted">Loading the invite…</p>
      </Card>
    );
  if (orgs.some((o) => o.name === info.organization_name))
    return (
      <Card title={title}>
        <p>
          You are already a member of {info.organization_name} as {me.email}. This invite stays unused, for whoever it
          was meant for.
        </p>
        <p className="muted small">To accept it with another account, sign out first.</p>
        <div className="row">
          {open}
          {signOutHere}
        </div>
      </Card>
    );
  if (info.email && info.email.toLowerCase() !== me.email.toLowerCase())
    return (
      <Card title={title}>
        <p>
          This invite is for {info.email}, and you are signed in as {me.email}. Sign out to accept it with that address.
        </p>
        <div className="row">{signOutHere}</div>
      </Card>
    );
  return (
    <Card
      title={`Join ${info.organization_name} as ${me.email}`}
      pageTitle={title}
      intro="Type your account's password to join with this account."
    >
      <AuthForm
        label="Join"
        retry="password"
        submit={async (f) => {
          let joined: TokenPair;
          try {
            joined = await acceptInvite({
              token,
              email: me.email,
              password: f("password"),
              display_name: me.display_name,
            });
          } catch (err) {
            // The API's answer to a wrong password of an existing account.
            if (err instanceof ApiError && err.message === "email already registered")
              throw new Error(`That is not the password of ${me.email}.`);
            throw err;
          }
          // This tab's session stays (it is the same account, a member now); the one accepting made is not needed.
          await logOut(joined.refresh_token).catch(() => {});
          clearSignupPending();
          navigate("/spaces", { replace: true });
        }}
      >
        <Field name="password" label="Password" type="password" autoComplete="current-password" />
      </AuthForm>
      <p className="muted small">
        Not {me.email}? <SignOutHere className="link" /> to accept the invite with another account.
      </p>
    </Card>
  );
}

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
