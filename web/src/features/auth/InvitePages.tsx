/** Invite links: joining with a new account while signed out, or with the account signed in. */
import { useEffect, useState } from "react";
import type { InviteInfo, TokenPair, User } from "../../../../src/api-types";
import { ApiError, clearSignupPending, messageOf, signIn, signOut } from "../../lib/api";
import { Link, navigate, useLocation } from "../../lib/router";
import { busyProps, ErrorText } from "../../lib/ui";
import { getMe, listOrganizations } from "../../lib/workspace-api";
import { acceptInvite, inviteInfo, logOut } from "./api";
import { AuthForm, Card, Field, NewPasswordField } from "./auth-form";

/** The invite page of `token` (the sign-in page sends back there). */
export function inviteHref(token: string): string {
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
        <NewPasswordField />
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
