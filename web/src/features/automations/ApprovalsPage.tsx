/**
 * The approval inbox: every automation waiting for approval in the spaces the user can see, to approve or
 * reject with a reason. Built from each space's list (no inbox route is needed: one request per space, at
 * once), and kept live: a proposal appears when a staff member makes it and leaves when anyone reviews it.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import type { Automation, Space } from "../../../../src/api-types";
import { messageOf } from "../../lib/api";
import { loadFresh, useLiveEvents } from "../../lib/events";
import { Empty, Spinner } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { listAutomations } from "./api";
import { AutomationCard, useStaffNames } from "./automation";

/** The /approvals screen. */
export default function ApprovalsPage() {
  const ws = useWorkspace();
  const staffNames = useStaffNames();
  const [pending, setPending] = useState<Automation[] | null>(null);
  const [failures, setFailures] = useState<string[]>([]);

  const load = useCallback(async () => {
    const results = await loadFresh(() =>
      Promise.allSettled(ws.spaces.map((space) => listAutomations(ws.base, space.id))),
    );
    const found: Automation[] = [];
    const failed: string[] = [];
    results.forEach((result, i) => {
      const space = ws.spaces[i] as Space;
      if (result.status === "fulfilled") found.push(...result.value.filter((a) => a.status === "pending_approval"));
      else failed.push(`${space.name}: ${messageOf(result.reason)}`);
    });
    // Oldest first: the proposal that has waited longest is reviewed first.
    found.sort((a, b) => a.created_at.localeCompare(b.created_at));
    setPending(found);
    setFailures(failed);
  }, [ws.base, ws.spaces]);

  useEffect(() => {
    void load();
  }, [load]);

  // When the card holding the keyboard goes (approved, rejected: by this user or anyone), the focus moves to the
  // card that takes its place, else the one above, else the empty state, rather than falling to the page.
  const listRef = useRef<HTMLUListElement>(null);
  const emptyRef = useRef<HTMLDivElement>(null);
  const focusAt = useRef<number | null>(null);
  // The card last holding the keyboard: a pressed Approve is disabled while it runs, which drops its focus to the
  // page before the card goes.
  const lastFocused = useRef<string | null>(null);
  const leaving = (id: string) => {
    const items = [...(listRef.current?.children ?? [])];
    const at = items.findIndex((li) => (li as HTMLElement).dataset.id === id);
    if (at === -1) return;
    const active = document.activeElement;
    const dropped = (!active || active === document.body) && lastFocused.current === id;
    if (dropped || items[at]?.contains(active)) focusAt.current = at;
  };
  useLayoutEffect(() => {
    if (focusAt.current === null || pending === null) return;
    const items = listRef.current?.children ?? [];
    const next = items[Math.min(focusAt.current, items.length - 1)]?.querySelector<HTMLElement>("article");
    focusAt.current = null;
    (next ?? emptyRef.current)?.focus();
  }, [pending]);

  const remove = (id: string) => {
    leaving(id);
    setPending((list) => list?.filter((a) => a.id !== id) ?? null);
  };
  const update = (automation: Automation) => {
    if (automation.status !== "pending_approval") leaving(automation.id);
    setPending((list) => {
      if (!list) return list;
      const rest = list.filter((a) => a.id !== automation.id);
      if (automation.status !== "pending_approval") return rest;
      const old = list.find((a) => a.id === automation.id);
      if (old && old.updated_at > automation.updated_at) return list;
      return [...rest, automation].sort((a, b) => a.created_at.localeCompare(b.created_at));
    });
  };

  useLiveEvents((event) => {
    if (event.type === "resync") void load();
    else if (event.type === "automation.updated") update(event.payload as Automation);
    else if (event.type === "automation.deleted") remove((event.payload as { id: string }).id);
  });

  const spaceOf = new Map(ws.spaces.map((s) => [s.id, s]));
  const write = ws.can("files.write") || ws.me.service_account_id !== null;

  return (
    <section className="page-body narrow approvals">
      <header className="page-head">
        <div>
          <h1>
            Approvals
            {pending && pending.length > 0 && (
              <span className="count-badge" role="status">
                {pending.length} waiting
              </span>
            )}
          </h1>
          <p className="muted small">
            Automations proposed by AI staff, or submitted for review, wait here until a person approves or rejects
            them. Once approved, they run.
          </p>
        </div>
      </header>
      {!write && (
        <p className="notice">You can see what waits, but approving and rejecting needs the files.write permission.</p>
      )}
      {failures.length > 0 && (
        <div role="alert" className="error">
          <p>Some spaces could not be checked:</p>
          <ul>
            {failures.map((f) => (
              <li key={f}>{f}</li>
            ))}
          </ul>
        </div>
      )}
      {pending === null && <Spinner />}
      {pending?.length === 0 && (
        <div ref={emptyRef} tabIndex={-1} className="focus-target">
          <Empty>Nothing waits for approval. New proposals appear here as they are made.</Empty>
        </div>
      )}
      <ul
        className="automation-list"
        ref={listRef}
        onFocus={(event) => {
          lastFocused.current = event.target.closest<HTMLElement>("li[data-id]")?.dataset.id ?? null;
        }}
      >
        {pending?.map((a) => (
          <li key={a.id} data-id={a.id}>
            <AutomationCard
              automation={a}
              space={spaceOf.get(a.space_id)}
              inbox
              staffNames={staffNames}
              onSaved={update}
              onDeleted={remove}
            />
          </li>
        ))}
      </ul>
    </section>
  );
}
