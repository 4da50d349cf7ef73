/**
 * Search across what a member can see (contract §10): chat messages, tasks, their messages and file nodes.
 *
 * The index is kept by handlers of the domain events, inside the transaction of each write: an edit or a
 * deletion is in the index (or gone from it) when its write commits, and a crash loses nothing. Three things
 * follow their write instead, each durable by its own means:
 * - a new chat message is indexed after its post commits, with the others posted meanwhile, in one transaction
 *   (`flush`): FTS5 writes a segment per transaction, and a post that indexed itself cost 1.8 times the CPU of
 *   one that did not (docs/benchmarks.md). A search indexes whatever is pending before it looks, so the next
 *   search finds every message posted; a stop indexes them too; after a crash, the start indexes the messages
 *   posted since the last batch that committed (its time in `search_state`, less `CATCH_UP_MARGIN_MS`). On
 *   PostgreSQL (`inline`) a new message is indexed in its post's transaction instead, as every other write is:
 *   several nodes then find it through any of them at once, and no node's crash leaves it to another's start;
 * - a deleted room's messages leave every search at once (the room is recorded in the deletion's transaction)
 *   and the index in batches beside the other work, as chat removes the messages themselves;
 * - a text file's text is indexed when its editing settles, not at every keystroke: the first change after a
 *   quiet spell at once (a REST write shows in the next search), the changes that follow it once the file has
 *   been quiet for `SETTLE_MS` (or every `MAX_WAIT_MS` while someone keeps typing). A stop in between leaves
 *   the text's checksum different from the one indexed, and the next start indexes it (`start`).
 */
import type { Access } from "../../core/access";
import type { OrgActor } from "../../core/actor";
import type { EventBus, Unit } from "../../core/events";
import type { UnitOfWork } from "../../db/unit";
import { atMostEvery, type Logger } from "../../lib/log";
import type { MessageOut } from "../chat/chat.schemas";
import type { NodeOut } from "../files/files.schemas";
import type { SpacesService } from "../spaces/spaces.service";
import type { TaskMessageOut, TaskOut } from "../tasks/tasks.schemas";
import { excerpt, parseQuery, termsOf } from "./search.query";
import { type DocIn, type Hit, KINDS, type Kind, type Rarity, type Scope, type SearchStore } from "./search.store";

/** A file is quiet this long after its last change: then its text is indexed. */
export const SETTLE_MS = 2000;
/** While someone keeps typing, the text is indexed at least this often. */
const MAX_WAIT_MS = 15_000;
/** Matches looked at per search, the newest first: ranking more costs more than it tells. */
const WINDOW = 500;
/** Matches of common words only, looked at beyond the page asked for: room for a few that are no longer live. */
const RECENT_SLACK = 10;
/**
 * A word held by at least this many items counts for matching but not for the score: FTS5 reads every item
 * holding a word to weigh it (20-40 ms for a word in half of a million items), and a word that common says
 * little about which match is best.
 */
const COMMON = 2000;
/** Words are counted up to this many items: enough to put the rarest first (`search`). */
const COUNT_CAP = 100_000;
/** How long a word's count is trusted. */
const COUNT_TTL_MS = 5 * 60_000;
/** Docs looked at per step of a pass removing deleted rooms' messages (a few milliseconds each). */
const PURGE_SPAN = 20_000;
/** Items two writers may index out of their creation order, in time: `before` looks this far past its bound. */
const ORDER_MARGIN_MS = 60_000;
/** New chat messages wait at most this long to be indexed, when no search or batch comes first. */
const FLUSH_MS = 1000;
/** ... or until this many are waiting: large enough that a batch costs little per message, small enough to wait. */
const FLUSH_BATCH = 2000;
/**
 * A post is stamped with the clock (or later, in a burst): after a crash, the messages created since the last batch
 * that committed are indexed, and those this much older too, in case the clock was set back meanwhile.
 */
const CATCH_UP_MARGIN_MS = 10_000;

/** What a search asks. */
export interface SearchQuery {
  q: string;
  types?: Kind[] | undefined;
  spaceId?: string | undefined;
  limit: number;
  /** Epoch ms, exclusive; none: everything. */
  before?: number | undefined;
}

/** A result, before presentation. */
export interface Found {
  kind: Kind;
  id: string;
  spaceId: string;
  title: string;
  /** The excerpt, matches between the mark characters of `search.query.ts`. */
  marked: string;
  createdAt: number;
  parentId: string | null;
}

