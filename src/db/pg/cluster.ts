/**
 * Several nodes on one PostgreSQL database hear what each other wrote (contract §9). A write records, in its
 * own transaction, what other nodes must know (its domain events, access changes, a document's update) as rows
 * of `cluster_events`, and `pg_notify` tells them once it commits: the notification carries only the writing
 * node's id, the rows are read from the table. Each node reads the rows past the last it saw, in order, and hands those of other
 * nodes to the handler of their kind.
 *
 * In order and never stale where it matters: every write transaction holds the one write lock (connection.ts),
 * so rows get their `seq` in commit order; and each node reads what it missed right after taking the lock,
 * before its own write reads anything it keeps in memory (a column's order, a document's state). A missed
 * notification (a dropped listening connection) is made up by a look every second. Rows older than
 * `KEEP_MS` are removed.
 *
 * Each node also says where the others reach it (`TANDEM_NODE_URL`) and that it is alive: a row of
 * `cluster_nodes` whose `seen_at` it sets every second, on the database's clock. A node not seen for `GONE_MS`
 * (killed, cut off) is gone: what it held (a tunnel's connector, its jobs) is held by no one. A node starting at
 * the URL of another is that node's next process (two live nodes cannot listen at one address): the earlier one
 * is gone at once.
 *
 * Some work is done by one node at a time (the email sweep): a lease (`lease`), a row of `cluster_leases` a node
 * holds for a while on the database's clock, and never while another live node holds it.
 */

import { randomUUID } from "node:crypto";
import { SQL } from "bun";
import type { PgDatabase } from "./connection";

const CHANNEL = "tandem_cluster";
/** How often a node looks for rows without being told. */
const POLL_MS = 1000;
/** How long rows are kept: a node that stopped for longer starts from the newest. */
const KEEP_MS = 10 * 60_000;
const PRUNE_EVERY_MS = 60_000;
/** How long a node may go without its heartbeat (every `POLL_MS`) before the others count it gone. */
export const GONE_MS = 5000;
/** The database's clock in ms: liveness is judged on one clock, whatever the nodes' say. */
const DB_NOW = "(extract(epoch from clock_timestamp()) * 1000)::bigint";
/** The nodes alive now, `id` and `url` (a table expression other statements join). */
export const LIVE_NODES_SQL = `SELECT id, url FROM cluster_nodes WHERE seen_at > ${DB_NOW} - ${GONE_MS}`;

/** Handles another node's row: its body, and the node that wrote it. */
export type ClusterHandler = (body: unknown, node: string) => void;

/** Work one node at a time does: taken (and kept) before each step of it, given up when it is done. */
export interface Lease {
  /**
   * Takes the lease for this node, or keeps it for another while; false while another node holds it. Free when
   * no one holds it, when its holder let its time run out, or when its holder is gone (`GONE_MS` silent).
   */
  take(): boolean;
  /** Gives it up, if this node holds it: the next node to look takes it. */
  release(): void;
}

interface Row {
  seq: number;
  node: string;
  kind: string;
  body: string;
}

export class Cluster {
  /** This node, in the rows it writes. */
  readonly node = randomUUID();
  private last = 0;
  private readonly handlers = new Map<string, ClusterHandler>();
  private readonly beats: (() => void)[] = [];
  /** Whether another node was alive at the last heartbeat, or has written since. */
  private othersAlive = true;
  private listener: SQL | null = null;
  private poll: ReturnType<typeof setInterval> | null = null;
  private lastPrune = 0;
  private reading = false;
  /** Where the other nodes reach this one; null until it listens. */
  private reachedAt: string | null = null;

  constructor(
    private readonly pg: PgDatabase,
    private readonly url: string,
    private readonly onError: (error: unknown) => void,
  ) {
    // Also in a process that only writes (a CLI command): the nodes hear of it.
    pg.beforeCommit = () => this.notify();
    pg.afterEnd = () => {
      this.written = false;
    };
  }

  /** Hands other nodes' rows of `kind` to `handler`, in their order. */
  on(kind: string, handler: ClusterHandler): void {
    this.handlers.set(kind, handler);
  }

  /**
   * Runs `fn` after each heartbeat, every second: what depends on other nodes being alive (an editor's cursor
   * on a node that died) is looked at there.
   */
  onBeat(fn: () => void): void {
    this.beats.push(fn);
  }

  /** Inside a write's transaction: other nodes hear `body` once it commits (and never if it rolls back). */
  send(kind: string, body: unknown): void {
    if (!this.pg.inTransaction) {
      this.pg.transaction(() => this.send(kind, body))();
      return;
    }
    this.pg
      .query("INSERT INTO cluster_events (node, kind, body, created_at) VALUES (?, ?, ?, ?)")
      .defer(this.node, kind, JSON.stringify(body), Date.now());
    // The other nodes are told once, just before the transaction commits (`notify`).
    this.written = true;
  }

  /** Whether the open transaction wrote rows: one notification tells of them all at its commit. */
  private written = false;

  private notify(): void {
    if (!this.written) return;
    this.written = false;
    // It names this node, which has nothing to read.
    this.pg.query(`SELECT pg_notify('${CHANNEL}', ?) AS sent`).defer(this.node);
  }

