/**
 * How many automations wait for a person's approval in the spaces the user can see, for the sidebar. No route
 * counts them, so each space's list is asked when the workspace loads, each time the events socket opens and when
 * the spaces change; in between, `automation.updated` and `automation.deleted` keep the count, so it moves the moment
 * a staff member proposes something or anyone reviews it.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { loadFresh, useLiveEvents } from "../../lib/events";
import { useWorkspace } from "../../lib/workspace";
import { listAutomations } from "./api";

/** The number waiting, or null before the first count (or for someone who may not see automations at all). */
export function usePendingApprovals(): number | null {
  const ws = useWorkspace();
  // The ids waiting, by space: a space the user stops seeing takes its ids with it.
  const [waiting, setWaiting] = useState<Map<string, Set<string>> | null>(null);
  const spaceIds = ws.spaces.map((s) => s.id).join(",");
  const latest = useRef(0);

  const count = useCallback(async () => {
    const request = ++latest.current;
    const ids = spaceIds ? spaceIds.split(",") : [];
    const lists = await loadFresh(() => Promise.allSettled(ids.map((id) => listAutomations(ws.base, id))));
    if (request !== latest.current) return;
    const found = new Map<string, Set<string>>();
    lists.forEach((list, i) => {
      // A space whose automations cannot be read (no files.read there) counts nothing.
      if (list.status !== "fulfilled") return;
      const pending = list.value.filter((a) => a.status === "pending_approval").map((a) => a.id);
      found.set(ids[i] as string, new Set(pending));
    });
    setWaiting(found);
  }, [ws.base, spaceIds]);

  useEffect(() => {
    void count();
  }, [count]);

  useLiveEvents((event) => {
    if (event.type === "resync") {
      void count();
      return;
    }
    if (event.type !== "automation.updated" && event.type !== "automation.deleted") return;
    const space = event.space_id;
    const id = event.payload?.id as string | undefined;
    if (!space || !id) return;
    const pending = event.type === "automation.updated" && event.payload.status === "pending_approval";
    setWaiting((old) => {
      if (!old || old.get(space)?.has(id) === pending) return old;
      const next = new Map(old);
      const ids = new Set(next.get(space));
      if (pending) ids.add(id);
      else ids.delete(id);
      next.set(space, ids);
      return next;
    });
  });

  if (!waiting) return null;
  let total = 0;
  for (const ids of waiting.values()) total += ids.size;
  return total;
}
