/**
 * The newest page of each room, serialized, kept until anything changes in its space. Opening a room asks for
 * exactly this page, and serializing it (its shape is fixed by the API) costs more than everything else the
 * request does. Every chat write publishes an event once committed, and any chat event of a space drops that
 * space's pages; reads happen in one synchronous step, so a stale page can never be stored after a change.
 */
import type { EventBus } from "../events/events.bus";

const MAX_PAGES = 2000;

/** Serialized newest pages by room and limit. */
export class LatestPages {
  private readonly pages = new Map<string, { spaceId: string; json: string }>();

  constructor(events: EventBus) {
    events.subscribe((event) => {
      if (event.type.startsWith("chat.")) this.forgetSpace(event.space_id);
    });
  }

  /** The page as JSON: from the cache, or made by `make` and kept. Only the newest page (no `before`) is kept. */
  json(spaceId: string, roomId: string, limit: number, before: string | undefined, make: () => unknown): string {
    if (before !== undefined) return JSON.stringify(make());
    const key = `${roomId}:${limit}`;
    const hit = this.pages.get(key);
    if (hit && hit.spaceId === spaceId) return hit.json;
    const json = JSON.stringify(make());
    if (this.pages.size >= MAX_PAGES) this.pages.delete(this.pages.keys().next().value as string);
    this.pages.set(key, { spaceId, json });
    return json;
  }

  private forgetSpace(spaceId: string): void {
    for (const [key, page] of this.pages) if (page.spaceId === spaceId) this.pages.delete(key);
  }
}