  /**
   * Starts hearing other nodes: from the newest row on (what came before is in the tables already); and says
   * where they reach this one (`url`), beating every second from now.
   */
  async start(url: string): Promise<void> {
    this.reachedAt = url;
    this.pg.query("DELETE FROM cluster_nodes WHERE url = ? AND id <> ?").run(url, this.node);
    this.beat();
    const newest = this.pg.query("SELECT coalesce(max(seq), 0) AS seq FROM cluster_events").get() as { seq: number };
    this.last = newest.seq;
    this.pg.afterLock = () => this.catchUp();
    this.poll = setInterval(() => this.lookNow(true), POLL_MS);
    this.poll.unref?.();
    try {
      this.listener = new SQL(this.url, { max: 1, idleTimeout: 0 });
      await this.listener.listen(CHANNEL, (from) => {
        if (from !== this.node) this.lookNow();
      });
    } catch (error) {
      // The look every second still hears everything, a moment later.
      this.onError(error);
    }
  }

  async stop(): Promise<void> {
    this.pg.afterLock = null;
    if (this.poll) clearInterval(this.poll);
    this.poll = null;
    const listener = this.listener;
    this.listener = null;
    await listener?.close().catch(() => {});
    // Gone at once rather than after `GONE_MS`: what it held is no one's.
    if (this.reachedAt !== null) {
      this.reachedAt = null;
      try {
        this.pg.query("DELETE FROM cluster_nodes WHERE id = ?").run(this.node);
      } catch (error) {
        this.onError(error);
      }
    }
  }

  /**
   * The lease `name`, held for `ms` from each `take`. Its statements take no write lock: a lease is one row, and
   * PostgreSQL's own row lock decides between two nodes taking it at once.
   */
  lease(name: string, ms: number): Lease {
    const take = this.pg.query(
      `INSERT INTO cluster_leases (name, node, until) VALUES (?, ?, ${DB_NOW} + ?)
      ON CONFLICT (name) DO UPDATE SET node = excluded.node, until = excluded.until
      WHERE cluster_leases.node = excluded.node OR cluster_leases.until < ${DB_NOW}
        OR cluster_leases.node NOT IN (SELECT id FROM (${LIVE_NODES_SQL}) n)
      RETURNING node`,
    );
    const release = this.pg.query("DELETE FROM cluster_leases WHERE name = ? AND node = ?");
    return {
      take: () => take.all(name, this.node, ms).length > 0,
      release: () => {
        try {
          release.run(name, this.node);
        } catch (error) {
          // Its time runs out, or its node goes: the lease is free either way.
          this.onError(error);
        }
      },
    };
  }

  /** The ids of the nodes alive now (this one among them, once started). */
  alive(): Set<string> {
    const rows = this.pg.query(`SELECT id FROM (${LIVE_NODES_SQL}) n`).all() as { id: string }[];
    return new Set(rows.map((row) => row.id));
  }

  /** This node is alive, at `url`: its row, made again if it went (pruned after a long pause). */
  private beat(): void {
    if (this.reachedAt === null) return;
    this.pg
      .query(
        `INSERT INTO cluster_nodes (id, url, started_at, seen_at) VALUES (?, ?, ${DB_NOW}, ${DB_NOW})
        ON CONFLICT (id) DO UPDATE SET url = excluded.url, seen_at = excluded.seen_at`,
      )
      .run(this.node, this.reachedAt);
    const others = this.pg.query(`SELECT count(*) AS n FROM (${LIVE_NODES_SQL}) n WHERE id <> ?`).get(this.node) as {
      n: number;
    };
    this.othersAlive = others.n > 0;
  }

  /**
   * Whether this node is the only one alive (as of its last heartbeat, and no other has written since): what only
   * other nodes would read, and what a node that starts meanwhile may miss, need not be written (an editor's
   * cursor, which a starting node asks for). Never events or document updates: a node started within the second
   * before the next heartbeat must hear them.
   */
  get alone(): boolean {
    return !this.othersAlive;
  }

  /**
   * Between requests: reads what other nodes wrote (inside a transaction the next lock does it); on the timer
   * (`beating`), also the heartbeat, after the reading: a notification is acted on first, as fast as it can be.
   */
  private lookNow(beating = false): void {
    if (this.pg.inTransaction) return;
    try {
      this.catchUp();
      if (!beating) return;
      this.beat();
      this.prune();
      for (const fn of this.beats) fn();
    } catch (error) {
      this.onError(error);
    }
  }

  /** Reads the rows past the last one seen and hands other nodes' to their handlers. */
  catchUp(): void {
    if (this.reading) return;
    this.reading = true;
    try {
      const rows = this.pg
        .query("SELECT seq, node, kind, body FROM cluster_events WHERE seq > ? ORDER BY seq")
        .all(this.last) as unknown as Row[];
      for (const row of rows) {
        this.last = row.seq;
        if (row.node === this.node) continue;
        this.othersAlive = true;
        const handler = this.handlers.get(row.kind);
        if (!handler) continue;
        try {
          handler(JSON.parse(row.body), row.node);
        } catch (error) {
          this.onError(error);
        }
      }
    } finally {
      this.reading = false;
    }
  }

  private prune(): void {
    const now = Date.now();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    this.pg.query("DELETE FROM cluster_events WHERE created_at < ?").run(now - KEEP_MS);
    this.pg.query(`DELETE FROM cluster_nodes WHERE seen_at < ${DB_NOW} - ${KEEP_MS}`).run();
  }
}
