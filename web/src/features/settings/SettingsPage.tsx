/**
 * Organization settings (/settings/:tab), for owners and member managers: the organization, members, roles,
 * invites, sign-up requests, provider keys and the audit log. Tabs the user lacks the permission for are
 * hidden; reached by URL anyway, the tab still opens and shows the API's refusal in words. Loaded lazily: few
 * people open it.
 */
import { useEffect } from "react";
import { Link, navigate, useLocation } from "../../lib/router";
import { Empty, usePageTitle } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { AuditTab } from "./AuditTab";
import { IntegrationsTab } from "./IntegrationsTab";
import { InvitesTab } from "./InvitesTab";
import { MembersTab } from "./MembersTab";
import { OrganizationTab } from "./OrganizationTab";
import { RolesTab } from "./RolesTab";
import { MissingPermission } from "./refusal";
import { SignupsTab } from "./SignupsTab";

const TABS = [
  { key: "organization", label: "Organization", needs: "org.manage", Body: OrganizationTab },
  { key: "members", label: "Members", needs: "org.members.manage", Body: MembersTab },
  { key: "roles", label: "Roles", needs: "org.members.manage", Body: RolesTab },
  { key: "invites", label: "Invites", needs: "org.members.manage", Body: InvitesTab },
  { key: "signups", label: "Sign-up requests", needs: "org.members.manage", Body: SignupsTab },
  { key: "integrations", label: "Integrations", needs: "org.manage", Body: IntegrationsTab },
  { key: "audit", label: "Audit log", needs: "org.manage", Body: AuditTab },
] as const;

/** The settings screen; `tab` is the URL's tab ("organization" when none is given). */
export default function SettingsPage({ tab }: { tab: string }) {
  const ws = useWorkspace();
  const { path } = useLocation();
  const visible = TABS.filter((t) => ws.can(t.needs));
  const current = TABS.find((t) => t.key === tab);
  // /settings alone opens the first tab this user may use (a member manager lacks org.manage).
  const first = visible[0]?.key;
  const bare = path === "/settings" || path === "/settings/";
  useEffect(() => {
    if (bare && first) navigate(`/settings/${first}`, { replace: true });
  }, [bare, first]);
  // Above the route's own "Settings": the tab's name first.
  usePageTitle(current && !bare ? `${current.label} · Settings` : null, 1);
  if (bare && first) return null;
  return (
    <section className="page-body settings">
      <header className="page-head">
        <h1>Settings</h1>
      </header>
      <nav className="tabs settings-tabs" aria-label="Settings">
        {visible.map((t) => (
          <Link
            key={t.key}
            href={`/settings/${t.key}`}
            className={t.key === tab ? "tab active" : "tab"}
            aria-current={t.key === tab ? "page" : undefined}
          >
            {t.label}
          </Link>
        ))}
      </nav>
      <div className="settings-body">
        {!current ? (
          <Empty>There is no such settings page.</Empty>
        ) : (
          <>
            {!ws.can(current.needs) && (
              <p className="notice warn" role="alert">
                missing permission: {current.needs}. You can look, but the server refuses changes here.
              </p>
            )}
            <MissingPermission.Provider value={ws.can(current.needs) ? null : current.needs}>
              <current.Body />
            </MissingPermission.Provider>
          </>
        )}
      </div>
    </section>
  );
}
