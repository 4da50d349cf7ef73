/** Members: who is in the organization with which roles; changing roles and removing people. */
import { useState } from "react";
import type { Member, Role } from "../../../../src/api-types";
import { ConfirmDialog } from "../../lib/dialogs";
import { useLiveEvents } from "../../lib/events";
import { useAction, useLoad } from "../../lib/hooks";
import { Link } from "../../lib/router";
import { Avatar, dateTime, ErrorText, FormButtons, Modal, Spinner, timeAgo, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { listMembers } from "../../lib/workspace-api";
import { listRoles, removeMember, setMemberRoles } from "./api";
import { LoadError } from "./refusal";
import { RolePicker, roleNames } from "./roles";

function RolesDialog({
  member,
  roles,
  onClose,
  onSaved,
}: {
  member: Member;
  roles: Role[];
  onClose: () => void;
  onSaved: () => Promise<void>;
}) {
  const ws = useWorkspace();
  const [value, setValue] = useState(member.role_ids);
  const save = useAction(async () => {
    await setMemberRoles(ws.base, member.user_id, value);
    await onSaved();
    toast(`Roles of ${member.display_name} saved`);
    onClose();
  });
  return (
    <Modal title={`Roles of ${member.display_name}`} onClose={onClose}>
      <form
        className="stack"
        onSubmit={(event) => {
          event.preventDefault();
          void save.run();
        }}
      >
        <RolePicker roles={roles} value={value} onChange={setValue} />
        {value.length === 0 && (
          <p className="small notice warn">
            Without a role, {member.display_name} can see public spaces but do nothing.
          </p>
        )}
        <ErrorText error={save.error} />
        <FormButtons onCancel={onClose} disabled={save.busy} label="Save roles" />
      </form>
    </Modal>
  );
}

/** The Members tab. */
export function MembersTab() {
  const ws = useWorkspace();
  const members = useLoad(listMembers, ws.base);
  const roles = useLoad(listRoles, ws.base);
  const [search, setSearch] = useState("");
  const [editing, setEditing] = useState<Member | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const reload = async () => {
    await Promise.all([members.reload(), ws.reloadMembers(), ws.reloadMe()]);
  };
  // Someone joining, renamed, given roles or leaving elsewhere shows here at once.
  useLiveEvents((event) => {
    if (event.type === "resync" || event.type.startsWith("member.")) void members.reload();
  });
  const roleList = roles.data ?? [];
  const needle = search.trim().toLowerCase();
  const list = (members.data ?? []).filter(
    (m) => !needle || m.display_name.toLowerCase().includes(needle) || m.email.toLowerCase().includes(needle),
  );
  const people = list.filter((m) => !m.is_service_account);
  const staff = list.filter((m) => m.is_service_account);

  const row = (m: Member) => (
    <li key={m.user_id} className="member-row">
      <Avatar id={m.user_id} name={m.display_name} staff={m.is_service_account} />
      <div className="grow member-who">
        <span className="member-name">
          {m.display_name}
          {m.user_id === ws.me.id && <span className="muted"> (you)</span>}
        </span>
        <span className="muted small">{m.is_service_account ? "AI staff" : m.email}</span>
      </div>
      <div className="member-roles">
        {roleNames(roleList, m.role_ids).map((name) => (
          <span key={name} className="role-chip">
            {name}
          </span>
        ))}
        {m.role_ids.length === 0 && <span className="muted small">no role</span>}
      </div>
      <span className="muted small member-joined" title={dateTime(m.joined_at)}>
        joined {timeAgo(m.joined_at)}
      </span>
      <div className="member-actions">
        <button
          type="button"
          onClick={() => setEditing(m)}
          disabled={!roles.data}
          aria-label={`Roles for ${m.display_name}`}
        >
          Roles
        </button>
        {m.is_service_account ? (
          <Link href={`/staff/${m.user_id}`} className="small">
            Manage
          </Link>
        ) : (
          m.user_id !== ws.me.id && (
            <button
              type="button"
              className="link danger"
              onClick={() => setRemoving(m)}
              aria-label={`Remove ${m.display_name}`}
            >
              Remove
            </button>
          )
        )}
      </div>
    </li>
  );

  return (
    <div className="stack">
      <div className="row wrap">
        <label className="grow search-field">
          <span className="sr-only">Search members</span>
          <input
            type="search"
            placeholder="Search by name or email"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
          />
        </label>
        <Link href="/settings/invites">Invite people</Link>
      </div>
      <LoadError error={members.error} />
      <LoadError error={roles.error} />
      {!members.data && !members.error && <Spinner />}
      {members.data && (
        <>
          <section className="panel">
            <h2>
              People <span className="muted small">{people.length}</span>
            </h2>
            <ul className="list member-list">{people.map(row)}</ul>
          </section>
          {staff.length > 0 && (
            <section className="panel">
              <h2>
                AI staff <span className="muted small">{staff.length}</span>
              </h2>
              <ul className="list member-list">{staff.map(row)}</ul>
            </section>
          )}
        </>
      )}
      {editing && <RolesDialog member={editing} roles={roleList} onClose={() => setEditing(null)} onSaved={reload} />}
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.display_name}?`}
          confirmLabel="Remove from the organization"
          onClose={() => setRemoving(null)}
          onConfirm={async () => {
            await removeMember(ws.base, removing.user_id);
            await reload();
            toast(`${removing.display_name} was removed`);
          }}
        >
          <p>
            {removing.display_name} loses access at once, and leaves every space. Their account stays: an invite brings
            them back.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
