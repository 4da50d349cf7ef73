/**
 * Who a task of a space can be assigned to, and the `<option>`s that offer them. A private space's tasks go only
 * to those who can see it (the API answers 400 `invalid assignee` otherwise), so there the choice is its members,
 * as the `@` picker offers them; a public space offers every member of the organization.
 */
import { useEffect, useMemo } from "react";
import type { Member, Space } from "../../../../src/api-types";
import { useLiveEvents } from "../../lib/events";
import { useLoad } from "../../lib/hooks";
import { useWorkspace } from "../../lib/workspace";
import { listSpaceMembers } from "../spaces/api";

/** The people and staff who can see a space, or why they could not be loaded. */
export interface Audience {
  /** Everyone for a public space, its members for a private one; null while a private space's are loading. */
  members: readonly Member[] | null;
  error: string | null;
}

/**
 * The audience of `space`. A private space's member list has no live event: it is asked again after a
 * reconnect, when this user's access changes and when the tab comes back into view (as the workspace's members).
 */
export function useAudience(space: Space): Audience {
  const ws = useWorkspace();
  const loaded = useLoad(space.private ? listSpaceMembers : null, ws.base, space.id);
  const { reload } = loaded;
  useLiveEvents((event) => {
    if (space.private && (event.type === "resync" || event.type === "access.changed")) void reload();
  });
  useEffect(() => {
    if (!space.private) return;
    const onVisible = () => {
      if (document.visibilityState === "visible") void reload();
    };
    document.addEventListener("visibilitychange", onVisible);
    return () => document.removeEventListener("visibilitychange", onVisible);
  }, [space.private, reload]);
  const members = useMemo(() => {
    if (!space.private) return ws.members;
    if (!loaded.data) return null;
    const allowed = new Set(loaded.data.map((m) => m.user_id));
    return ws.members.filter((m) => allowed.has(m.user_id));
  }, [space.private, ws.members, loaded.data]);
  return { members, error: space.private ? loaded.error : null };
}

/**
 * The members a task can be assigned to, as `<option>`s: people, then AI staff, each in its group. `current`
 * (an assignee or a filter's choice) that is not among them still gets an option, named as it is, so the select
 * shows it rather than falling back to its first option.
 */
export function AssigneeOptions({
  members,
  me,
  current,
  loading = false,
}: {
  members: readonly Member[];
  me?: string;
  current?: string | null;
  /** The list is still loading: a current value missing from it is not called an outsider yet. */
  loading?: boolean;
}) {
  const ws = useWorkspace();
  const people = members.filter((m) => !m.is_service_account);
  const staff = members.filter((m) => m.is_service_account);
  const outside = current && !members.some((m) => m.user_id === current) ? current : null;
  const known = outside ? ws.members.some((m) => m.user_id === outside) : false;
  return (
    <>
      <optgroup label="People">
        {people.map((m) => (
          <option key={m.user_id} value={m.user_id}>
            {m.display_name}
            {m.user_id === me ? " (you)" : ""}
          </option>
        ))}
      </optgroup>
      {staff.length > 0 && (
        <optgroup label="AI staff">
          {staff.map((m) => (
            <option key={m.user_id} value={m.user_id}>
              {m.display_name} (AI staff)
            </option>
          ))}
        </optgroup>
      )}
      {outside && (
        <option value={outside}>
          {ws.nameOf(outside)}
          {loading ? "" : known ? " (not in this space)" : " (no longer a member)"}
        </option>
      )}
    </>
  );
}
