/**
 * A thread beside its room (`?thread=<rootId>`): the root, its replies live, and a composer of its own that can
 * send a reply to the room too. On a phone it covers the room, with a back button. `target` (a reply opened from
 * the inbox or a search) is scrolled to and highlighted.
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef } from "react";
import type { ChatRoom, Message } from "../../../../src/api-types";
import { busyProps, ErrorText, Spinner } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { useAutomationNames } from "../automations/names";
import { Composer } from "./Composer";
import type { AttachmentDraft } from "./chat-types";
import { MessageBlocks, useRowInfos } from "./MessageBlocks";
import { MessageRow } from "./MessageRow";
import { type Candidate, useMentionHighlighter } from "./mentions";
import { PendingRows } from "./RoomParts";
import { attachmentsOf, reactionsOf } from "./room-state";
import { RowContext } from "./row-context";
import { repliesLabel } from "./thread-state";
import { useRoomWrites } from "./use-room-writes";
import { useRowActions } from "./use-row-actions";
import { useThread } from "./use-thread";

export function ThreadPanel({
  spaceId,
  room,
  rootId,
  target,
  candidates,
  outsiders,
  onClose,
}: {
  spaceId: string;
  room: ChatRoom;
  rootId: string;
  target: string | null;
  candidates: readonly Candidate[];
  outsiders: readonly Candidate[];
  onClose: () => void;
}) {
  const ws = useWorkspace();
  const me = ws.me.id;
  const arrived = useRef<(message: Message) => void>(() => undefined);
  const thread = useThread(ws.base, spaceId, room.id, rootId, (m) => arrived.current(m), me);
  const { data, loaded, error } = thread;
  const dataRef = useRef(data);
  dataRef.current = data;
  const writes = useRoomWrites(ws.base, spaceId, room.id, me, thread.setData);
  arrived.current = writes.arrived;
  const panel = useRef<HTMLElement>(null);
  const highlight = useMentionHighlighter(ws.members, me);
  const { actions, editLast, overlays } = useRowActions({
    writes,
    dataRef,
    sectionRef: panel,
    highlight,
    openThread: null,
  });

  const [root, ...rest] = data.messages;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the replies change exactly when the messages do.
  const replies = useMemo(() => rest, [data.messages]);
  const rows = useRowInfos(replies, null);
  const automationName = useAutomationNames(spaceId, data.messages);

  // Kept at the newest reply while the reader is there (replies arriving, pictures loading).
  const scroller = useRef<HTMLDivElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const toBottom = useCallback(() => {
    const el = scroller.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: scrolled again whenever the messages change.
  useLayoutEffect(toBottom, [data.messages, writes.pending, toBottom]);
  useEffect(() => {
    const el = list.current;
    if (!el) return;
    const observer = new ResizeObserver(toBottom);
    observer.observe(el);
    return () => observer.disconnect();
  }, [toBottom]);

  // A reply asked for: older pages until it is there, then shown in the middle and highlighted.
  const { jumped, current } = actions;
  const { loadOlder } = thread;
  useEffect(() => {
    if (!loaded || !target || jumped.get() === target) return;
    if (!data.messages.some((m) => m.id === target)) {
      if (data.hasMore) void loadOlder();
      return;
    }
    const row = scroller.current?.querySelector<HTMLElement>(`article[data-id="${CSS.escape(target)}"]`);
    if (!row) return;
    stick.current = false;
    row.scrollIntoView({ block: "center" });
    jumped.set(target);
    current.set(target);
  }, [loaded, target, data, loadOlder, jumped, current]);

  // Opened to reply: the keyboard goes to the thread's composer (not on a touch screen, where it would open the
  // keyboard over the thread, nor when opened at a reply to read).
  const focused = useRef(false);
  useEffect(() => {
    if (focused.current || !root || target || matchMedia("(hover: none), (max-width: 760px)").matches) return;
    focused.current = true;
    panel.current?.querySelector<HTMLElement>('[role="combobox"]')?.focus();
  }, [root, target]);

  const send = useCallback(
    (content: string, attachments: AttachmentDraft[], alsoInRoom: boolean) => {
      stick.current = true;
      return writes.send(content, attachments, { thread_root_id: rootId, also_in_room: alsoInRoom });
    },
    [writes.send, rootId],
  );

  return (
    <aside ref={panel} className="chat-thread" aria-label={`Thread in #${room.name}`}>
      <header className="chat-thread-head">
        <button type="button" className="chat-thread-back" onClick={onClose}>
          ← <span className="sr-only">Back to </span>#{room.name}
        </button>
        <h2 className="grow">
          Thread <span className="muted small">#{room.name}</span>
        </h2>
        <button type="button" className="icon chat-thread-close" aria-label="Close thread" onClick={onClose}>
          ✕
        </button>
      </header>
      <div
        className="chat-scroll"
        ref={scroller}
        onScroll={(event) => {
          const el = event.currentTarget;
          stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
        }}
      >
        <div className="chat-list" ref={list} role="log" aria-label="Messages in the thread">
          {!loaded ? (
            <Spinner />
          ) : !root ? (
            <ErrorText error={error ?? "This thread could not be loaded."} />
          ) : (
            <RowContext.Provider value={actions}>
              <MessageRow
                message={root}
                reactions={reactionsOf(data, root.id)}
                attachments={attachmentsOf(data, root.id)}
                authorName={root.automation_id ? automationName(root.automation_id) : ws.nameOf(root.author_user_id)}
                staff={!root.automation_id && ws.isStaff(root.author_user_id)}
                automation={root.automation_id ?? null}
                compact={false}
                day={null}
                firstUnread={false}
                highlight={highlight}
              />
              <div className="chat-divider thread-count">
                <span>{root.reply_count === 0 ? "No replies yet" : repliesLabel(root.reply_count)}</span>
              </div>
              {data.hasMore && (
                <div className="chat-older">
                  <button
                    type="button"
                    className="link"
                    {...busyProps(thread.olderBusy)}
                    onClick={() => void loadOlder()}
                  >
                    {thread.olderBusy ? "Loading older replies…" : "Load older replies"}
                  </button>
                </div>
              )}
              <MessageBlocks rows={rows} data={data} automationName={automationName} highlight={highlight} />
              <PendingRows pending={writes.pending} />
              {error && <ErrorText error={error} />}
            </RowContext.Provider>
          )}
        </div>
      </div>
      {ws.can("chat.write") && root ? (
        <Composer
          key={rootId}
          room={room}
          thread={rootId}
          candidates={candidates}
          outsiders={outsiders}
          dropZone={panel}
          onSend={send}
          onEditLast={editLast}
        />
      ) : null}
      {overlays}
    </aside>
  );
}
