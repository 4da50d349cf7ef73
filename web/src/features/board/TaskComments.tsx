/**
 * A task's comments (its messages): oldest first with "Load older comments", posting, live from
 * `task.message.created`, and a "thinking" line while AI staff answer an assignment. `@` offers the people and
 * staff who can read the space, as in chat, and mentions in comments stand out as they do in chat messages.
 */
import { type FormEvent, useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Member, Space, Task, TaskMessage } from "../../../../src/api-types";
import { messageOf } from "../../lib/api";
import { loadFresh, useLiveEvents } from "../../lib/events";
import { useAction } from "../../lib/hooks";
import { Markdown } from "../../lib/markdown";
import { useMentionPicker } from "../../lib/mention-picker";
import { type Candidate, useMentionHighlighter } from "../../lib/mentions";
import { Avatar, dateTime, ErrorText, timeAgo } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { listTaskMessages, postTaskMessage } from "./api";

const PAGE = 50;

/** The comments section of a task's detail. */
export function TaskComments({
  space,
  task,
  canWrite,
  audience,
  draft,
  onDraft: setDraft,
  onStepOut,
}: {
  space: Space;
  task: Task;
  canWrite: boolean;
  /** Who can read the space (the board's `useAudience`); null while a private space's members load. */
  audience: readonly Member[] | null;
  /** The comment being typed, kept by the panel (leaving the task asks about it). */
  draft: string;
  onDraft: (draft: string) => void;
  /** Takes the keyboard out of the comment box, its text kept (Escape there while something is typed). */
  onStepOut: () => void;
}) {
  const ws = useWorkspace();
  const [messages, setMessages] = useState<TaskMessage[] | null>(null);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [thinking, setThinking] = useState<string[]>([]);
  const area = useRef<HTMLTextAreaElement>(null);

  // Who `@` offers: those who can read this space (everyone for a public one, its members for a private one).
  const candidates = useMemo<Candidate[]>(
    () =>
      (audience ?? [])
        .filter((m) => m.user_id !== ws.me.id)
        .map((m) => ({ id: m.user_id, name: m.display_name, staff: m.is_service_account })),
    [audience, ws.me.id],
  );
  const picker = useMentionPicker(draft, setDraft, candidates, area);

  const highlight = useMentionHighlighter(ws.members, ws.me.id);

  const load = useCallback(async () => {
    try {
      const page = await loadFresh(() => listTaskMessages(ws.base, space.id, task.id, { limit: PAGE }));
      setMessages(page);
      setMore(page.length === PAGE);
      setError(null);
    } catch (err) {
      setError(messageOf(err));
    }
  }, [ws.base, space.id, task.id]);

  useEffect(() => {
    void load();
  }, [load]);

  const add = (message: TaskMessage) =>
    setMessages((list) => (list && !list.some((m) => m.id === message.id) ? [...list, message] : list));

  useLiveEvents((event) => {
    if (event.type === "resync") {
      void load();
      return;
    }
    if (event.space_id !== space.id || event.payload?.task_id !== task.id) return;
    if (event.type === "task.message.created") {
      add(event.payload as TaskMessage);
      setThinking((ids) => ids.filter((id) => id !== event.payload.author_user_id));
    } else if (event.type === "ai.reply.started") {
      const id = String(event.payload.staff_user_id);
      setThinking((ids) => (ids.includes(id) ? ids : [...ids, id]));
    } else if (event.type === "ai.reply.finished" || event.type === "ai.reply.failed") {
      setThinking((ids) => ids.filter((id) => id !== event.payload.staff_user_id));
    }
  });

  const older = useAction(async () => {
    const oldest = messages?.[0];
    if (!oldest) return;
    const page = await listTaskMessages(ws.base, space.id, task.id, { limit: PAGE, before: oldest.created_at });
    setMessages((list) => [...page, ...(list ?? [])]);
    setMore(page.length === PAGE);
  });

  const post = useAction(async (content: string) => {
    add(await postTaskMessage(ws.base, space.id, task.id, content));
    setDraft("");
  });

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    if (draft.trim() && !post.busy) void post.run(draft);
  };

  return (
    <section className="detail-section" aria-labelledby={`comments-${task.id}`}>
      <div className="detail-section-head">
        <h3 id={`comments-${task.id}`}>Comments</h3>
      </div>
      <ErrorText error={error ?? older.error} />
      {more && (
        <button type="button" className="link" disabled={older.busy} onClick={() => void older.run()}>
          {older.busy ? "Loading…" : "Load older comments"}
        </button>
      )}
      {messages === null && !error && <p className="muted">Loading comments…</p>}
      {messages?.length === 0 && <p className="muted">No comments yet.</p>}
      <ol className="comments">
        {messages?.map((message) => {
          const staff = ws.isStaff(message.author_user_id);
          const name = ws.nameOf(message.author_user_id);
          return (
            <li key={message.id} className="comment">
              <Avatar id={message.author_user_id ?? "?"} name={name} staff={staff} />
              <div className="grow">
                <div className="comment-head">
                  <strong>{name}</strong>
                  {staff && <span className="badge">AI staff</span>}
                  <time className="small muted" dateTime={message.created_at} title={dateTime(message.created_at)}>
                    {timeAgo(message.created_at)}
                  </time>
                </div>
                <Markdown source={message.content} highlight={highlight} />
              </div>
            </li>
          );
        })}
      </ol>
      {thinking.map((id) => (
        <p key={id} className="small muted thinking" aria-live="polite">
          {ws.nameOf(id)} is thinking…
        </p>
      ))}
      {canWrite && (
        <form className="comment-form" onSubmit={submit}>
          {picker.list}
          <textarea
            ref={area}
            aria-label="Comment"
            rows={3}
            placeholder="Write a comment (Markdown; @ to mention; Ctrl + Enter sends)"
            value={draft}
            {...picker.fieldProps}
            onChange={(event) => {
              setDraft(event.target.value);
              picker.changed(event.target.value, event.target.selectionStart);
            }}
            onKeyDown={(event) => {
              if (picker.keyDown(event)) return;
              if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) submit();
              else if (event.key === "Escape" && draft.trim()) {
                // As in Linear, Escape leaves the box and keeps the text; a second Escape closes the panel,
                // which asks before the comment is thrown away.
                event.preventDefault();
                onStepOut();
              }
            }}
          />
          <div className="row end">
            <button type="submit" className="primary" disabled={post.busy || !draft.trim()}>
              Comment
            </button>
          </div>
          <ErrorText error={post.error} />
        </form>
      )}
    </section>
  );
}
