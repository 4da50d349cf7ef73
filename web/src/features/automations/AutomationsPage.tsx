/**
 * A space's automations (its Automations tab): every one with its status, when it runs next, filtered by status,
 * created and edited here, run, paused and resumed, approved or rejected in place; each opens on its own page
 * with its runs. Live through `automation.updated` and `automation.deleted`, so a second browser sees a proposal
 * arrive, its review land and its next run move on.
 */
import { useState } from "react";
import type { Automation, AutomationStatus, Space } from "../../../../src/api-types";
import { useLiveEvents } from "../../lib/events";
import { useLoad } from "../../lib/hooks";
import { navigate, useLocation } from "../../lib/router";
import { Empty, ErrorText, Spinner } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { AutomationForm } from "./AutomationForm";
import { AutomationPage } from "./AutomationPage";
import { listAutomations } from "./api";
import { AutomationCard, useStaffNames } from "./automation";
import { STATUSES } from "./model";

/** Puts `automation` in `list` in place of its older self, or at the end (the API lists oldest first). */
export function upsert(list: Automation[], automation: Automation): Automation[] {
  const at = list.findIndex((a) => a.id === automation.id);
  if (at === -1) return [...list, automation];
  // An older answer arriving after a newer event must not win.
  if ((list[at] as Automation).updated_at > automation.updated_at) return list;
  return list.map((a, i) => (i === at ? automation : a));
}

/** The Automations tab of `space`, or the page of automation `item`. */
export default function AutomationsTab({ space, item }: { space: Space; item: string | null }) {
  return item ? <AutomationPage space={space} id={item} /> : <AutomationsPage space={space} />;
}

/** The list of the space's automations. */
function AutomationsPage({ space }: { space: Space }) {
  const ws = useWorkspace();
  const list = useLoad(listAutomations, ws.base, space.id);
  const staffNames = useStaffNames();
  // The filter lives in the address (`?status=draft`), so a reload, Back, or a shared link keeps it.
  const { path, query } = useLocation();
  const asked = query.get("status");
  const filter: AutomationStatus | "all" =
    asked && Object.keys(STATUSES).includes(asked) ? (asked as AutomationStatus) : "all";
  const setFilter = (status: AutomationStatus | "all") =>
    navigate(status === "all" ? path : `${path}?status=${status}`, { replace: true });
  const [creating, setCreating] = useState(false);

  const saved = (automation: Automation) => list.setData((data) => data && upsert(data, automation));
  const deleted = (id: string) => list.setData((data) => data?.filter((a) => a.id !== id));

  useLiveEvents((event) => {
    if (event.type === "resync") void list.reload();
    else if (event.space_id !== space.id) return;
    else if (event.type === "automation.updated") saved(event.payload as Automation);
    else if (event.type === "automation.deleted") deleted((event.payload as { id: string }).id);
  });

  const all = list.data ?? [];
  const counts = new Map<string, number>();
  for (const a of all) counts.set(a.status, (counts.get(a.status) ?? 0) + 1);
  const shown = filter === "all" ? all : all.filter((a) => a.status === filter);

  return (
    <div className="page-body automations">
      <header className="page-head">
        <div>
          <h2 className="automations-title">Automations</h2>
          <p className="muted small">
            Schedules, webhooks, social posts and tunnels of this space. Nothing runs until a person has approved or
            activated it; those proposed by AI staff wait for a person's approval.
          </p>
        </div>
        {ws.can("files.write") && (
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            New automation
          </button>
        )}
      </header>
      {all.length > 0 && (
        <fieldset className="filter-chips">
          <legend className="sr-only">Show automations</legend>
          {(["all", "pending_approval", "active", "paused", "draft", "rejected"] as const).map((status) => {
            const count = status === "all" ? all.length : (counts.get(status) ?? 0);
            if (status !== "all" && count === 0 && filter !== status) return null;
            return (
              <button
                key={status}
                type="button"
                className={filter === status ? "chip active" : "chip"}
                aria-pressed={filter === status}
                onClick={() => setFilter(status)}
              >
                {status === "all" ? "All" : STATUSES[status]} <span className="chip-count">{count}</span>
              </button>
            );
          })}
        </fieldset>
      )}
      <ErrorText error={list.error} />
      {!list.data && !list.error && <Spinner />}
      {list.data && all.length === 0 && (
        <Empty>
          No automations in {space.name} yet.
          {ws.can("files.write") ? " Create one, or ask an AI staff member to propose one." : ""}
        </Empty>
      )}
      {list.data && all.length > 0 && shown.length === 0 && <Empty>None with this status.</Empty>}
      <ul className="automation-list">
        {shown.map((a) => (
          <li key={a.id}>
            <AutomationCard automation={a} staffNames={staffNames} onSaved={saved} onDeleted={deleted} />
          </li>
        ))}
      </ul>
      {creating && <AutomationForm spaceId={space.id} onClose={() => setCreating(false)} onSaved={saved} />}
    </div>
  );
}
