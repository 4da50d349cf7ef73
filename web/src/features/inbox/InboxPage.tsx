/**
 * The inbox: what needs the person, newest first (mentions in chat and task comments, tasks assigned to them,
 * staff answers to their questions, approvals waiting), each linked to its place and marked read when opened.
 * "Unread only" is kept in the address (`?unread=1`); older items load a page at a time; new ones arrive live
 * (`inbox.item`) at the top, and items read elsewhere (another tab or device, a room read) turn read live
 * (`inbox.read`).
 */
import { useCallback, useEffect, useRef, useState } from "react";
import type { InboxItem, InboxReadEvent } from "../../../../src/api-types";
import { messageOf } from "../../lib/api";
import { loadFresh, useLiveEvents } from "../../lib/events";
import { useAction } from "../../lib/hooks";
import { Link, navigate, useLocation } from "../../lib/router";
import { busyProps, Empty, ErrorText, Spinner, timeAgo } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { getInbox } from "./api";
import { DesktopOffer } from "./DesktopOffer";
import { directPlaceOf, headline, KINDS, withRead } from "./items";
import { markItemsRead, openItem, useUnreadState } from "./unread";

const PAGE = 30;

interface Loaded {
  items: InboxItem[];
  hasMore: boolean;
}

export default function InboxPage() {
  const ws = useWorkspace();
  const { query } = useLocation();
  const unreadOnly = query.get("unread") === "1";
  const unread = useUnreadState().inbox;
  const [list, setList] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [olderBusy, setOlderBusy] = useState(false);
  const latest = useRef(0);

  const load = useCallback(async () => {
    const request = ++latest.current;
    try {
      const page = await loadFresh(() => getInbox(ws.org.id, { unreadOnly, limit: PAGE }));
      if (request !== latest.current) return;
      setList({ items: page.items, hasMore: page.items.length === PAGE });
      setError(null);
    } catch (err) {
      if (request === latest.current) setError(messageOf(err));
    }
  }, [ws.org.id, unreadOnly]);

  useEffect(() => {
    setList(null);
    void load();
  }, [load]);
  useLiveEvents((event) => {
    if (event.type === "resync") void load();
    else if (event.type === "inbox.item") {
      const item = event.payload as InboxItem;
      setList((l) => (l && !l.items.some((i) => i.id === item.id) ? { ...l, items: [item, ...l.items] } : l));
    } else if (event.type === "inbox.read") {
      const read = event.payload as InboxReadEvent;
      readNow("all" in read ? "all" : read.ids);
    }
  });

  const loadOlder = async () => {
    const last = list?.items[list.items.length - 1];
    if (!last || olderBusy) return;
    setOlderBusy(true);
    try {
      const page = await getInbox(ws.org.id, { unreadOnly, limit: PAGE, before: last.created_at });
      setList((l) =>
        l
          ? {
              items: [...l.items, ...page.items.filter((i) => !l.items.some((o) => o.id === i.id))],
              hasMore: page.items.length === PAGE,
            }
          : l,
      );
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setOlderBusy(false);
    }
  };

  const readNow = (ids: string[] | "all") =>
    setList((l) => (l ? { ...l, items: withRead(l.items, ids, new Date().toISOString()) } : l));
  const markAll = useAction(async () => {
    await markItemsRead({ all: true });
    readNow("all");
  });
  const markOne = useAction(async (id: string) => {
    await markItemsRead({ ids: [id] });
    readNow([id]);
  });

  const spaceName = new Map(ws.spaces.map((s) => [s.id, s.name]));

  return (
    <section className="page-body narrow inbox">
      <header className="page-head">
        <div>
          <h1>
            Inbox
            {unread > 0 && (
              <span className="inbox-unread" role="status">
                {unread} unread
              </span>
            )}
          </h1>
          <p className="muted small">
            Mentions of you, tasks assigned to you, answers from staff and approvals waiting for you.
          </p>
        </div>
        <div className="inbox-actions">
          <label className="inbox-filter">
            <input
              type="checkbox"
              checked={unreadOnly}
              onChange={(event) => navigate(event.target.checked ? "/inbox?unread=1" : "/inbox", { replace: true })}
            />
            Unread only
          </label>
          <button type="button" {...busyProps(markAll.busy || unread === 0)} onClick={() => void markAll.run()}>
            Mark all read
          </button>
        </div>
      </header>
      <DesktopOffer />
      <ErrorText error={error ?? markAll.error ?? markOne.error} />
      {list === null ? (
        error ? null : (
          <Spinner />
        )
      ) : list.items.length === 0 ? (
        <Empty>
          {unreadOnly ? "Nothing unread. " : "Nothing here yet. "}
          When someone mentions you, assigns you a task, a staff member answers you or something waits for your
          approval, it shows here.
        </Empty>
      ) : (
        <ul className="inbox-list">
          {list.items.map((item) => {
            const kind = KINDS[item.kind];
            const place = directPlaceOf(item) ?? `/spaces/${item.space_id}/files`;
            const space = spaceName.get(item.space_id);
            return (
              <li key={item.id} className={item.read_at ? "inbox-item" : "inbox-item unread"}>
                <span className={`inbox-kind kind-${item.kind}`} title={kind.label} aria-hidden="true">
                  {kind.icon}
                </span>
                <Link
                  href={place}
                  className="inbox-link"
                  onClick={(event) => {
                    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
                    event.preventDefault();
                    void openItem(ws, item);
                  }}
                >
                  <span className="inbox-line">
                    <span className="inbox-headline">{headline(item, ws.nameOf)}</span>
                    {space && <span className="muted inbox-space"> · {space}</span>}
                    {!item.read_at && <span className="sr-only">, unread</span>}
                  </span>
                  {item.summary && <span className="inbox-summary">{item.summary}</span>}
                </Link>
                <span className="inbox-meta">
                  <time dateTime={item.created_at} title={new Date(item.created_at).toLocaleString()}>
                    {timeAgo(item.created_at)}
                  </time>
                  {!item.read_at && (
                    <button
                      type="button"
                      className="link small"
                      aria-label={`Mark read: ${headline(item, ws.nameOf)}`}
                      onClick={() => void markOne.run(item.id)}
                    >
                      Mark read
                    </button>
                  )}
                </span>
              </li>
            );
          })}
        </ul>
      )}
      {list?.hasMore && (
        <div className="inbox-older">
          <button type="button" className="link" {...busyProps(olderBusy)} onClick={() => void loadOlder()}>
            {olderBusy ? "Loading older items…" : "Load older items"}
          </button>
        </div>
      )}
    </section>
  );
}
