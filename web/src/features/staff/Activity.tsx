/**
 * What AI staff did: one entry per reply, newest first, with where it answered (linked to the room or task),
 * its status, model, tokens, time and every tool it called. Pages back with `before`; refreshes live on
 * `ai.reply.*` events (a reply starting, finishing or failing).
 */
import { useCallback, useEffect, useRef, useState } from "react";
import type { ActivityEntry, ToolCall } from "../../../../src/api-types";
import { messageOf } from "../../lib/api";
import { useLiveEvents } from "../../lib/events";
import { Link } from "../../lib/router";
import { Avatar, dateTime, Empty, ErrorText, Spinner, timeAgo } from "../../lib/ui";
import { FORMER_STAFF, useWorkspace } from "../../lib/workspace";
import { listTasks } from "../board/api";
import { listRooms } from "../chat/api";
import { listActivity } from "./api";
import { duration } from "./model";

const PAGE = 25;

/** Merges pages by job, newest first; a newer copy of an entry (it finished meanwhile) wins. */
function merge(fresh: ActivityEntry[], old: ActivityEntry[]): ActivityEntry[] {
  const byJob = new Map<string, ActivityEntry>();
  for (const entry of [...old, ...fresh]) byJob.set(entry.job_id, entry);
  return [...byJob.values()].sort((a, b) =>
    a.created_at === b.created_at ? b.job_id.localeCompare(a.job_id) : b.created_at.localeCompare(a.created_at),
  );
}

/** Names of rooms and tasks by space, fetched once per space and again only when an entry names a new one. */
const names = new Map<string, { at: number; found: Promise<Map<string, string>> }>();

async function contextNames(base: string, spaceId: string, need: string[]): Promise<Map<string, string>> {
  const key = `${base}/${spaceId}`;
  const cached = names.get(key);
  if (cached) {
    const found = await cached.found.catch(() => null);
    // A room or task made after the fetch: fetch again, but not more than every few seconds.
    if (found && (need.every((id) => found.has(id)) || Date.now() - cached.at < 5000)) return found;
  }
  const found = Promise.all([listRooms(base, spaceId), listTasks(base, spaceId)]).then(
    ([rooms, tasks]) =>
      new Map([
        ...rooms.map((r) => [r.id, `#${r.name}`] as const),
        ...tasks.map((t) => [t.id, `“${t.title}”`] as const),
      ]),
  );
  names.set(key, { at: Date.now(), found });
  return found;
}

/** Room and task names for `entries` (an entry shows a generic "a chat room" until its name arrives). */
function useContextNames(entries: ActivityEntry[]): Map<string, string> {
  const ws = useWorkspace();
  const [known, setKnown] = useState<Map<string, string>>(new Map());
  const wanted = new Map<string, Set<string>>();
  for (const e of entries) {
    const id = e.chat_room_id ?? e.task_id;
    if (!id || known.has(id)) continue;
    wanted.set(e.space_id, (wanted.get(e.space_id) ?? new Set()).add(id));
  }
  const key = [...wanted].map(([space, ids]) => `${space}:${[...ids].sort().join("+")}`).join(",");
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for `wanted`, which is rebuilt each render.
  useEffect(() => {
    let live = true;
    for (const [spaceId, ids] of wanted) {
      contextNames(ws.base, spaceId, [...ids])
        .then((found) => live && setKnown((old) => new Map([...old, ...found])))
        // Names are a nicety: without them the entry still links to its room or task.
        .catch(() => {});
    }
    return () => {
      live = false;
    };
  }, [ws.base, key]);
  return known;
}

function ToolCalls({ calls }: { calls: ToolCall[] }) {
  return (
    <details className="tool-calls">
      <summary className="small">
        {calls.length} tool {calls.length === 1 ? "call" : "calls"}: {calls.map((c) => c.name).join(", ")}
      </summary>
      <ol>
        {calls.map((call, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: calls are listed in the order they ran and never move.
          <li key={i}>
            <p className="small">
              <code>{call.name}</code> <span className="muted">· {duration(call.duration_ms)}</span>
              {call.error && <span className="error-text"> · failed: {call.error}</span>}
            </p>
            {call.arguments && call.arguments !== "{}" && (
              <>
                <span className="muted small">Arguments</span>
                <pre className="small">{call.arguments}</pre>
              </>
            )}
            {call.result && (
              <>
                <span className="muted small">Result</span>
                <pre className="small">{call.result}</pre>
              </>
            )}
          </li>
        ))}
      </ol>
    </details>
  );
}

const VERBS: Record<ActivityEntry["status"], string> = {
  queued: "will answer",
  running: "is answering",
  done: "answered",
  failed: "could not answer",
};

