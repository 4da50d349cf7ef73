/**
 * What heavy reads derive from a space's rows (the newest page of a chat room and the file tree, serialized;
 * the paths of a space's files), kept until an event of their kind happens in their space. Serializing those
 * answers costs more than everything else their request does. Every write publishes its event once committed,
 * and a read and its caching happen in one synchronous step, so a stale value can never be stored after a
 * change.
 */

import type { EventBus } from "../../core/events";
import { JSON_TYPE } from "../../http/base";

/** Values by space and key, dropped by the space's events whose type starts with `prefix`. */
export class SpaceCache<T> {
  private readonly entries = new Map<string, { spaceId: string; value: T }>();

  constructor(
    events: EventBus,
    prefix: string,
    private readonly maxEntries = 2000,
  ) {
    events.subscribe((event) => {
      // An account deleted: rows of any number of spaces lost their author.
      if (event.type === "user.deleted") this.entries.clear();
      // A person's own event (`chat.read`) changes no shared row.
      else if (event.to !== undefined) return;
      else if (event.type.startsWith(prefix)) this.forgetSpace(event.space_id);
    }, "everywhere");
  }

  /** The value of `key` in the space: kept, or made by `make` and kept. */
  get(spaceId: string, key: string, make: () => T): T {
    const id = `${spaceId}:${key}`;
    const hit = this.entries.get(id);
    if (hit) return hit.value;
    const value = make();
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(id, { spaceId, value });
    return value;
  }

  private forgetSpace(spaceId: string): void {
    for (const [id, entry] of this.entries) if (entry.spaceId === spaceId) this.entries.delete(id);
  }
}

/** JSON strings by space and key: the serialized answers of heavy reads. */
export class SpaceJsonCache extends SpaceCache<string> {
  /** The answer as JSON: kept, or made by `make` and kept. */
  json(spaceId: string, key: string, make: () => unknown): string {
    return this.get(spaceId, key, () => JSON.stringify(make()));
  }
}

/** Sends already serialized JSON: a string with its content type, which Elysia answers as is. */
export function sendJson(set: { headers: Record<string, string | number> }, json: string): string {
  set.headers["content-type"] = JSON_TYPE;
  return json;
}
