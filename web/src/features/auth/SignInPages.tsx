/** First-run setup, signing in and requesting an account. */
import { useState } from "react";
import { ApiError, sessionEndedReason, signIn } from "../../lib/api";
import { Link, navigate, useLocation } from "../../lib/router";
import { logIn, register, setUp } from "./api";
import { AuthForm, Card, Field, NewPasswordField } from "./auth-form";
import { inviteHref } from "./InvitePages";

/** The register route's refusal while open sign-ups are off, in words. */
const SIGNUPS_OFF =
  "This organization does not take sign-up requests: open sign-ups are off. Ask an administrator for an invite link.";

/** First-run setup, with the one-time token of the link `tandem serve` logs. */
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
        <NewPasswordField name="admin_password" />
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
        <NewPasswordField />
      </AuthForm>
      <p className="muted small">
        <Link href="/login">Back to sign in</Link>
      </p>
    </Card>
  );
}
