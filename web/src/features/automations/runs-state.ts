/**
 * An automation's runs as a page shows them, newest first, updated by the answers of the history route and by
 * the `automation.run.started` / `.finished` events. Pure, like `room-state.ts`: each function returns a new list.
 */
import type { AutomationRun } from "../../../../src/api-types";

const RANK: Record<AutomationRun["status"], number> = { queued: 0, running: 1, succeeded: 2, failed: 2 };

/** Newest first; runs created in the same millisecond keep a stable order by id. */
function newestFirst(a: AutomationRun, b: AutomationRun): number {
  return b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id);
}

/**
 * Whether `next` is not older than `old` (the same run): a finished run never goes back to running, and of two
 * answers in the same state the later attempt wins. Events and page loads may arrive in any order.
 */
function newer(old: AutomationRun, next: AutomationRun): boolean {
  if (RANK[next.status] !== RANK[old.status]) return RANK[next.status] > RANK[old.status];
  return next.attempt >= old.attempt;
}

/** Puts `run` in its place: replacing its older self, or added in order. */
export function upsertRun(runs: AutomationRun[], run: AutomationRun): AutomationRun[] {
  const at = runs.findIndex((r) => r.id === run.id);
  if (at !== -1) {
    if (!newer(runs[at] as AutomationRun, run)) return runs;
    return runs.map((r, i) => (i === at ? run : r));
  }
  return [...runs, run].sort(newestFirst);
}

/** Adds a page of runs (a first load, an older page, a reload) without undoing newer events. */
export function mergeRuns(runs: AutomationRun[], page: AutomationRun[]): AutomationRun[] {
  return page.reduce(upsertRun, runs);
}

/** The tunnel's current connection: the latest connection run while it is running, else null. */
export function liveConnection(runs: AutomationRun[]): AutomationRun | null {
  const latest = runs.find((r) => r.trigger === "connection");
  return latest && latest.status === "running" ? latest : null;
}

/** How long a run took, or has been running: "4 s", "2 min 5 s", "1 h 3 min". */
export function duration(run: AutomationRun, now = Date.now()): string | null {
  if (!run.started_at) return null;
  const end = run.finished_at ? Date.parse(run.finished_at) : now;
  const ms = Math.max(0, end - Date.parse(run.started_at));
  if (ms < 1000) return `${ms} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
}
