/**
 * The rows of a room in memoized blocks of 50 messages, so a live event costs the block it lands in, not the
 * whole history: a room with 1,000 loaded messages compares 20 blocks (pointer checks) and renders one.
 *
 * Blocks are cut from the oldest loaded message and keyed by their first message: an older page of 50 put in
 * front becomes a new first block and leaves the others exactly as they were.
 */
import { memo, useRef } from "react";
import type { Message } from "../../../../src/api-types";
import type { Highlighter } from "../../lib/markdown";
import { useWorkspace } from "../../lib/workspace";
import { automationOf } from "../automations/names";
import { MessageRow } from "./MessageRow";
import { attachmentsOf, PAGE, type RoomData, reactionsOf } from "./room-state";

/** Follow-ups by the same author within this time are drawn without repeating avatar and name. */
const GROUP_MS = 5 * 60_000;

/** What a row shows besides its message; the same object while nothing about the row changes. */
export interface RowInfo {
  message: Message;
  day: string | null;
  firstUnread: boolean;
  compact: boolean;
}

const dayFormat = new Intl.DateTimeFormat(undefined, { weekday: "long", month: "long", day: "numeric" });
const yearFormat = new Intl.DateTimeFormat(undefined, { year: "numeric", month: "long", day: "numeric" });

function dayKey(date: Date): number {
  return date.getFullYear() * 10000 + date.getMonth() * 100 + date.getDate();
}

function dayLabel(date: Date, today: Date): string {
  const key = dayKey(date);
  if (key === dayKey(today)) return "Today";
  const yesterday = new Date(today);
  yesterday.setDate(today.getDate() - 1);
  if (key === dayKey(yesterday)) return "Yesterday";
  return date.getFullYear() === today.getFullYear() ? dayFormat.format(date) : yearFormat.format(date);
}

/**
 * The row infos of `messages`, reusing the previous object of each row whose values did not change (so the
 * blocks' comparisons are pointer checks).
 */
export function useRowInfos(messages: Message[], dividerId: string | null): RowInfo[] {
  const cache = useRef(new Map<string, RowInfo>());
  const memo = useRef<{ messages: Message[]; dividerId: string | null; rows: RowInfo[] } | null>(null);
  if (memo.current && memo.current.messages === messages && memo.current.dividerId === dividerId)
    return memo.current.rows;
  const today = new Date();
  const next = new Map<string, RowInfo>();
  let prev: Message | undefined;
  let prevDay = -1;
  const rows = messages.map((message) => {
    const date = new Date(message.created_at);
    const key = dayKey(date);
    const day = key !== prevDay ? dayLabel(date, today) : null;
    prevDay = key;
    const firstUnread = message.id === dividerId;
    const compact =
      prev !== undefined &&
      prev.author_user_id === message.author_user_id &&
      automationOf(prev) === automationOf(message) &&
      prev.deleted_at === null &&
      date.getTime() - Date.parse(prev.created_at) < GROUP_MS;
    prev = message;
    const old = cache.current.get(message.id);
    const row =
      old && old.message === message && old.day === day && old.firstUnread === firstUnread && old.compact === compact
        ? old
        : { message, day, firstUnread, compact };
    next.set(message.id, row);
    return row;
  });
  cache.current = next;
  memo.current = { messages, dividerId, rows };
  return rows;
}

interface BlockProps {
  rows: RowInfo[];
  data: RoomData;
  nameOf: (userId: string | null) => string;
  isStaff: (userId: string | null) => boolean;
  automationName: (automationId: string) => string;
  highlight: Highlighter;
}

/** Rough heights of rows and dividers, for a block's size before it is first drawn. */
const ROW_PX = 58;
const COMPACT_PX = 26;
const DIVIDER_PX = 34;

function estimate(rows: RowInfo[]): number {
  let px = 0;
  for (const r of rows)
    px += (r.compact ? COMPACT_PX : ROW_PX) + (r.day ? DIVIDER_PX : 0) + (r.firstUnread ? DIVIDER_PX : 0);
  return px;
}

function Block({ rows, data, nameOf, isStaff, automationName, highlight }: BlockProps) {
  // A real element per block: a change inside one lays out that block, not a thousand siblings; blocks off
  // screen are skipped (content-visibility, see chat.css) at the size estimated here until first drawn, then
  // at the size they had.
  return (
    <div className="message-block" style={{ containIntrinsicSize: `auto ${estimate(rows)}px` }}>
      {rows.map((r) => {
        // A message an automation posted has no author: it reads as posted by the automation.
        const automation = automationOf(r.message);
        return (
          <MessageRow
            key={r.message.id}
            message={r.message}
            reactions={reactionsOf(data, r.message.id)}
            attachments={attachmentsOf(data, r.message.id)}
            authorName={automation ? automationName(automation) : nameOf(r.message.author_user_id)}
            staff={!automation && isStaff(r.message.author_user_id)}
            automation={automation}
            compact={r.compact}
            day={r.day}
            firstUnread={r.firstUnread}
            highlight={highlight}
          />
        );
      })}
    </div>
  );
}

/** Equal when every row, and its reactions and attachments, are the very same objects. */
function sameBlock(a: BlockProps, b: BlockProps): boolean {
  if (
    a.rows.length !== b.rows.length ||
    a.nameOf !== b.nameOf ||
    a.isStaff !== b.isStaff ||
    a.automationName !== b.automationName ||
    a.highlight !== b.highlight
  )
    return false;
  for (let i = 0; i < b.rows.length; i++) {
    const row = b.rows[i] as RowInfo;
    if (a.rows[i] !== row) return false;
    const id = row.message.id;
    if (a.data.reactions[id] !== b.data.reactions[id] || a.data.attachments[id] !== b.data.attachments[id])
      return false;
  }
  return true;
}

const MessageBlock = memo(Block, sameBlock);

/** Every loaded row, in blocks; authors named (and staff marked) from the workspace's members. */
export function MessageBlocks({
  rows,
  data,
  automationName,
  highlight,
}: {
  rows: RowInfo[];
  data: RoomData;
  /** The name of the automation that posted a message. */
  automationName: (automationId: string) => string;
  /** Marks mentions in the messages' text. */
  highlight: Highlighter;
}) {
  const { nameOf, isStaff } = useWorkspace();
  const blocks: RowInfo[][] = [];
  for (let i = 0; i < rows.length; i += PAGE) blocks.push(rows.slice(i, i + PAGE));
  return (
    <>
      {blocks.map((block) => (
        <MessageBlock
          key={block[0]?.message.id}
          rows={block}
          data={data}
          nameOf={nameOf}
          isStaff={isStaff}
          automationName={automationName}
          highlight={highlight}
        />
      ))}
    </>
  );
}
