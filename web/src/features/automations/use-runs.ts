/**
 * An automation's run history, live: the newest page first, older pages on demand, and every run that starts or
 * finishes while the page is open (`automation.run.started` / `.finished`). After a reconnect the newest page is
 * asked again, since events sent meanwhile are gone.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import type { AutomationRun } from "../../../../src/api-types";
import { messageOf } from "../../lib/api";
import { loadFresh, useLiveEvents } from "../../lib/events";
import { useWorkspace } from "../../lib/workspace";
import { listRuns } from "./api";
import { mergeRuns, upsertRun } from "./runs-state";

/** Runs asked for at a time. */
export const RUNS_PAGE = 20;

/** The runs of `automationId`, newest first. */
export function useRuns(spaceId: string, automationId: string, pageSize = RUNS_PAGE) {
  const ws = useWorkspace();
  const [runs, setRuns] = useState<AutomationRun[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [more, setMore] = useState(false);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const key = useRef(automationId);
  key.current = automationId;

  const loadNewest = useCallback(async () => {
    try {
      const page = await loadFresh(() => listRuns(ws.base, spaceId, automationId, { limit: pageSize }));
      if (key.current !== automationId) return;
      setRuns((old) => mergeRuns(old ?? [], page));
      // Only the first answer says whether older runs exist; later reloads leave what paging found.
      setMore((old) => old || page.length === pageSize);
      setError(null);
    } catch (err) {
      if (key.current === automationId) setError(messageOf(err));
    }
  }, [ws.base, spaceId, automationId, pageSize]);

  useEffect(() => {
    setRuns(null);
    setMore(false);
    void loadNewest();
  }, [loadNewest]);

  const loadOlder = useCallback(async () => {
    const oldest = runs?.[runs.length - 1];
    if (!oldest) return;
    setLoadingOlder(true);
    try {
      const page = await listRuns(ws.base, spaceId, automationId, { limit: pageSize, before: oldest.created_at });
      setRuns((old) => mergeRuns(old ?? [], page));
      setMore(page.length === pageSize);
      setError(null);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setLoadingOlder(false);
    }
  }, [runs, ws.base, spaceId, automationId, pageSize]);

  /** A run this page started (Run now): shown at once, before its event. */
  const add = useCallback((run: AutomationRun) => setRuns((old) => upsertRun(old ?? [], run)), []);

  useLiveEvents((event) => {
    if (event.type === "resync") void loadNewest();
    else if (event.type === "automation.run.started" || event.type === "automation.run.finished") {
      const run = event.payload as AutomationRun;
      if (run.automation_id === automationId) add(run);
    }
  });

  return { runs, error, more, loadingOlder, loadOlder, add };
}

/** What `useRuns` gives. */
export type Runs = ReturnType<typeof useRuns>;
