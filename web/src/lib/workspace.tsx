/**
 * The signed-in user's workspace: who they are, the organization (one per install), what they may do, its
 * members (people and staff) and the spaces they can see. Loaded once after sign-in; kept live by the
 * directory's events (`member.joined`, `member.updated`, `member.left`, `space.created`), so someone who joins
 * is named at once everywhere; loaded again after the events socket reconnects, when access changes and when
 * the tab comes back into view.
 */
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from "react";
import type { Member, Organization, Space, User } from "../../../src/api-types";
import { messageOf } from "./api";
import { memberJoined, memberLeft, spaceCreated } from "./directory";
import { connectEvents, useLiveEvents } from "./events";
import { ErrorText, Spinner } from "./ui";
import { getMe, listMembers, listOrganizations, listSpaces, myPermissions } from "./workspace-api";

/**
 * The name of a deleted staff member. People's accounts are never deleted (only taken out of the organization),
 * so a null author or creator (the API nulls them when a staff member is deleted) is always one, as is the id of
 * someone seen as staff who is no longer a member.
 */
export const FORMER_STAFF = "Former AI staff";

export interface Workspace {
  me: User;
  org: Organization;
  /** `/organizations/{orgId}`: prefix of every organization route. */
  base: string;
  permissions: ReadonlySet<string>;
  can: (permission: string) => boolean;
  members: Member[];
  /**
   * Display name of a user id: "Former member" for someone who left; "Former AI staff" for null (an author the
   * API nulled when their staff member was deleted) and for a staff member deleted while the page was open.
   */
  nameOf: (userId: string | null | undefined) => string;
  isStaff: (userId: string | null | undefined) => boolean;
  spaces: Space[];
  reloadMembers: () => Promise<void>;
  reloadSpaces: () => Promise<void>;
  reloadMe: () => Promise<void>;
  setOrg: (org: Organization) => void;
}

const Context = createContext<Workspace | null>(null);

/** The workspace of the signed-in user; only inside `<WorkspaceProvider>`. */
export function useWorkspace(): Workspace {
  const value = useContext(Context);
  if (!value) throw new Error("useWorkspace outside WorkspaceProvider");
  return value;
}

/** Loads the workspace, then renders `children` with it; `noOrg` when the account belongs to none. */
export function WorkspaceProvider({ children, noOrg }: { children: ReactNode; noOrg: ReactNode }) {
  const [me, setMe] = useState<User | null>(null);
  const [org, setOrg] = useState<Organization | null | undefined>(undefined);
  const [permissions, setPermissions] = useState<string[]>([]);
  const [members, setMembers] = useState<Member[]>([]);
  const [spaces, setSpaces] = useState<Space[]>([]);
  const [error, setError] = useState<string | null>(null);
  /** Everyone seen as staff since the page loaded: once deleted, they are named as former staff. */
  const seenStaff = useRef(new Set<string>());

  const base = org ? `/organizations/${org.id}` : "";

  const reloadMembers = useCallback(async () => {
    if (!base) return;
    setMembers(await listMembers(base));
  }, [base]);
  const reloadSpaces = useCallback(async () => {
    if (!base) return;
    setSpaces(await listSpaces(base));
  }, [base]);
  const reloadMe = useCallback(async () => {
    setMe(await getMe());
    if (base) setPermissions(await myPermissions(base));
  }, [base]);

  useEffect(() => {
    (async () => {
      const [user, orgs] = await Promise.all([getMe(), listOrganizations()]);
      setMe(user);
      setOrg(orgs[0] ?? null);
    })().catch((err) => setError(messageOf(err)));
  }, []);

  useEffect(() => {
    if (!base) return;
    Promise.all([myPermissions(base).then(setPermissions), reloadMembers(), reloadSpaces()]).catch((err) =>
      setError(messageOf(err)),
    );
    connectEvents(org?.id ?? null);
    return () => connectEvents(null);
  }, [base, org?.id, reloadMembers, reloadSpaces]);

  // Events sent while the tab slept in the background may be missed by a dropped socket: look again on return.
  useEffect(() => {
    const onVisible = () => {
      if (document.visibilityState === "visible") void Promise.all([reloadMembers(), reloadSpaces()]).catch(() => {});
    };
    document.addEventListener("visibilitychange", onVisible);
    return () => document.removeEventListener("visibilitychange", onVisible);
  }, [reloadMembers, reloadSpaces]);

  // Loaded above while the socket first connects. Looked at again after a reconnect (a while away), and when
  // the server says this user's access changed (roles, permissions, space memberships). Removed from the
  // organization: the "not a member" screen.
  // The directory: people and staff joining, renamed, given roles or leaving; new spaces.
  useLiveEvents((event) => {
    switch (event.type) {
      case "access.lost":
        setOrg(null);
        return;
      case "access.changed":
        void Promise.all([reloadMembers(), reloadSpaces(), reloadMe()]).catch(() => {});
        return;
      case "resync":
        if (event.payload?.reconnected) void Promise.all([reloadMembers(), reloadSpaces(), reloadMe()]).catch(() => {});
        return;
      case "member.joined":
      case "member.updated": {
        const member = event.payload as Member;
        setMembers((list) => memberJoined(list, member));
        if (member.user_id === me?.id && member.display_name !== me.display_name)
          setMe({ ...me, display_name: member.display_name });
        return;
      }
      case "member.left":
        setMembers((list) => memberLeft(list, (event.payload as Member).user_id));
        return;
      case "space.created":
        setSpaces((list) => spaceCreated(list, event.payload as Space));
        return;
    }
  });

  const value = useMemo<Workspace | null>(() => {
    if (!me || !org) return null;
    const set = new Set(permissions);
    const byId = new Map(members.map((m) => [m.user_id, m]));
    for (const m of members) if (m.is_service_account) seenStaff.current.add(m.user_id);
    return {
      me,
      org,
      base,
      permissions: set,
      can: (permission) => set.has(permission),
      members,
      nameOf: (id) => {
        if (!id) return FORMER_STAFF;
        const name = byId.get(id)?.display_name ?? (id === me.id ? me.display_name : null);
        return name ?? (seenStaff.current.has(id) ? FORMER_STAFF : "Former member");
      },
      isStaff: (id) => (id ? byId.get(id)?.is_service_account === true : false),
      spaces,
      reloadMembers,
      reloadSpaces,
      reloadMe,
      setOrg,
    };
  }, [me, org, base, permissions, members, spaces, reloadMembers, reloadSpaces, reloadMe]);

  if (error) return <ErrorText error={error} />;
  if (org === null) return <>{noOrg}</>;
  if (!value) return <Spinner />;
  return <Context.Provider value={value}>{children}</Context.Provider>;
}
