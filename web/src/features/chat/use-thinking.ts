/**
 * Staff replies under way in a space's rooms, shown as "Ada is thinking…": those already running when the chat
 * opens (or while the socket was away) from the activity log, then the `ai.reply.*` events; the staff member's
 * message in the room ends its thinking.
 */
import { useCallback, useEffect, useState } from "react";
import type { Message, ReplyEvent } from "../../../../src/api-types";
import { loadFresh, useLiveEvents } from "../../lib/events";
import { listActivity } from "../staff/api";
import type { Thinking } from "./chat-types";

/** The replies under way, by room id. */
export function useThinking(base: string, spaceId: string): Record<string, Thinking[]> {
  const [thinking, setThinking] = useState<Record<string, Thinking[]>>({});

  const loadThinking = useCallback(async () => {
    const activity = await loadFresh(() => listActivity(base, { limit: 50 }));
    const next: Record<string, Thinking[]> = {};
    for (const a of activity) {
      if (a.space_id !== spaceId || !a.chat_room_id || (a.status !== "running" && a.status !== "queued")) continue;
      next[a.chat_room_id] = [...(next[a.chat_room_id] ?? []), { jobId: a.job_id, staffUserId: a.staff_user_id }];
    }
    setThinking(next);
  }, [base, spaceId]);
  useEffect(() => {
    // Only a hint for replies started before the page opened; live events carry the rest.
    loadThinking().catch(() => {});
  }, [loadThinking]);

  useLiveEvents((event) => {
    if (event.type === "resync") {
      loadThinking().catch(() => {});
      return;
    }
    if (event.space_id !== spaceId) return;
    switch (event.type) {
      case "chat.message.created": {
        const { message } = event.payload as { message: Message };
        const room = message.chat_room_id;
        // The staff member answered: its reply is the end of its thinking.
        setThinking((t) => {
          const list = t[room];
          if (!list?.some((x) => x.staffUserId === message.author_user_id)) return t;
          return { ...t, [room]: list.filter((x) => x.staffUserId !== message.author_user_id) };
        });
        break;
      }
      case "ai.reply.started": {
        const reply = event.payload as ReplyEvent;
        const room = reply.chat_room_id;
        if (!room) break;
        setThinking((t) => {
          const list = t[room] ?? [];
          if (list.some((x) => x.jobId === reply.job_id)) return t;
          return { ...t, [room]: [...list, { jobId: reply.job_id, staffUserId: reply.staff_user_id }] };
        });
        break;
      }
      case "ai.reply.finished":
      case "ai.reply.failed": {
        const reply = event.payload as ReplyEvent;
        const room = reply.chat_room_id;
        if (!room) break;
        setThinking((t) => {
          const list = t[room];
          if (!list?.some((x) => x.jobId === reply.job_id)) return t;
          return { ...t, [room]: list.filter((x) => x.jobId !== reply.job_id) };
        });
        break;
      }
    }
  });

  return thinking;
}
