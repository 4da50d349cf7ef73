/**
 * The names of a space's automations, for chat: a message an automation posts has no author (`author_user_id`
 * null) and names the automation in `automation_id` instead, so it reads as posted by the automation rather than
 * by a former member. The space's automations are asked for only once such a message is shown, and kept by
 * `automation.updated` / `automation.deleted`.
 */
import { useCallback, useEffect, useState } from "react";
import type { Message } from "../../../../src/api-types";
import { useLiveEvents } from "../../lib/events";
import { useWorkspace } from "../../lib/workspace";
import { listAutomations } from "./api";

/** What a message's author reads as while the names load, or when the automations cannot be read. */
export const AUTOMATION = "Automation";
/** What a message of an automation deleted since reads as. */
export const DELETED_AUTOMATION = "Deleted automation";

/** The automation that posted `message`, or null for a message of a person or staff member. */
export function automationOf(message: Message): string | null {
  return message.automation_id ?? null;
}

/** A function naming the automations of `spaceId` that posted any of `messages`. */
export function useAutomationNames(spaceId: string, messages: readonly Message[]): (id: string) => string {
  const ws = useWorkspace();
  const needed = messages.some((m) => automationOf(m) !== null);
  // null: not asked (or refused); a map once the list came.
  const [names, setNames] = useState<Map<string, string> | null>(null);

  const load = useCallback(async () => {
    try {
      const list = await listAutomations(ws.base, spaceId);
      setNames(new Map(list.map((a) => [a.id, a.name])));
    } catch {
      setNames(null);
    }
  }, [ws.base, spaceId]);

  useEffect(() => {
    setNames(null);
    if (needed) void load();
  }, [needed, load]);

  useLiveEvents((event) => {
    if (event.type === "resync" && needed) void load();
    if (event.space_id !== spaceId || !names) return;
    if (event.type === "automation.updated") {
      const { id, name } = event.payload as { id: string; name: string };
      if (names.get(id) !== name) setNames(new Map(names).set(id, name));
    } else if (event.type === "automation.deleted") {
      const next = new Map(names);
      if (next.delete((event.payload as { id: string }).id)) setNames(next);
    }
  });

  return useCallback((id: string) => (names ? (names.get(id) ?? DELETED_AUTOMATION) : AUTOMATION), [names]);
}
