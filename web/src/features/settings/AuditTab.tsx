/**
 * The audit log (owners: `org.manage`): who did what to what, when and from which address, newest first, with
 * filters by person and by action kept in the address (`?actor={userId}&action=member.removed`), so a reload,
 * Back or a shared link keeps them; "Load more" shows older records. Below 760 px each record is a card.
 */
import { useMemo } from "react";
import type { AuditEvent } from "../../../../src/api-types";
import { navigate, useLocation } from "../../lib/router";
import { busyProps, dateTime, Spinner, timeAgo } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { ACTION_GROUPS, actionName, actorName, detailsText, isAction, nameOfAction, targetName } from "./audit-names";
import { LoadError } from "./refusal";
import { useAudit } from "./use-audit";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The people the log can be filtered by: the members, and whoever acted in what is shown (left since, say). */
function usePeople(events: AuditEvent[] | null, actor: string | null): { id: string; name: string }[] {
  const ws = useWorkspace();
  return useMemo(() => {
    const names = new Map<string, string>();
    for (const m of ws.members)
      names.set(m.user_id, m.is_service_account ? `${m.display_name} (staff)` : m.display_name);
    for (const e of events ?? [])
      if (e.actor_user_id && !names.has(e.actor_user_id)) names.set(e.actor_user_id, actorName(e));
    if (actor && !names.has(actor)) names.set(actor, "Former member");
    return [...names].map(([id, name]) => ({ id, name })).sort((a, b) => a.name.localeCompare(b.name));
  }, [ws.members, events, actor]);
}

function AuditRow({ event, onActor }: { event: AuditEvent; onActor: (userId: string) => void }) {
  const details = detailsText(event);
  const who = actorName(event);
  return (
    <tr>
      <td data-label="When" className="audit-when">
        <time dateTime={event.created_at} title={timeAgo(event.created_at)}>
          {dateTime(event.created_at)}
        </time>
      </td>
      <td data-label="Who">
        {event.actor_user_id ? (
          <button
            type="button"
            className="link audit-who"
            onClick={() => onActor(event.actor_user_id as string)}
            aria-label={`${who}: show only what they did`}
          >
            {who}
          </button>
        ) : (
          <span className="muted">{who}</span>
        )}
      </td>
      <td data-label="What">{actionName(event)}</td>
      <td data-label="Target" className="audit-target">
        <div>
          {targetName(event)}
          {details && <span className="muted small audit-details">{details}</span>}
        </div>
      </td>
      <td data-label="Address" className="audit-address">
        {event.address ? <code>{event.address}</code> : <span className="muted">—</span>}
      </td>
    </tr>
  );
}

/** The Audit log tab. */
export function AuditTab() {
  const ws = useWorkspace();
  const { path, query } = useLocation();
  const asked = query.get("actor");
  const actor = asked && UUID.test(asked) ? asked.toLowerCase() : null;
  const wanted = query.get("action");
  const action = isAction(wanted) ? wanted : null;
  const log = useAudit(ws.base, actor, action);
  const people = usePeople(log.events, actor);
  const filtering = actor !== null || action !== null;
  const setFilter = (next: { actor?: string | null; action?: string | null }) => {
    const params = new URLSearchParams();
    const a = next.actor === undefined ? actor : next.actor;
    const b = next.action === undefined ? action : next.action;
    if (a) params.set("actor", a);
    if (b) params.set("action", b);
    navigate(params.size ? `${path}?${params}` : path, { replace: true });
  };

  return (
    <div className="stack">
      <p className="muted">
        Who did what, when and from which address: members and roles, invites and sign-ups, staff and provider keys,
        approvals, deletions and backups. Records are kept for a year.
      </p>
      <search className="audit-filters" aria-label="Filter the audit log">
        <label className="audit-filter">
          <span>Person</span>
          <select value={actor ?? ""} onChange={(event) => setFilter({ actor: event.target.value || null })}>
            <option value="">Anyone</option>
            {people.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <label className="audit-filter">
          <span>Action</span>
          <select value={action ?? ""} onChange={(event) => setFilter({ action: event.target.value || null })}>
            <option value="">Any action</option>
            {ACTION_GROUPS.map((group) => (
              <optgroup key={group.label} label={group.label}>
                {group.actions.map((a) => (
                  <option key={a} value={a}>
                    {nameOfAction(a)}
                  </option>
                ))}
              </optgroup>
            ))}
          </select>
        </label>
        {filtering && (
          <button type="button" className="link" onClick={() => setFilter({ actor: null, action: null })}>
            Clear filters
          </button>
        )}
      </search>
      <LoadError error={log.error} />
      {log.events === null && !log.error && <Spinner />}
      {log.events?.length === 0 && (
        <p className="muted" role="status">
          {filtering ? "No records match these filters." : "Nothing has been recorded yet."}
        </p>
      )}
      {log.events && log.events.length > 0 && (
        <div className="panel audit-panel">
          <table className="audit-table">
            <caption className="sr-only">Audit log, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">Target</th>
                <th scope="col">Address</th>
              </tr>
            </thead>
            <tbody>
              {log.events.map((event) => (
                <AuditRow key={event.id} event={event} onActor={(userId) => setFilter({ actor: userId })} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {log.hasMore && (
        <button type="button" className="audit-more" {...busyProps(log.loading)} onClick={log.more}>
          {log.loading ? "Loading…" : "Load more"}
        </button>
      )}
    </div>
  );
}
