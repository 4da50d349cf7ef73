/**
 * AI staff (/staff and /staff/:userId): who is on the staff, creating one (its token shown once), its
 * settings, removing it, and what each did. Managing needs `org.members.manage`; everyone else sees the staff
 * from the member list and their activity, read-only.
 */
import { type MutableRefObject, useEffect, useRef, useState } from "react";
import type { Integration, ServiceAccount } from "../../../../src/api-types";
import { ConfirmDialog } from "../../lib/dialogs";
import { useLiveEvents } from "../../lib/events";
import { useLoad } from "../../lib/hooks";
import { Link, navigate } from "../../lib/router";
import { Avatar, dateTime, Empty, ErrorText, Spinner, timeAgo, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { ActivityFeed } from "./Activity";
import { deleteServiceAccount, getIntegration, listServiceAccounts } from "./api";
import { PROVIDERS } from "./model";
import { CreateStaff, EditStaff, NewToken } from "./StaffForm";

/** A staff member as listed: the account when the viewer may manage staff, else only the member. */
interface StaffMember {
  user_id: string;
  name: string;
  account: ServiceAccount | null;
  joined_at: string | null;
}

/** The staff list for managers (service accounts) or for everyone (members flagged as staff). */
function useStaff() {
  const ws = useWorkspace();
  const manage = ws.can("org.members.manage");
  const accounts = useLoad(manage ? listServiceAccounts : null, ws.base);
  useLiveEvents((event) => {
    if (event.type === "resync" && manage) void accounts.reload();
  });
  const staff: StaffMember[] = manage
    ? (accounts.data ?? []).map((account) => ({
        user_id: account.user_id,
        name: account.name,
        account,
        joined_at: account.created_at,
      }))
    : ws.members
        .filter((m) => m.is_service_account)
        .map((m) => ({ user_id: m.user_id, name: m.display_name, account: null, joined_at: m.joined_at }));
  return {
    manage,
    staff,
    loading: manage && !accounts.data && !accounts.error,
    error: accounts.error,
    setAccounts: accounts.setData,
  };
}

/** Warns when a provider the staff use has no key, since every reply would then fail. */
function MissingKeys({ staff }: { staff: StaffMember[] }) {
  const ws = useWorkspace();
  const used = new Set(staff.map((s) => s.account?.provider).filter(Boolean));
  const router = useLoad(used.has("modelrouter") ? getIntegration : null, ws.base, "modelrouter");
  const agent = useLoad(used.has("agent") ? getIntegration : null, ws.base, "agent");
  const missing = [router.data, agent.data].filter((i): i is Integration => i !== undefined && !i.configured);
  if (missing.length === 0) return null;
  return (
    <p className="notice warn" role="note">
      No {missing.map((i) => PROVIDERS[i.provider].toLowerCase()).join(" or ")} key is set, so{" "}
      {missing.length > 1 ? "these staff" : "staff using it"} cannot answer yet.{" "}
      {ws.can("org.manage") ? (
        <Link href="/settings/integrations">Set the key in Settings</Link>
      ) : (
        "Ask an administrator to set it."
      )}
    </p>
  );
}

/**
 * Where the keyboard goes once a staff member is deleted from its own page: the row that took its place in the
 * list (else the one above, else the heading). Null when nothing was deleted.
 */
type FocusAfterDelete = MutableRefObject<number | null>;

function StaffList({ list, focusAfter }: { list: ReturnType<typeof useStaff>; focusAfter: FocusAfterDelete }) {
  const [creating, setCreating] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const grid = useRef<HTMLUListElement>(null);
  useEffect(() => {
    if (focusAfter.current === null || list.loading) return;
    const links = grid.current?.querySelectorAll<HTMLElement>(".card-title") ?? [];
    const next = links[Math.min(focusAfter.current, links.length - 1)];
    focusAfter.current = null;
    (next ?? heading.current)?.focus();
  }, [focusAfter, list.loading]);
  return (
    <section className="page-body staff-page">
      <header className="page-head">
        <div>
          <h1 ref={heading} tabIndex={-1}>
            AI staff
          </h1>
          <p className="muted small">
            Staff answer when mentioned in a chat (<code>@name</code>) or assigned a task, propose file changes and
            automations for people to approve, and act over the API with their own token.
          </p>
        </div>
        {list.manage && (
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            New staff member
          </button>
        )}
      </header>
      <ErrorText error={list.error} />
      {list.loading && <Spinner />}
      {list.manage && <MissingKeys staff={list.staff} />}
      {!list.loading && list.staff.length === 0 && (
        <Empty>
          No AI staff yet.{list.manage ? " Create the first staff member." : " An administrator can add some."}
        </Empty>
      )}
      {list.staff.length > 0 && (
        <ul className="staff-grid" ref={grid}>
          {list.staff.map((s) => (
            <li key={s.user_id} className="card staff-card">
              <Avatar id={s.user_id} name={s.name} staff />
              <div className="grow">
                <Link href={`/staff/${s.user_id}`} className="card-title">
                  {s.name}
                </Link>
                {s.account ? (
                  <p
                    className="small muted staff-detail"
                    title={s.account.provider === "modelrouter" ? s.account.modelrouter_model : undefined}
                  >
                    {PROVIDERS[s.account.provider]}
                    {s.account.provider === "modelrouter"
                      ? ` · ${s.account.modelrouter_model}`
                      : s.account.agent_default_repo_url
                        ? ` · ${s.account.agent_default_repo_url}`
                        : ""}
                  </p>
                ) : (
                  <p className="small muted">AI staff</p>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
      <h2 className="section-title">Recent activity</h2>
      <ActivityFeed staffUserId={null} />
      {creating && (
        <CreateStaff
          onClose={() => setCreating(false)}
          onCreated={(account) => list.setAccounts((data) => data && [...data, account])}
        />
      )}
    </section>
  );
}

function StaffDetail({
  userId,
  list,
  focusAfter,
}: {
  userId: string;
  list: ReturnType<typeof useStaff>;
  focusAfter: FocusAfterDelete;
}) {
  const ws = useWorkspace();
  const [deleting, setDeleting] = useState(false);
  const member = list.staff.find((s) => s.user_id === userId);
  if (list.loading) return <Spinner />;
  if (!member)
    return (
      <section className="page-body narrow">
        <p>
          <Link href="/staff">← All staff</Link>
        </p>
        <ErrorText error={list.error} />
        <Empty>This staff member does not exist or was removed.</Empty>
      </section>
    );
  const { account } = member;
  return (
    <section className="page-body staff-page">
      <p className="small">
        <Link href="/staff">← All staff</Link>
      </p>
      <header className="page-head staff-head">
        <div className="row">
          <Avatar id={member.user_id} name={member.name} staff />
          <div>
            <h1>{member.name}</h1>
            <p className="muted small">
              {account ? `${PROVIDERS[account.provider]} · ` : "AI staff · "}
              {member.joined_at && (
                <span title={dateTime(member.joined_at)}>
                  joined {timeAgo(member.joined_at)}
                  {account?.created_by ? ` · added by ${ws.nameOf(account.created_by)}` : ""}
                </span>
              )}
            </p>
          </div>
        </div>
      </header>
      <div className="staff-columns">
        {account && (
          <aside className="panel staff-settings">
            <h2>Settings</h2>
            <EditStaff
              key={account.id}
              account={account}
              onSaved={(saved) => list.setAccounts((data) => data?.map((a) => (a.id === saved.id ? saved : a)))}
            />
            <hr />
            <h3>Token</h3>
            <NewToken
              account={account}
              onRotated={(saved) => list.setAccounts((data) => data?.map((a) => (a.id === saved.id ? saved : a)))}
            />
            <hr />
            <h3 className="danger-title">Remove from the staff</h3>
            <p className="small muted">
              Its token stops working at once. Its messages stay, shown under “Former AI staff”.
            </p>
            <button type="button" className="danger" onClick={() => setDeleting(true)}>
              Delete {account.name}
            </button>
          </aside>
        )}
        <div className="grow">
          <h2>Activity</h2>
          <ActivityFeed staffUserId={member.user_id} />
        </div>
      </div>
      {deleting && account && (
        <ConfirmDialog
          title={`Delete ${account.name}?`}
          confirmLabel="Delete staff member"
          onClose={() => setDeleting(false)}
          onConfirm={async () => {
            await deleteServiceAccount(ws.base, account.id);
            // Its page goes away with it (and the Delete button with it): the list takes the keyboard.
            focusAfter.current = Math.max(
              0,
              list.staff.findIndex((s) => s.user_id === member.user_id),
            );
            list.setAccounts((data) => data?.filter((a) => a.id !== account.id));
            void ws.reloadMembers().catch(() => {});
            toast(`${account.name} was removed from the staff`);
            navigate("/staff");
          }}
        >
          <p>
            {account.name} leaves the organization and its token answers 401 from now on. This cannot be undone: a new
            staff member gets a new token.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** The AI staff screen; `userId` (a staff member's user id) opens one. */
export function StaffPage({ userId }: { userId: string | null }) {
  const list = useStaff();
  const focusAfter = useRef<number | null>(null);
  return userId ? (
    <StaffDetail userId={userId} list={list} focusAfter={focusAfter} />
  ) : (
    <StaffList list={list} focusAfter={focusAfter} />
  );
}