/** Text files waiting for their editing to settle. */
interface Settling {
  /** When the text was last indexed. */
  indexedAt: number;
  /** The first change not yet indexed, while one waits. */
  waitingSince: number | null;
  timer: ReturnType<typeof setTimeout> | null;
}

/** Search and the index it reads. */
export class SearchService {
  private readonly settling = new Map<string, Settling>();
  private readonly counts = new Map<string, { n: number; at: number }>();
  private purging = false;
  private stopped = false;
  /** New chat messages committed and not indexed yet, in commit order. */
  private pending: string[] = [];
  /** Task messages (comments) posted, waiting for the same batch. */
  private pendingTaskMessages: string[] = [];
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  /** A batch that keeps failing (a full disk: it is tried again every second) is logged once a minute. */
  private readonly flushFailed = atMostEvery(60_000);

  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: SearchStore,
    private readonly spaces: SpacesService,
    private readonly access: Access,
    private readonly log?: Logger,
    /** New messages indexed in their posts' transactions, not in batches after them (PostgreSQL). */
    private readonly inline = false,
  ) {}

  /** Keeps the index: each write's event is indexed in that write's transaction; a new message, in a batch after. */
  listen(events: EventBus): void {
    if (this.inline) {
      // From the event: one row's statement, not the batch's (whose fixed cost is paid once per batch).
      events.onWrite("chat.message.created", ({ payload: { message } }) => {
        if (message.content !== "") this.store.insert(messageDoc(message));
      });
      events.onWrite("task.message.created", ({ payload, space_id }) => {
        if (payload.content !== "") this.store.insert(taskMessageDoc(payload, space_id));
      });
    } else {
      events.subscribe((event) => {
        if (event.type === "chat.message.created") this.posted(this.pending, event.payload.message.id);
        // A task's comment too: indexing it in its post's transaction halved the post's throughput (an FTS5
        // segment per transaction).
        else if (event.type === "task.message.created") this.posted(this.pendingTaskMessages, event.payload.id);
      });
    }
    events.onWrite("chat.message.updated", ({ payload }) => this.indexMessage(payload));
    events.onWrite("chat.message.deleted", ({ payload }) => this.store.remove(payload.id));
    events.onWrite("chat.room.deleted", ({ payload }, unit) => {
      this.store.purgeRoom(payload.id);
      unit.afterCommit(() => void this.purgeRooms());
    });
    events.onWrite("task.created", ({ payload }) => this.store.insert(taskDoc(payload)));
    events.onWrite("task.updated", ({ payload }) => this.store.upsert(taskDoc(payload)));
    events.onWrite("task.deleted", ({ payload }) => {
      this.store.remove(payload.id);
      this.store.removeTaskMessages(payload.id);
    });
    events.onWrite("file.created", ({ payload }, unit) => {
      this.store.insert(fileDoc(payload));
      // A text file's document is stored after its node (in this unit): its text is read once it is there.
      if (payload.editable) unit.afterCommit(() => this.indexTextNow(payload.id));
    });
    events.onWrite("file.updated", ({ payload, editing }, unit) => this.fileChanged(payload, unit, editing === true));
    events.onWrite("file.deleted", ({ payload }) => this.store.removeSubtree(payload.id));
  }

  /**
   * At start: messages posted since the last batch that committed (a crash lost the batch waiting), texts whose
   * editing a stop cut short are indexed, and rooms deleted before it purged.
   */
  start(): void {
    this.stopped = false;
    if (!this.inline) this.catchUp();
    for (const id of this.store.staleTexts()) this.indexTextNow(id);
    void this.purgeRooms();
  }

  /** The messages posted since the last batch that committed, indexed. */
  private catchUp(): void {
    const at = Date.now();
    const since = this.store.messagesIndexedUntil() - CATCH_UP_MARGIN_MS;
    const missed = this.store.messagesSince(since);
    const missedTask = this.store.messagesSince(since, "task");
    // One transaction: the time recorded must not pass messages of a batch that has not committed.
    this.uow.write(() => {
      for (let i = 0; i < missedTask.length; i += FLUSH_BATCH)
        this.store.indexTaskMessages(missedTask.slice(i, i + FLUSH_BATCH));
      for (let i = 0; i < missed.length; i += FLUSH_BATCH)
        this.store.indexMessages(missed.slice(i, i + FLUSH_BATCH), at);
    });
  }

  /** At stop: the messages waiting and the texts still settling are indexed now. */
  stop(): void {
    this.stopped = true;
    this.flush();
    for (const [id, state] of this.settling) {
      if (state.timer === null) continue;
      clearTimeout(state.timer);
      this.indexTextNow(id);
    }
    this.settling.clear();
  }

  /**
   * The best `limit` matches the actor may see: every word of `q` whole (case and accents ignored) in a message,
   * a task's title or description, a task message, or a file's name or text; or every word a part of a file's
   * name. Files need `files.read`, as their routes do.
   */
  search(actor: OrgActor, query: SearchQuery): Found[] {
    // Every message posted so far is in the index before it is read.
    this.flush();
    const parsed = parseQuery(query.q);
    let kinds: readonly Kind[] = query.types && query.types.length > 0 ? query.types : KINDS;
    if (!actor.permissions.has("files.read")) kinds = kinds.filter((k) => k !== "file");
    const spaceIds =
      query.spaceId !== undefined
        ? [this.access.space(actor, query.spaceId).id]
        : this.spaces.list(actor).map((s) => s.id);
    if (kinds.length === 0 || spaceIds.length === 0) return [];
    const before = query.before ?? Number.MAX_SAFE_INTEGER;
    const spaces = JSON.stringify(spaceIds);
    const scope: Omit<Scope, "window"> = {
      spaces,
      kinds: JSON.stringify(kinds),
      before,
      // Past the newest item of the spaces searched: nothing newer is theirs.
      beforeDoc: Math.min(
        this.store.spacesBound(spaces),
        before >= Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : this.store.docBound(before + ORDER_MARGIN_MS),
      ),
    };

    const words = parsed.wholeWords;
    // The rarest word first: FTS5 walks the first word's items and looks each up in the others' lists.
    const counts = new Map(words.map((w) => [w, this.countOf(w)]));
    const ordered = [...words].sort((a, b) => (counts.get(a) ?? 0) - (counts.get(b) ?? 0));
    const distinctive = ordered.filter((w) => (counts.get(w) ?? 0) < COMMON);
    // Matches of common words only are ranked by time alone: the newest few are the best, and reading the words'
    // lists down to the whole window (three common words intersected: 10-20 ms) would change nothing. Should
    // too few of those few still be there (deletions leave the index at once: rarely), the window is read.
    const recent = Math.min(WINDOW, query.limit + RECENT_SLACK);
    const windows = words.length > 0 && distinctive.length === 0 ? [recent, WINDOW] : [WINDOW];
    let best: Hit[] = [];
    for (const window of windows) {
      const hits = new Map<number, Hit>();
      let more = false;
      if (words.length > 0) {
        const rarity: Rarity =
          distinctive.length === words.length ? "distinctive" : distinctive.length === 0 ? "common" : "mixed";
        const found = this.store.words({ ...scope, window }, ordered, rarity);
        more = found.length === window;
        if (rarity === "mixed" && found.length > 0) this.score(found, distinctive);
        for (const hit of found) hits.set(hit.doc, hit);
      }
      if (parsed.namePartsMatch !== null && kinds.includes("file")) {
        for (const hit of this.store.nameParts({ ...scope, window: WINDOW }, parsed.words)) {
          const found = hits.get(hit.doc);
          if (!found) hits.set(hit.doc, hit);
          else found.score = Math.min(found.score, hit.score);
        }
      }
      const ranked = [...hits.values()].sort((a, b) => a.score - b.score || b.createdAt - a.createdAt || b.doc - a.doc);
      // Only items still there are shown, whatever the index holds.
      best = [];
      for (const hit of ranked) {
        if (best.length >= query.limit) break;
        if (this.store.live(hit)) best.push(hit);
      }
      if (best.length >= query.limit || !more) break;
    }
    const terms = termsOf(words);
    return best.map((hit) => this.found(hit, terms, words));
  }

  /** Scores matches by BM25 of their distinctive words; matches of common words only keep their order. */
  private score(hits: Hit[], distinctive: string[]): void {
    const docs = hits.map((h) => h.doc);
    const scores = this.store.ranks(distinctive, Math.min(...docs), Math.max(...docs));
    for (const hit of hits) hit.score = scores.get(hit.doc) ?? 0;
  }

  /** How many items hold a word (up to `COUNT_CAP`), remembered a while. */
  private countOf(word: string): number {
    const key = word.toLowerCase();
    const now = Date.now();
    const known = this.counts.get(key);
    if (known && now - known.at < COUNT_TTL_MS) return known.n;
    const n = this.store.count(word, COUNT_CAP);
    if (this.counts.size >= 10_000) this.counts.delete(this.counts.keys().next().value as string);
    this.counts.set(key, { n, at: now });
    return n;
  }

  /**
   * A hit as a result: its title, and its excerpt from the title (or name) when a word is there, else from its
   * body; a found part of a file's name, the name as FTS5 marked it.
   */
  private found(hit: Hit, terms: ReadonlySet<string>, words: readonly string[]): Found {
    let title = hit.title;
    if (hit.kind === "message") title = (hit.parentId && this.store.room(hit.parentId)) || "";
    else if (hit.kind === "task_message") title = (hit.parentId && this.store.title(hit.parentId)) || "";
    else if (hit.kind === "file") title = this.store.path(hit.itemId);
    let marked = hit.marked;
    if (marked === null && words.length > 0) {
      const text = this.store.text(hit.doc);
      marked =
        (text && (excerpt(text.title, terms) ?? (text.body === null ? null : excerpt(text.body, terms)))) ??
        this.store.snippet(hit.doc, words);
    }
    return {
      kind: hit.kind,
      id: hit.itemId,
      spaceId: hit.spaceId,
      title,
      marked: marked ?? "",
      createdAt: hit.createdAt,
      parentId: hit.parentId,
    };
  }

  // Keeping the index

  /** A message (chat or task) was posted (its write committed): indexed with the next batch. */
  private posted(pending: string[], id: string): void {
    pending.push(id);
    if (this.pending.length + this.pendingTaskMessages.length >= FLUSH_BATCH) {
      // After the rest of this commit's events: the post's answer does not wait for the batch.
      if (this.flushTimer) clearTimeout(this.flushTimer);
      this.flushTimer = setTimeout(() => this.flush(), 0);
    } else if (!this.flushTimer) {
      this.flushTimer = setTimeout(() => this.flush(), FLUSH_MS);
    }
    this.flushTimer.unref?.();
  }

  /**
   * Indexes the messages waiting, in one transaction. A failure keeps them waiting (the next search or batch
   * tries again; a crash meanwhile leaves them to the catch-up of the next start).
   */
  flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (this.pending.length + this.pendingTaskMessages.length === 0) return;
    const ids = this.pending;
    const taskIds = this.pendingTaskMessages;
    this.pending = [];
    this.pendingTaskMessages = [];
    try {
      // Every message stored until now is in this batch or an earlier one; any stored later is stamped `at` or later.
      const at = Date.now();
      this.uow.write(() => {
        this.store.indexTaskMessages(taskIds);
        this.store.indexMessages(ids, at);
      });
    } catch (error) {
      this.pending = ids.concat(this.pending);
      this.pendingTaskMessages = taskIds.concat(this.pendingTaskMessages);
      const waiting = this.pending.length;
      this.flushFailed((suppressed) =>
        this.log?.error({ err: error, waiting, suppressed }, "indexing new messages for search failed"),
      );
      if (!this.stopped) this.flushTimer = setTimeout(() => this.flush(), FLUSH_MS);
    }
  }

  private indexMessage(message: MessageOut): void {
    if (message.deleted_at !== null || message.content === "") this.store.remove(message.id);
    else this.store.upsert(messageDoc(message));
  }

  /** A file renamed or moved (its name is indexed now), or its content changed (its text, once settled). */
  private fileChanged(node: NodeOut, unit: Unit, editing: boolean): void {
    const indexed = this.store.indexed(node.id);
    if (!indexed) return;
    if (indexed.title !== node.name) this.store.retitle(node.id, node.name);
    if (!node.editable || indexed.version === node.checksum_sha256) return;
    this.textChanged(node.id, unit, editing);
  }

  /**
   * A text file's text changed (in `unit`): indexed now when the file was quiet, otherwise once it settles.
   * Every path by which a text changes comes here through `file.updated`: typing, REST writes, accepted
   * proposals, restored versions. A text written while people go on typing (`editing`) waits for the one
   * written when they stop, or `MAX_WAIT_MS`: indexing a long text takes tens of milliseconds, and typing in it
   * should not wait for that every few seconds.
   */
  private textChanged(nodeId: string, unit: Unit, editing: boolean): void {
    if (editing) {
      unit.afterCommit(() => this.settleLater(nodeId, MAX_WAIT_MS));
      return;
    }
    const now = Date.now();
    const state = this.settling.get(nodeId);
    if (!state || (state.timer === null && now - state.indexedAt >= SETTLE_MS)) {
      this.store.indexFileText(nodeId);
      unit.afterCommit(() => this.indexed(nodeId, now));
      return;
    }
    unit.afterCommit(() => this.settleLater(nodeId));
  }

  private indexed(nodeId: string, at: number): void {
    const state = this.settling.get(nodeId);
    if (state?.timer) clearTimeout(state.timer);
    this.settling.set(nodeId, { indexedAt: at, waitingSince: null, timer: null });
    if (this.settling.size > 10_000) this.forgetQuiet(at);
  }

  /** Files quiet long enough need no memory of their last indexing. */
  private forgetQuiet(now: number): void {
    for (const [id, state] of this.settling) {
      if (state.timer === null && now - state.indexedAt >= SETTLE_MS) this.settling.delete(id);
    }
  }

  private settleLater(nodeId: string, quietMs = SETTLE_MS): void {
    if (this.stopped) return;
    const now = Date.now();
    const state = this.settling.get(nodeId) ?? { indexedAt: 0, waitingSince: null, timer: null };
    if (state.timer) clearTimeout(state.timer);
    state.waitingSince ??= now;
    const wait = Math.max(0, Math.min(quietMs, state.waitingSince + MAX_WAIT_MS - now));
    state.timer = setTimeout(() => this.indexTextNow(nodeId), wait);
    state.timer.unref?.();
    this.settling.set(nodeId, state);
  }

  /** Indexes a file's text in a write of its own. */
  private indexTextNow(nodeId: string): void {
    try {
      this.uow.write(() => this.store.indexFileText(nodeId));
      this.indexed(nodeId, Date.now());
    } catch (error) {
      // The checksum still differs: the next start indexes it.
      this.log?.error({ err: error, nodeId }, "indexing a file's text for search failed");
    }
  }

  /**
   * Removes the indexed messages of deleted rooms: one pass over the index, a span of docs per turn of the event
   * loop, for every room recorded when it starts (a room deleted meanwhile waits for the next pass). A room's
   * messages were all indexed before it was deleted, so the pass ends at the last doc it finds at start.
   */
  async purgeRooms(): Promise<void> {
    if (this.purging) return;
    this.purging = true;
    try {
      for (let rooms = this.store.roomsToPurge(); rooms.length > 0; rooms = this.store.roomsToPurge()) {
        const last = this.store.lastDoc();
        for (let from = 0; from < last; from += PURGE_SPAN) {
          this.uow.write(() => this.store.purgeRoomsIn(from, from + PURGE_SPAN));
          await Bun.sleep(0);
        }
        this.uow.write(() => {
          for (const room of rooms) this.store.roomPurged(room);
        });
      }
    } catch (error) {
      this.log?.error({ err: error }, "removing a deleted room's messages from search failed; trying again");
      setTimeout(() => void this.purgeRooms(), 1000).unref?.();
    } finally {
      this.purging = false;
    }
  }
}

/** A chat message as the index holds it. */
function messageDoc(message: MessageOut): DocIn {
  return {
    kind: "message",
    itemId: message.id,
    spaceId: message.space_id,
    parentId: message.chat_room_id,
    createdAt: Date.parse(message.created_at),
    title: "",
    body: message.content,
  };
}

/** A task message (a comment) as the index holds it. */
function taskMessageDoc(message: TaskMessageOut, spaceId: string): DocIn {
  return {
    kind: "task_message",
    itemId: message.id,
    spaceId,
    parentId: message.task_id,
    createdAt: Date.parse(message.created_at),
    title: "",
    body: message.content,
  };
}

function taskDoc(task: TaskOut) {
  return {
    kind: "task" as const,
    itemId: task.id,
    spaceId: task.space_id,
    parentId: null,
    createdAt: Date.parse(task.created_at),
    title: task.title,
    body: task.description,
  };
}

function fileDoc(node: NodeOut) {
  return {
    kind: "file" as const,
    itemId: node.id,
    spaceId: node.space_id,
    parentId: null,
    createdAt: Date.parse(node.created_at),
    title: node.name,
    body: "",
  };
}
