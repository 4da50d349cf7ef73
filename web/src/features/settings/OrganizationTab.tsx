/** The organization: its name, and whether anyone may sign up (each account then waits for approval). */
import { type FormEvent, useEffect, useState } from "react";
import type { OrganizationChanges } from "../../../../src/api-types";
import { useAction } from "../../lib/hooks";
import { Link } from "../../lib/router";
import { copy, dateTime, ErrorText, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { patchOrganization } from "./api";

/** The Organization tab. */
export function OrganizationTab() {
  const ws = useWorkspace();
  const [name, setName] = useState(ws.org.name);
  // The switch moves at once and moves back if the server refuses.
  const [openSignups, setOpenSignups] = useState(ws.org.open_signups_enabled);
  useEffect(() => setOpenSignups(ws.org.open_signups_enabled), [ws.org.open_signups_enabled]);
  const patch = useAction(async (body: OrganizationChanges) => {
    const organization = await patchOrganization(ws.base, body);
    ws.setOrg(organization);
    setName(organization.name);
    toast(
      body.open_signups_enabled === undefined
        ? "Organization renamed"
        : `Open signups are ${organization.open_signups_enabled ? "on" : "off"}`,
    );
  });
  const rename = (event: FormEvent) => {
    event.preventDefault();
    void patch.run({ name: name.trim() });
  };
  const registerUrl = `${location.origin}/register`;
  return (
    <div className="stack narrow-block">
      <section className="panel">
        <h2>Organization</h2>
        <form className="stack" onSubmit={rename}>
          {/* The label holds only its words: wrapping the button too would name the field "Name Save". */}
          <div className="field">
            <label htmlFor="org-name" className="field-label">
              Name
            </label>
            <div className="row">
              <input
                id="org-name"
                className="grow"
                value={name}
                onChange={(e) => setName(e.target.value)}
                required
                maxLength={200}
              />
              <button type="submit" className="primary" disabled={patch.busy || name.trim() === ws.org.name}>
                Save
              </button>
            </div>
          </div>
          <p className="muted small">
            Address name <code>{ws.org.slug}</code> (kept when renamed) · created{" "}
            {new Date(ws.org.created_at).toLocaleDateString()}
            <span className="sr-only"> ({dateTime(ws.org.created_at)})</span>
          </p>
        </form>
      </section>
      <section className="panel">
        <h2>Sign-ups</h2>
        <label className="switch-row">
          <input
            type="checkbox"
            role="switch"
            aria-checked={openSignups}
            checked={openSignups}
            disabled={patch.busy}
            onChange={(e) => {
              const next = e.target.checked;
              setOpenSignups(next);
              void patch.run({ open_signups_enabled: next }).then((ok) => ok || setOpenSignups(!next));
            }}
          />
          <span>
            <strong>Open signups</strong>
            <br />
            <span className="muted small">
              Anyone with the address can create an account; each waits until an administrator approves it under{" "}
              <Link href="/settings/signups">Sign-up requests</Link>. Off: people join only by invite.
            </span>
          </span>
        </label>
        {openSignups && (
          <p className="small">
            Sign-up page: <code>{registerUrl}</code>{" "}
            <button type="button" className="link" onClick={() => void copy(registerUrl, "Sign-up link")}>
              Copy
            </button>
          </p>
        )}
      </section>
      <ErrorText error={patch.error} />
    </div>
  );
}