function Entry({
  entry,
  names: known,
  showName,
}: {
  entry: ActivityEntry;
  names: Map<string, string>;
  showName: boolean;
}) {
  const ws = useWorkspace();
  const space = ws.spaces.find((s) => s.id === entry.space_id);
  // An entry is always a staff member's: one who is no longer a member was deleted.
  const current = ws.members.some((m) => m.user_id === entry.staff_user_id);
  const staffName = current ? ws.nameOf(entry.staff_user_id) : FORMER_STAFF;
  let where: React.ReactNode;
  if (entry.trigger === "chat" && entry.chat_room_id) {
    where = (
      <>
        a mention in{" "}
        <Link href={`/spaces/${entry.space_id}/chat/${entry.chat_room_id}`}>
          {known.get(entry.chat_room_id) ?? "a chat room"}
        </Link>
      </>
    );
  } else if (entry.task_id) {
    where = (
      <>
        the task{" "}
        <Link href={`/spaces/${entry.space_id}/board?task=${entry.task_id}`}>
          {known.get(entry.task_id) ?? "(a task)"}
        </Link>
      </>
    );
  } else where = entry.trigger === "chat" ? "a mention" : "a task";
  const tokens = entry.prompt_tokens + entry.completion_tokens;
  return (
    <li className={`activity-entry activity-${entry.status}`}>
      {entry.staff_user_id ? (
        <Avatar id={entry.staff_user_id} name={staffName} staff />
      ) : (
        <span className="avatar staff" />
      )}
      <div className="grow stack-tight">
        <p>
          {showName && current ? (
            <Link href={`/staff/${entry.staff_user_id}`} className="strong-link">
              {staffName}
            </Link>
          ) : (
            <strong>{staffName}</strong>
          )}{" "}
          {VERBS[entry.status]} {where}
          {space && (
            <>
              {" "}
              in <Link href={`/spaces/${space.id}/board`}>{space.name}</Link>
            </>
          )}
          <span className="muted">
            {" "}
            ·{" "}
            <time dateTime={entry.created_at} title={dateTime(entry.created_at)}>
              {timeAgo(entry.created_at)}
            </time>
          </span>
        </p>
        <p className="small muted">
          <span className={`activity-status status-${entry.status}`}>{entry.status}</span> ·{" "}
          {entry.model || entry.provider}
          {tokens > 0 &&
            ` · ${tokens.toLocaleString()} tokens (${entry.prompt_tokens} in, ${entry.completion_tokens} out)`}
          {entry.duration_ms !== null && ` · ${duration(entry.duration_ms)}`}
        </p>
        {entry.error && <p className="small error-text">{entry.error}</p>}
        {entry.tool_calls.length > 0 && <ToolCalls calls={entry.tool_calls} />}
      </div>
    </li>
  );
}

/** The activity of one staff member (`staffUserId`) or of all. */
export function ActivityFeed({ staffUserId }: { staffUserId: string | null }) {
  const ws = useWorkspace();
  const [entries, setEntries] = useState<ActivityEntry[] | null>(null);
  const [more, setMore] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** Which feed is on screen: an answer for another one (the staff member changed meanwhile) is dropped. */
  const query = `${ws.base}:${staffUserId ?? ""}`;
  const current = useRef(query);
  current.current = query;

  /** The newest page, merged into what is shown (live refresh keeps the older pages already loaded). */
  const refresh = useCallback(
    async (reset: boolean) => {
      try {
        const page = await listActivity(ws.base, { limit: PAGE, staff_user_id: staffUserId });
        if (current.current !== query) return;
        setEntries((old) => (reset || !old ? page : merge(page, old)));
        if (reset) setMore(page.length === PAGE);
        setError(null);
      } catch (err) {
        if (current.current === query) setError(messageOf(err));
      }
    },
    [query, ws.base, staffUserId],
  );

  useEffect(() => {
    setEntries(null);
    void refresh(true);
  }, [refresh]);

  // A reply starting, finishing or failing changes an entry: bursts are folded into one refresh.
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  useLiveEvents((event) => {
    const relevant =
      event.type === "resync" ||
      (event.type.startsWith("ai.reply.") && (!staffUserId || event.payload?.staff_user_id === staffUserId));
    if (!relevant) return;
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void refresh(false), 250);
  });

  const older = async () => {
    const last = entries?.at(-1);
    if (!last) return;
    setBusy(true);
    try {
      const page = await listActivity(ws.base, { limit: PAGE, staff_user_id: staffUserId, before: last.created_at });
      setEntries((old) => merge(page, old ?? []));
      setMore(page.length === PAGE);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  const known = useContextNames(entries ?? []);

  return (
    <section className="activity" aria-label="Activity">
      <ErrorText error={error} />
      {entries === null && !error && <Spinner />}
      {entries?.length === 0 && (
        <Empty>
          {staffUserId
            ? "Nothing yet. Mention this staff member in a chat (@name) or assign it a task, and what it does shows up here."
            : "No staff activity yet. Mention a staff member in a chat or assign it a task, and what it does shows up here."}
        </Empty>
      )}
      {entries && entries.length > 0 && (
        <ol className="activity-list">
          {entries.map((entry) => (
            <Entry key={entry.job_id} entry={entry} names={known} showName={!staffUserId} />
          ))}
        </ol>
      )}
      {more && (
        <button type="button" onClick={() => void older()} disabled={busy}>
          {busy ? "Loading…" : "Show older"}
        </button>
      )}
    </section>
  );
}
