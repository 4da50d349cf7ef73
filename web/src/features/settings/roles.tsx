/** Roles and permissions as the settings screens show and pick them. */
import type { Role } from "../../../../src/api-types";
import { useWorkspace } from "../../lib/workspace";

/** The permission catalogue, in the server's order, with what each lets a member do. */
export const PERMISSIONS: { key: string; label: string; hint: string }[] = [
  {
    key: "org.manage",
    label: "Manage the organization",
    hint: "Name, open signups, provider keys; sees every private space",
  },
  {
    key: "org.members.manage",
    label: "Manage members",
    hint: "Members and their roles, roles, invites, sign-up requests, AI staff",
  },
  { key: "spaces.create", label: "Create spaces", hint: "Start new spaces and own them" },
  { key: "tasks.write", label: "Write tasks", hint: "Create, edit and move tasks; comment; deliverables" },
  { key: "chat.write", label: "Chat", hint: "Post, react, create rooms" },
  { key: "files.read", label: "Read files", hint: "Files and automations of the spaces they see" },
  {
    key: "files.write",
    label: "Write files",
    hint: "Edit files, accept proposals, manage and approve automations",
  },
];

/** The permissions of `role` the signed-in user lacks (the API refuses to grant those). */
export function useMissing(): (role: Role) => string[] {
  const ws = useWorkspace();
  return (role) => role.permissions.filter((p) => !ws.can(p));
}

/**
 * The roles a newcomer starts with in a form: Member, as on the server, when the user may grant it; none
 * otherwise, rather than a ticked box the API would refuse.
 */
export function defaultRoleIds(roles: Role[], missing: (role: Role) => string[]): string[] {
  const member = roles.find((r) => r.is_system && r.name === "Member");
  return member && missing(member).length === 0 ? [member.id] : [];
}

/**
 * Checkboxes of roles. Roles holding a permission the user lacks are disabled with the reason: the API would
 * answer 403 for them (nobody can grant more than they hold).
 */
export function RolePicker({
  roles,
  value,
  onChange,
  legend = "Roles",
}: {
  roles: Role[];
  value: string[];
  onChange: (ids: string[]) => void;
  legend?: string;
}) {
  const missing = useMissing();
  return (
    <fieldset className="role-picker">
      <legend>{legend}</legend>
      {roles.map((role) => {
        const lacks = missing(role);
        const checked = value.includes(role.id);
        return (
          <label key={role.id} className="check" title={lacks.length ? `Needs ${lacks.join(", ")}` : undefined}>
            <input
              type="checkbox"
              checked={checked}
              // A role already held can always be taken away, even one the user could not grant.
              disabled={lacks.length > 0 && !checked}
              onChange={(e) => onChange(e.target.checked ? [...value, role.id] : value.filter((id) => id !== role.id))}
            />
            <span>
              {role.name}
              {lacks.length > 0 && <span className="muted small"> (needs permissions you do not hold)</span>}
            </span>
          </label>
        );
      })}
    </fieldset>
  );
}

/** Role names for a list of ids, in the roles' order. */
export function roleNames(roles: Role[], ids: string[]): string[] {
  return roles.filter((r) => ids.includes(r.id)).map((r) => r.name);
}
