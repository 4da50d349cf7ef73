/** Roles: the system roles and custom ones, each a set of the seven permissions. */
import { type FormEvent, useState } from "react";
import type { Role, RoleChanges } from "../../../../src/api-types";
import { ConfirmDialog } from "../../lib/dialogs";
import { useAction, useLoad } from "../../lib/hooks";
import { ErrorText, FormButtons, Modal, Spinner, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { createRole, deleteRole, listRoles, patchRole } from "./api";
import { LoadError } from "./refusal";
import { PERMISSIONS } from "./roles";

/** Creates a role (`role` absent) or edits one; the Owner's permissions and system names are fixed. */
function RoleDialog({ role, onClose, onSaved }: { role?: Role; onClose: () => void; onSaved: () => Promise<void> }) {
  const ws = useWorkspace();
  const [permissions, setPermissions] = useState<string[]>(role?.permissions ?? []);
  const owner = role?.is_system === true && role.name === "Owner";
  const save = useAction(async (name: string) => {
    const body: RoleChanges = { permissions };
    if (!role?.is_system) body.name = name;
    if (role) await patchRole(ws.base, role.id, body);
    else await createRole(ws.base, { ...body, name });
    await onSaved();
    toast(role ? `Role ${name} saved` : `Role ${name} created`);
    onClose();
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void save.run(String(new FormData(event.currentTarget).get("name") ?? role?.name ?? "").trim());
  };
  return (
    <Modal title={role ? `Edit role ${role.name}` : "New role"} onClose={onClose}>
      <form className="stack" onSubmit={submit}>
        <label className="field">
          <span>Name</span>
          <input
            name="name"
            required
            maxLength={64}
            defaultValue={role?.name ?? ""}
            disabled={role?.is_system}
            title={role?.is_system ? "System roles keep their names" : undefined}
          />
        </label>
        <fieldset className="permission-grid">
          <legend>Permissions</legend>
          {owner && <p className="muted small">The Owner role always has every permission.</p>}
          {PERMISSIONS.map((p) => (
            <label key={p.key} className="check permission">
              <input
                type="checkbox"
                checked={owner || permissions.includes(p.key)}
                disabled={owner}
                onChange={(e) =>
                  setPermissions(
                    e.target.checked
                      ? PERMISSIONS.map((x) => x.key).filter((k) => k === p.key || permissions.includes(k))
                      : permissions.filter((k) => k !== p.key),
                  )
                }
              />
              <span>
                {p.label} <code className="small">{p.key}</code>
                <br />
                <span className="muted small">{p.hint}</span>
              </span>
            </label>
          ))}
        </fieldset>
        <ErrorText error={save.error} />
        <FormButtons onCancel={onClose} disabled={save.busy || owner} label={role ? "Save role" : "Create role"} />
      </form>
    </Modal>
  );
}

/** The Roles tab. */
export function RolesTab() {
  const ws = useWorkspace();
  const roles = useLoad(listRoles, ws.base);
  const [editing, setEditing] = useState<Role | "new" | null>(null);
  const [deleting, setDeleting] = useState<Role | null>(null);
  const holders = (role: Role) => ws.members.filter((m) => m.role_ids.includes(role.id)).length;
  const reload = async () => {
    await Promise.all([roles.reload(), ws.reloadMe()]);
  };
  return (
    <div className="stack">
      <div className="row wrap">
        <p className="muted small grow">
          A member holds every permission of each of their roles. System roles come with the organization and keep their
          names.
        </p>
        <button type="button" className="primary" onClick={() => setEditing("new")}>
          New role
        </button>
      </div>
      <LoadError error={roles.error} />
      {!roles.data && !roles.error && <Spinner />}
      <ul className="role-list">
        {roles.data?.map((role) => (
          <li key={role.id} className="card role-card">
            <header className="row">
              <h3 className="grow">
                {role.name} {role.is_system && <span className="system-tag">System</span>}
              </h3>
              <span className="muted small">
                {holders(role)} {holders(role) === 1 ? "member" : "members"}
              </span>
            </header>
            <div className="perm-chips">
              {role.permissions.length === 0 && <span className="muted small">No permissions</span>}
              {role.permissions.map((p) => (
                <code key={p} className="perm-chip">
                  {p}
                </code>
              ))}
            </div>
            <footer className="row">
              <button type="button" onClick={() => setEditing(role)} aria-label={`Edit role ${role.name}`}>
                Edit
              </button>
              {!role.is_system && (
                <button
                  type="button"
                  className="link danger"
                  onClick={() => setDeleting(role)}
                  aria-label={`Delete role ${role.name}`}
                >
                  Delete
                </button>
              )}
            </footer>
          </li>
        ))}
      </ul>
      {editing && (
        <RoleDialog role={editing === "new" ? undefined : editing} onClose={() => setEditing(null)} onSaved={reload} />
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete role ${deleting.name}?`}
          confirmLabel="Delete role"
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await deleteRole(ws.base, deleting.id);
            await Promise.all([reload(), ws.reloadMembers()]);
            toast(`Role ${deleting.name} deleted`);
          }}
        >
          <p>
            {holders(deleting) > 0
              ? `${holders(deleting)} ${holders(deleting) === 1 ? "member holds" : "members hold"} it and will lose its permissions.`
              : "Nobody holds it."}
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
