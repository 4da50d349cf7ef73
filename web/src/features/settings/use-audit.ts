/**
 * The audit log's pages: the newest 50 records for the filters, then 50 older each time "Load more" asks
 * (`before` = the oldest time shown: records never share a time, so none is skipped or shown twice). A change
 * of filters starts again; an answer to filters no longer shown is dropped.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import type { AuditAction, AuditEvent } from "../../../../src/api-types";
import { messageOf } from "../../lib/api";
import { listAudit } from "./api";

/** The API's default page. */
const PAGE = 50;

/** What the log shows and how to get more. */
export interface AuditPages {
  events: AuditEvent[] | null;
  loading: boolean;
  error: string | null;
  /** Whether older records may exist; `more()` asks for them. */
  hasMore: boolean;
  more: () => void;
}

export function useAudit(base: string, actor: string | null, action: AuditAction | null): AuditPages {
  const [events, setEvents] = useState<AuditEvent[] | null>(null);
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const key = JSON.stringify([base, actor, action]);
  const latest = useRef(0);

  const load = useCallback(
    async (before: string | null, shown: AuditEvent[]) => {
      const request = ++latest.current;
      setLoading(true);
      setError(null);
      try {
        const page = await listAudit(base, {
          ...(before ? { before } : {}),
          ...(actor ? { actor_user_id: actor } : {}),
          ...(action ? { action } : {}),
        });
        if (request !== latest.current) return;
        setEvents([...shown, ...page]);
        setHasMore(page.length === PAGE);
      } catch (err) {
        if (request === latest.current) setError(messageOf(err));
      } finally {
        if (request === latest.current) setLoading(false);
      }
    },
    [base, actor, action],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: the key stands for the base and the filters.
  useEffect(() => {
    setEvents(null);
    setHasMore(false);
    void load(null, []);
  }, [key]);

  const more = () => {
    const oldest = events?.at(-1);
    if (!loading && oldest) void load(oldest.created_at, events ?? []);
  };
  return { events, loading, error, hasMore, more };
}
