/**
 * The rooms of every space the user sees, for the palette to jump to. No route lists them all, so each space's
 * list is asked for when the palette opens (as the approvals count asks each space); what the last opening
 * found shows at once meanwhile.
 */
import { useEffect, useState } from "react";
import type { ChatRoom, Space } from "../../../../src/api-types";
import { listRooms } from "../chat/api";

let remembered = new Map<string, readonly ChatRoom[]>();

/** Rooms by space id; a space whose list could not be read has none. */
export function useAllRooms(base: string, spaces: readonly Space[]): ReadonlyMap<string, readonly ChatRoom[]> {
  const [rooms, setRooms] = useState(remembered);
  const ids = spaces.map((s) => s.id).join(",");
  // biome-ignore lint/correctness/useExhaustiveDependencies: asked again per set of spaces, not per rename.
  useEffect(() => {
    let stale = false;
    void Promise.all(
      spaces.map(async (space) => [space.id, await listRooms(base, space.id).catch(() => [])] as const),
    ).then((lists) => {
      remembered = new Map(lists);
      if (!stale) setRooms(remembered);
    });
    return () => {
      stale = true;
    };
  }, [base, ids]);
  return rooms;
}
