/** The permission catalogue and the four system roles every organization is created with. */

/** Every permission a role can hold. */
export const PERMISSIONS = [
  "org.manage",
  "org.members.manage",
  "spaces.create",
  "tasks.write",
  "chat.write",
  "files.read",
  "files.write",
] as const;

/** One permission name. */
export type Permission = (typeof PERMISSIONS)[number];

/** What a route needs of a member: a permission, or only membership. */
export type Need = Permission | "member";

const KNOWN = new Set<string>(PERMISSIONS);

/** True when `name` is in the catalogue. */
export function isPermission(name: string): name is Permission {
  return KNOWN.has(name);
}

/** A system role: created with the organization, never deleted or renamed. */
export interface SystemRole {
  key: "owner" | "member" | "viewer" | "ai_staff";
  name: string;
  permissions: readonly Permission[];
}

/** The four system roles, in the order they are listed. */
export const SYSTEM_ROLES: readonly SystemRole[] = [
  { key: "owner", name: "Owner", permissions: PERMISSIONS },
  {
    key: "member",
    name: "Member",
    permissions: ["spaces.create", "tasks.write", "chat.write", "files.read", "files.write"],
  },
  { key: "viewer", name: "Viewer", permissions: ["files.read"] },
  { key: "ai_staff", name: "AI Staff", permissions: ["tasks.write", "chat.write", "files.read", "files.write"] },
];
