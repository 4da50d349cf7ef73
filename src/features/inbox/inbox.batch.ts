/**
 * The inbox items of chat posts, written after their posts commit, in batches: one transaction writes the items
 * of every post committed meanwhile. An item written in its post's transaction dirtied a page of each of its
 * seven B-trees there, none of which the other posts of that commit touch (9.4 WAL frames an item); a batch shares
 * those pages among its items (docs/benchmarks.md).
 *
 * What the person sees does not change: every read of an inbox (`GET /me/inbox`, `/me/unread`, reading a room,
 * marking items read, the email sweep) first writes the batch waiting, so an item is there for whoever reads once
 * its post was answered; only its `inbox.item` on the sockets comes later: `SOON_MS` after a quiet spell, at
 * most `FLUSH_MS` while posts keep coming. A post deleted before its batch runs, or in a room deleted meanwhile,
 * makes no item. A stop writes the batch waiting; after a crash, the start writes the items of the posts created
 * since the last batch that committed (its time in `inbox_state`, less `CATCH_UP_MARGIN_MS`), read as they are
 * then, skipping anyone who has an item about the post already.
 */
import type { Unit } from "../../core/events";
import type { UnitOfWork } from "../../db/unit";
import { atMostEvery, type Logger } from "../../lib/log";
import type { InboxStore, PostRow } from "./inbox.store";

/**
 * While posts keep coming, a batch at most this often (or at `FLUSH_BATCH` waiting): a batch costs far more per
 * item when small (the chat post into a room of 200 where one post in ten names someone: 7% more CPU a post with
 * a batch every 100 ms than every second, docs/benchmarks.md).
 */
const FLUSH_MS = 1000;
/** The first post after a second without a batch waits only this long: a lone mention is not held back. */
const SOON_MS = 20;
/** ... or until this many posts wait. */
const FLUSH_BATCH = 1000;
/**
 * A post is stamped with the clock (or later, in a burst): after a crash, the posts created since the last batch
 * that committed are looked at again, and those this much older too, in case the clock was set back meanwhile.
 */
const CATCH_UP_MARGIN_MS = 10_000;
/**
 * While posts that make no item keep coming, the time recorded moves on at least this often: a start after a crash
 * walks back through every post stored since it.
 */
const RECORD_MS = 10_000;

/** Writes the items of one post in `unit`; `once`: to no one who has an item about it already (a catch-up). */
export type PostItemsWriter = (post: PostRow, unit: Unit, once: boolean) => void;

/** The posts whose items wait for the next batch. */
export class PostItems {
  private pending: PostRow[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private recordTimer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  /** When the last batch ran (`performance.now()`). */
  private flushedAt = Number.NEGATIVE_INFINITY;
  private writer: PostItemsWriter = () => undefined;
  /** A batch that keeps failing (a full disk: it is tried again every second) is logged once a minute. */
  private readonly flushFailed = atMostEvery(60_000);
  private readonly recordFailed = atMostEvery(60_000);

  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: InboxStore,
    private readonly log?: Logger,
  ) {}

  /** Who makes a post's items (the sources, which know who a post names). */
  writeWith(writer: PostItemsWriter): void {
    this.writer = writer;
  }

  /** A post that may make items has committed (as its event tells it): its items are written with the next batch. */
  posted(post: PostRow): void {
    // After a stop the next start catches up with it.
    if (this.stopped) return;
    this.pending.push(post);
    // A full batch goes after the rest of this commit's events: the post's answer does not wait for it.
    if (this.pending.length >= FLUSH_BATCH) this.flushIn(0);
    else if (!this.timer) this.flushIn(Math.max(SOON_MS, this.flushedAt + FLUSH_MS - performance.now()));
  }

  /** A post that makes no item has committed: the time recorded moves past it within `RECORD_MS`. */
  passed(): void {
    if (this.recordTimer || this.stopped) return;
    this.recordTimer = setTimeout(() => {
      this.recordTimer = null;
      // Posts waiting: their batch records the time.
      if (this.pending.length === 0) this.record();
    }, RECORD_MS);
    this.recordTimer.unref?.();
  }

  /** Records that every post stored until now has its items (none waits). */
  private record(): void {
    if (this.uow.writing) return;
    try {
      const at = Date.now();
      this.uow.write(() => this.store.postsWritten(at));
    } catch (error) {
      this.recordFailed((suppressed) =>
        this.log?.error(
          { err: error, suppressed },
          "recording how far the inbox items of chat posts are written failed",
        ),
      );
    }
  }

  /** A post deleted, or a room deleted with its posts (the deletion committed): what of it waits makes no item. */
  gone(what: { message: string } | { room: string }): void {
    if (this.pending.length === 0) return;
    this.pending =
      "message" in what
        ? this.pending.filter((post) => post.id !== what.message)
        : this.pending.filter((post) => post.roomId !== what.room);
  }

  private flushIn(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), ms);
    this.timer.unref?.();
  }

  /**
   * Writes the items of the posts waiting, in one transaction. A failure keeps them waiting (the next read or
   * batch tries again; a crash meanwhile leaves them to the catch-up of the next start). Inside a write (none
   * reads an inbox there today) it leaves them to their timer: that write could still roll back.
   */
  flush(): void {
    if (this.uow.writing) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0) return;
    const posts = this.pending;
    this.pending = [];
    this.flushedAt = performance.now();
    try {
      // Every post stored until now is in this batch or an earlier one; any stored later is stamped `at` or later.
      const at = Date.now();
      this.uow.write((unit) => {
        for (const post of posts) this.writer(post, unit, false);
        this.store.postsWritten(at);
      });
    } catch (error) {
      this.pending = posts.concat(this.pending);
      const waiting = this.pending.length;
      this.flushFailed((suppressed) =>
        this.log?.error({ err: error, waiting, suppressed }, "writing the inbox items of chat posts failed"),
      );
      if (!this.stopped) this.flushIn(FLUSH_MS);
    }
  }

  /** At start: the items of the posts a crash left waiting, once each. */
  start(): void {
    this.stopped = false;
    const at = Date.now();
    const ids = this.store.postsSince(this.store.postsWrittenUntil() - CATCH_UP_MARGIN_MS);
    // One transaction: the time recorded must not pass posts whose items have not committed.
    this.uow.write((unit) => {
      for (let i = 0; i < ids.length; i += FLUSH_BATCH) {
        for (const post of this.store.posts(ids.slice(i, i + FLUSH_BATCH))) this.writer(post, unit, true);
      }
      this.store.postsWritten(at);
    });
  }

  /** At stop: the items of the posts waiting are written now (and the time, when none waited). */
  stop(): void {
    if (this.pending.length > 0) this.flush();
    else this.record();
    this.stopped = true;
    if (this.recordTimer) clearTimeout(this.recordTimer);
    this.recordTimer = null;
  }
}
