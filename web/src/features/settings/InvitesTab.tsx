/**
 * Invites: a link (shown once, since the server keeps only a hash of its token) that lets someone join with
 * the chosen roles, optionally only with one email address; the list with each invite's state; revoking.
 */
import { type FormEvent, useEffect, useRef, useState } from "react";
import type { Invite } from "../../../../src/api-types";
import { ConfirmDialog, ShownOnce } from "../../lib/dialogs";
import { useAction, useLoad } from "../../lib/hooks";
import { dateTime, ErrorText, Spinner, timeAgo, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { createInvite, listInvites, listRoles, revokeInvite } from "./api";
import { LoadError } from "./refusal";
import { defaultRoleIds, RolePicker, roleNames, useMissing } from "./roles";

/** The link the accept-invite page reads (`/invite?token=…&email=…`). */
export function inviteLink(token: string, email: string | null): string {
  const query = new URLSearchParams({ token });
  if (email) query.set("email", email);
  return `${location.origin}/invite?${query}`;
}

function stateOf(invite: Invite): { label: string; kind: "accepted" | "expired" | "pending" } {
  if (invite.accepted_at) return { label: `Accepted ${timeAgo(invite.accepted_at)}`, kind: "accepted" };
  if (Date.parse(invite.expires_at) <= Date.now()) return { label: "Expired", kind: "expired" };
  return { label: `Pending · expires ${new Date(invite.expires_at).toLocaleDateString()}`, kind: "pending" };
}

/** The Invites tab. */
export function InvitesTab() {
  const ws = useWorkspace();
  const invites = useLoad(listInvites, ws.base);
  const roles = useLoad(listRoles, ws.base);
  const roleList = roles.data ?? [];
  const [roleIds, setRoleIds] = useState<string[]>([]);
  const [link, setLink] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<Invite | null>(null);
  const result = useRef<HTMLDivElement>(null);
  // The new link takes the keyboard, selected for copying (as a staff token does): a screen reader reads it out,
  // and the submit button's focus is not left where nothing happened.
  useEffect(() => {
    if (link) result.current?.querySelector("input")?.focus();
  }, [link]);

  // Member is the default role of an invite, as on the server, when the user may grant it.
  const missing = useMissing();
  // biome-ignore lint/correctness/useExhaustiveDependencies: chosen once the roles arrive, not on every render.
  useEffect(() => {
    if (roles.data) setRoleIds((ids) => (ids.length ? ids : defaultRoleIds(roles.data ?? [], missing)));
  }, [roles.data]);

  const create = useAction(async (form: HTMLFormElement) => {
    const email = String(new FormData(form).get("email") ?? "").trim();
    const answer = await createInvite(ws.base, { ...(email ? { email } : {}), role_ids: roleIds });
    setLink(inviteLink(answer.token, answer.invite.email));
    form.reset();
    await invites.reload();
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setLink(null);
    void create.run(event.currentTarget);
  };

  return (
    <div className="stack">
      <section className="panel">
        <h2>Invite someone</h2>
        <form className="stack" onSubmit={submit}>
          <label className="field">
            <span>Email (optional)</span>
            <input name="email" type="email" placeholder="Anyone with the link, when empty" autoComplete="off" />
          </label>
          {roles.data && (
            <RolePicker roles={roleList} value={roleIds} onChange={setRoleIds} legend="Joins with the roles" />
          )}
          <LoadError error={roles.error} />
          <ErrorText error={create.error} />
          <div className="row">
            <button type="submit" className="primary" disabled={create.busy}>
              Create invite link
            </button>
            <span className="muted small">Valid for 7 days, once.</span>
          </div>
        </form>
        {link && (
          <div className="invite-result" ref={result}>
            <ShownOnce
              label="Invite link"
              value={link}
              warning="The link is shown only now. Send it to the person you invite; whoever opens it can join (with the email, if you named one)."
            />
          </div>
        )}
      </section>
      <section className="panel">
        <h2>Invites</h2>
        <LoadError error={invites.error} />
        {!invites.data && !invites.error && <Spinner />}
        {invites.data?.length === 0 && <p className="muted">No invites yet.</p>}
        <ul className="list invite-list">
          {invites.data?.map((invite) => {
            const state = stateOf(invite);
            return (
              <li key={invite.id} className="invite-row">
                <div className="grow">
                  <span>{invite.email ?? "Anyone with the link"}</span>
                  <span className="muted small">
                    {" "}
                    · {roleNames(roleList, invite.role_ids).join(", ") || "no role"} · by {ws.nameOf(invite.created_by)}{" "}
                    <span title={dateTime(invite.created_at)}>{timeAgo(invite.created_at)}</span>
                  </span>
                </div>
                <span className={`invite-state ${state.kind}`}>{state.label}</span>
                {state.kind === "pending" && (
                  <button
                    type="button"
                    className="link danger"
                    onClick={() => setRevoking(invite)}
                    aria-label={`Revoke the invite ${invite.email ?? "for anyone with the link"}`}
                  >
                    Revoke
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      </section>
      {revoking && (
        <ConfirmDialog
          title="Revoke this invite?"
          confirmLabel="Revoke invite"
          onClose={() => setRevoking(null)}
          onConfirm={async () => {
            await revokeInvite(ws.base, revoking.id);
            await invites.reload();
            toast("Invite revoked");
          }}
        >
          <p>The link {revoking.email ? `for ${revoking.email} ` : ""}stops working at once.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
