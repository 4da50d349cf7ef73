/**
 * The documents being edited: one Yjs document per text file, in memory while a collaborator has it open or the
 * server is writing to it, shared by every socket on the file and by REST writes; unloaded once idle.
 *
 * Durability: an update is applied to the document, logged in the group commit of its event-loop turn, and
 * relayed to the other peers only once that commit is done, so whatever anyone has seen survives a crash. (The
 * peer that sent an update keeps it as well, and sends again what the server lacks when it reconnects.) The
 * log is folded into the snapshot when the text is written after `compactEvery` commits, and when the document
 * unloads.
 *
 * Text: storing an update writes only the update, so a keystroke costs the same in a long document as in an
 * empty one. The file's text, size and checksum, which REST reads, versions and the search index use, are
 * derived from the document and written together when editing settles (`settleMs` after the last stored change,
 * at most `settleMaxMs` after the first one not yet written), when someone reads the file (`settle`), with every
 * write of the server's, when a version is kept and when the document unloads. Logs a stop cut short are folded
 * at the next start (`recover`).
 *
 * Versions: the registry tells its `history` when an editing session starts (the first change stored after a
 * version), when one ends (`versionEveryMs` after it started, or when the document unloads), and around each
 * write of the server's on someone's behalf (a REST write, an accepted proposal, a restore), with who changed
 * the document meanwhile. A timer per document in a session, no work per update beyond noting its author.
 */
import {
  type Awareness,
  Awareness as AwarenessState,
  applyAwarenessUpdate,
  removeAwarenessStates,
} from "y-protocols/awareness";
import * as Y from "yjs";
import { AppError } from "../core/errors";
import type { Unit } from "../core/events";
import type { GroupCommit } from "../db/group-commit";
import type { UnitOfWork } from "../db/unit";
import { MAX_TEXT_BYTES } from "../features/files/files.policy";
import { TEXT_KEY } from "../features/files/text-doc";
import { CLOSE } from "../http/sockets";
import { type AwarenessChange, type AwarenessOut, elsewhereHas, NodeAwareness } from "./node-awareness";
import type { DocPersistence } from "./persistence";
import {
  type AwarenessEntry,
  awarenessEntries,
  awarenessMessage,
  BadMessage,
  deletionUpdate,
  encodeAwarenessEntries,
  MAX_AWARENESS_STATE_BYTES,
  parseMessage,
  syncStep1Message,
  syncStep2Message,
  updateMessage,
} from "./protocol";

/** One open socket on a document, as the registry sees it. */
export interface Peer {
  /** False for read-only peers: their updates are dropped, the socket stays open. */
  readonly canWrite: boolean;
  /** Who edits through it: the author of its changes. */
  readonly userId: string;
  send(message: Uint8Array): void;
  /**
   * Sends `message` to every other peer of its document at once, where the transport can (a socket server's
   * publish: the frame is built once and written by the server's own loop): what a relay costs most of otherwise,
   * a send per peer.
   */
  sendToOthers?(message: Uint8Array): void;
  close(code: number, reason: string): void;
}

/** Where a document belongs, for the events its changes publish. */
export interface DocScope {
  readonly orgId: string;
  readonly spaceId: string;
}

/** An update applied to a document and not yet stored; `origin` is the peer that sent it (null: the server). */
interface Applied {
  update: Uint8Array;
  origin: Peer | null;
  /** Who made the change: the peer's user, or the person a server write is made for. */
  author: string | null;
  /**
   * A write of the server's on someone's behalf (a version is kept before and after it): the text it replaced,
   * as the document held it (edits applied and not yet stored included). Null for an editor's update.
   */
  replaced: string | null;
}

/** The origin of a server write made for a person (`DocRegistry.edit`), with the text before it. */
class ServerEdit {
  constructor(
    readonly author: string,
    readonly replaced: string,
  ) {}
}

/**
 * What the registry tells of a document's changes, for its versions. Each call runs inside the unit of work
 * that stores the change (or ends the session), so a version commits with what it describes.
 */
export interface DocHistory {
  /**
   * A change is about to be stored: an editing session starts (`replaced` null: the stored text is the one
   * before it), or a server write comes (`replaced`: the text it replaces). Keeps that text as a version unless
   * it is kept already; `authors` changed the document since the last version.
   */
  before(unit: Unit, nodeId: string, scope: DocScope, authors: ReadonlySet<string>, replaced: string | null): void;
  /** Keeps the stored text as a version (a session ended, a server write was stored), made by `authors`. */
  keep(unit: Unit, nodeId: string, scope: DocScope, authors: ReadonlySet<string>): void;
}

/** How often a document applies and relays the cursors it received, at most: 25 times a second. */
const AWARENESS_EVERY_MS = 40;

/** A document in memory. */
export class LiveDoc {
  readonly doc = new Y.Doc();
  readonly awareness: Awareness;
  /** Every peer, with the awareness client ids its messages have introduced. */
  readonly peers = new Map<Peer, Set<number>>();
  /** Awareness received this turn of the event loop, the newest entry of each client per peer, applied together. */
  readonly awarenessQueue = new Map<Peer, Map<number, AwarenessEntry>>();
  awarenessFlush: ReturnType<typeof setTimeout> | null = null;
  /** When the queue was last applied. */
  awarenessAt = 0;
  /**
   * The awareness client ids of editors on other nodes (PostgreSQL mode), by node: theirs to change, and gone
   * with their node. Null until another node tells of one.
   */
  elsewhere: Map<string, Set<number>> | null = null;
  /** Whether the other nodes were asked for their editors' states (once, when the first peer joined here). */
  asked = false;
  /** Applied, waiting for the next commit. */
  pending: Applied[] = [];
  /** Stores queued and not yet settled. */
  inflight = 0;
  /** A store is queued and has not run yet: what is applied meanwhile goes with it (`pending`). */
  storeQueued = false;
  /** Settles when the last queued store has: with null, or the error that kept it from being stored. */
  lastStored: Promise<unknown> = Promise.resolve(null);
  /** Updates logged since the snapshot. */
  logged = 0;
  /** When the stored document last changed. */
  changedAt = 0;
  /** Stored changes are not yet in the file's text, size and checksum; since when. */
  textStale = false;
  staleSince = 0;
  settleTimer: ReturnType<typeof setTimeout> | null = null;
  idleTimer: ReturnType<typeof setTimeout> | null = null;
  /** Who changed the document since its last version; null while no editing session is open. */
  authors: Set<string> | null = null;
  /** Ends the open editing session: its version is kept. */
  versionTimer: ReturnType<typeof setTimeout> | null = null;
  /** Unloads as soon as its last store settles, without waiting to be idle. */
  closing = false;
  /** Storing failed: nothing more of it is stored. */
  failed = false;
  closed = false;

  constructor(
    readonly nodeId: string,
    readonly scope: DocScope,
  ) {
    this.awareness = new AwarenessState(this.doc);
    // The server is no collaborator: it has no cursor of its own.
    this.awareness.setLocalState(null);
  }

  text(): string {
    return this.doc.getText(TEXT_KEY).toString();
  }
}

export interface RegistryOptions {
  /** How long a document stays in memory after its last peer left. */
  idleMs?: number;
  /** Fold the update log into the snapshot once it holds this many commits (when the text is next written). */
  compactEvery?: number;
  /** The largest text a document may hold, in UTF-8 bytes (a text file's limit). */
  maxTextBytes?: number;
  /** How long an editing session lasts before its version is kept: at most one version per this while people type. */
  versionEveryMs?: number;
  /** The file's text is written this long after the last stored change... */
  settleMs?: number;
  /** ...or this long after the first change not yet written, while people keep typing. */
  settleMaxMs?: number;
}

/** Hooks into the rest of the server. */
export interface RegistryHooks {
  /**
   * A document's file got its text, size and checksum anew, in `unit`; `editing`: people are still typing in it
   * (its text is written again once they stop).
   */
  settled(unit: Unit, nodeId: string, scope: DocScope, editing: boolean): void;
  /** Something could not be stored or loaded; the document's peers were disconnected. */
  failed(error: unknown, nodeId: string): void;
  /** Where the document's versions are kept. */
  history: DocHistory;
  /**
   * An update was stored, in `unit`: other nodes on the same database (PostgreSQL mode) apply it to their copy
   * of the document and relay it to their sockets (`applyElsewhere`).
   */
  stored?(nodeId: string, update: Uint8Array): void;
  /**
   * The cursors of this node's editors changed (PostgreSQL mode), gathered a moment (node-awareness.ts): other
   * nodes apply them (`awarenessElsewhere`). Absent with one node: awareness then costs nothing more.
   */
  awareness?(batch: AwarenessOut[]): void;
}

const NOBODY: ReadonlySet<string> = new Set();

/** The origin of an update another node stored. */
const ELSEWHERE = Symbol("elsewhere");

/** The open documents. */
export class DocRegistry {
  private readonly docs = new Map<string, LiveDoc>();
  /** Documents whose file's text is behind what they stored. */
  private readonly stale = new Set<LiveDoc>();
  private readonly idleMs: number;
  private readonly compactEvery: number;
  private readonly maxTextBytes: number;
  private readonly versionEveryMs: number;
  private readonly settleMs: number;
  private readonly settleMaxMs: number;
  /** PostgreSQL mode: the cursors of this node's editors and of other nodes'. */
  private readonly nodes: NodeAwareness | null;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly persistence: DocPersistence,
    private readonly commits: GroupCommit,
    private readonly hooks: RegistryHooks,
    options: RegistryOptions = {},
  ) {
    this.idleMs = options.idleMs ?? 30_000;
    this.compactEvery = options.compactEvery ?? 200;
    this.maxTextBytes = options.maxTextBytes ?? MAX_TEXT_BYTES;
    this.versionEveryMs = options.versionEveryMs ?? 5 * 60_000;
    this.settleMs = options.settleMs ?? 1000;
    this.settleMaxMs = options.settleMaxMs ?? 5000;
    this.nodes = hooks.awareness ? new NodeAwareness(hooks.awareness) : null;
  }

  /**
   * Adds `peer` to the file's document, loading it when needed, and greets it the way a y-websocket server
   * does: the server's state vector (the client answers with what the server lacks) and the awareness states.
   */
  join(nodeId: string, scope: DocScope, peer: Peer): LiveDoc | undefined {
    const live = this.open(nodeId, scope);
    if (!live) return undefined;
    live.peers.set(peer, new Set());
    this.stopIdle(live);
    peer.send(syncStep1Message(live.doc));
    if (live.awareness.getStates().size > 0) peer.send(awarenessMessage(live.awareness));
    this.nodes?.joined(live);
    return live;
  }

  /** Removes `peer`, with the cursors it introduced. */
  leave(live: LiveDoc, peer: Peer): void {
    const clients = live.peers.get(peer);
    if (!clients) return;
    live.peers.delete(peer);
    live.awarenessQueue.delete(peer);
    if (clients.size > 0) removeAwarenessStates(live.awareness, [...clients], null);
    this.idleWhenUnused(live);
  }

  /** Handles one frame from `peer`; throws `BadMessage` when it is not a valid message. */
  receive(live: LiveDoc, peer: Peer, frame: Uint8Array): void {
    const message = parseMessage(frame);
    try {
      switch (message.kind) {
        case "sync-step-1":
          peer.send(syncStep2Message(live.doc, message.stateVector));
          break;
        case "update": {
          // A malformed update can keep applyUpdate busy for seconds before it throws; decoding it first
          // rejects the same update in well under a millisecond.
          const decoded = Y.decodeUpdate(message.update);
          if (!peer.canWrite) {
            this.takeBack(live, peer, decoded.structs);
            break;
          }
          if (!onlySharedText(decoded.structs)) throw new BadMessage(ONLY_TEXT);
          if (!inOrder(live.doc, decoded.structs)) {
            throw new BadMessage("update out of order: an earlier edit of the same client is missing");
          }
          if (!this.fits(live, message.update, decoded)) throw new AppError("too_large", "text file too large");
          Y.applyUpdate(live.doc, message.update, peer);
          break;
        }
        case "awareness":
          this.queueAwareness(live, peer, this.ownAwareness(live, peer, message.update));
          break;
        case "query-awareness":
          peer.send(awarenessMessage(live.awareness));
          break;
      }
    } catch (error) {
      throw error instanceof BadMessage || error instanceof AppError
        ? error
        : new BadMessage(`invalid ${message.kind}`);
    }
  }

  /**
   * Whether the document stays within the text limit with `update` applied. The text grows by at most what
   * the update inserts, and a UTF-16 unit of the text is at most 3 UTF-8 bytes: under that bound there is
   * nothing to count; near the limit the text's bytes, the update's inserted text and the text it deletes are
   * counted, so an edit that deletes, types over a selection or adds a few characters within the limit always
   * lands. An update that would push the text over is refused whole, before it is applied, and its socket closes.
   */
  private fits(live: LiveDoc, update: Uint8Array, decoded: DecodedUpdate): boolean {
    const text = live.doc.getText(TEXT_KEY);
    // Edits waiting inside Yjs for one they build on count as if they had landed.
    const waiting = live.doc.store.pendingStructs?.update.byteLength ?? 0;
    if (text.length * 3 + waiting + update.byteLength <= this.maxTextBytes) return true;
    const after =
      Buffer.byteLength(text.toString()) +
      waiting +
      insertedBytes(update, decoded.structs) -
      deletedBytes(live.doc, text, decoded.ds);
    return after <= this.maxTextBytes;
  }

  /**
   * A read-only peer's update is dropped; what it inserted, the server deletes again in that peer's copy. Its
   * editor then shows what everyone else sees, and if it may edit later, the dropped text cannot come back
   * with its next sync: it arrives deleted. (Only the items the server never had: the same update may carry
   * items everyone has, which stay.)
   */
  private takeBack(live: LiveDoc, peer: Peer, structs: readonly Struct[]): void {
    const known = Y.decodeStateVector(Y.encodeStateVector(live.doc));
    const ranges = new Map<number, [number, number][]>();
    for (const struct of structs) {
      if (!(struct instanceof Y.Item)) continue;
      const { client, clock } = struct.id;
      const from = Math.max(clock, known.get(client) ?? 0);
      const to = clock + struct.length;
      if (from >= to) continue;
      const list = ranges.get(client) ?? [];
      list.push([from, to - from]);
      ranges.set(client, list);
    }
    if (ranges.size > 0) peer.send(updateMessage(deletionUpdate(ranges)));
  }

  /**
   * Changes a file's document on the server's behalf, for `author` (a REST write, an accepted proposal, a
   * restore): every peer sees the change, and a version is kept before (unless kept already) and after it.
   * Resolves once it is stored; false when the file has no document.
   */
  async edit(nodeId: string, scope: DocScope, author: string, change: (doc: Y.Doc) => void): Promise<boolean> {
    const live = this.open(nodeId, scope);
    if (!live) return false;
    const before = live.lastStored;
    live.doc.transact(() => change(live.doc), new ServerEdit(author, live.text()));
    if (live.lastStored !== before) {
      const error = await live.lastStored;
      if (error) throw error;
    }
    this.idleWhenUnused(live);
    return true;
  }

  /**
   * Brings the text, size and checksum of the space's files (or of one file) up to what their documents stored:
   * called before they are read. Costs nothing when no document of the space is ahead of its file.
   */
  settle(spaceId: string, nodeId?: string): void {
    if (this.stale.size === 0) return;
    for (const live of [...this.stale]) {
      if (live.scope.spaceId === spaceId && (nodeId === undefined || live.nodeId === nodeId)) this.settleNow(live);
    }
  }

  /**
   * Folds the logs a stop cut short (the server was killed while people typed): each such document is loaded,
   * its file's text written and its log folded into the snapshot. Run at start, before anyone edits.
   */
  recover(): number {
    let recovered = 0;
    for (const { nodeId, orgId, spaceId } of this.persistence.logged()) {
      if (this.docs.has(nodeId)) continue;
      try {
        const live = this.open(nodeId, { orgId, spaceId });
        if (!live) continue;
        live.closing = true;
        this.idleWhenUnused(live);
        recovered++;
      } catch (error) {
        this.hooks.failed(error, nodeId);
      }
    }
    return recovered;
  }

  /** Every document in memory. */
  all(): IterableIterator<LiveDoc> {
    return this.docs.values();
  }

  /**
   * Disconnects every peer of the document and unloads it once what it holds is stored (the file was deleted,
   * the server stops).
   */
  close(live: LiveDoc, code: number, reason: string): void {
    this.disconnect(live, code, reason);
    live.closing = true;
    this.idleWhenUnused(live);
  }

  /** Closes every peer of the document; their cursors go with them, on the other nodes too. */
  private disconnect(live: LiveDoc, code: number, reason: string): void {
    const clients: number[] = [];
    for (const [peer, ids] of live.peers) {
      peer.close(code, reason);
      clients.push(...ids);
    }
    live.peers.clear();
    live.awarenessQueue.clear();
    if (clients.length > 0) removeAwarenessStates(live.awareness, clients, null);
  }

  /**
   * Unloads every document once what it holds is stored: the server is stopping. The other nodes are told at
   * once that its editors left.
   */
  async closeAll(code: number, reason: string): Promise<void> {
    const docs = [...this.docs.values()];
    for (const live of docs) this.close(live, code, reason);
    this.nodes?.tellNow();
    await Promise.all(docs.map((live) => live.lastStored));
  }

  private open(nodeId: string, scope: DocScope): LiveDoc | undefined {
    const loaded = this.docs.get(nodeId);
    if (loaded) {
      loaded.closing = false;
      return loaded;
    }
    const stored = this.persistence.load(nodeId);
    if (!stored) return undefined;
    const live = new LiveDoc(nodeId, scope);
    Y.applyUpdate(live.doc, stored.state);
    for (const update of stored.updates) Y.applyUpdate(live.doc, update);
    live.logged = stored.updates.length;
    live.doc.on("update", (update: Uint8Array, origin: unknown) => this.changed(live, update, origin));
    live.awareness.on("update", (change: AwarenessChange, origin: unknown) =>
      this.awarenessChanged(live, change, origin),
    );
    this.docs.set(nodeId, live);
    // Updates logged and never written into the text (a stop cut them short): the text is written now, so the
    // editing session that starts next begins from the stored text.
    if (stored.updates.length > 0) {
      live.changedAt = Date.now();
      this.markStale(live);
      this.settleNow(live);
    }
    return live;
  }

  /**
   * An update another node stored (PostgreSQL mode): applied to the document if this node has it open, and
   * relayed to its sockets. Stored already, it is not stored again; applying one twice changes nothing.
   */
  applyElsewhere(nodeId: string, update: Uint8Array): void {
    const live = this.docs.get(nodeId);
    if (!live || live.closed || live.failed) return;
    Y.applyUpdate(live.doc, update, ELSEWHERE);
  }

  /** Queues the update for the next group commit; relays it once stored. */
  private changed(live: LiveDoc, update: Uint8Array, origin: unknown): void {
    if (origin === ELSEWHERE) {
      if (live.peers.size > 0) this.broadcast(live, updateMessage(update), null);
      return;
    }
    if (live.peers.has(origin as Peer)) {
      const peer = origin as Peer;
      live.pending.push({ update, origin: peer, author: peer.userId, replaced: null });
    } else if (origin instanceof ServerEdit) {
      live.pending.push({ update, origin: null, author: origin.author, replaced: origin.replaced });
    } else {
      live.pending.push({ update, origin: null, author: null, replaced: null });
    }
    // One store per document and commit: it takes every update applied until it runs.
    if (live.storeQueued) return;
    live.storeQueued = true;
    live.inflight++;
    live.lastStored = this.commits
      .run((unit) => {
        live.storeQueued = false;
        return this.store(unit, live);
      })
      .then(
        (stored) => {
          live.inflight--;
          if (stored) {
            this.relay(live, stored);
          }
          this.idleWhenUnused(live);
          return null;
        },
        (error: unknown) => {
          live.storeQueued = false;
          live.inflight--;
          this.fail(live, error);
          return error;
        },
      );
  }

  /** Inside the group commit: logs everything pending as one update. */
  private store(unit: Unit, live: LiveDoc): { batch: Applied[]; update: Uint8Array } | null {
    const batch = live.pending;
    live.pending = [];
    if (batch.length === 0 || live.failed) return null;
    const update = batch.length === 1 ? (batch[0] as Applied).update : Y.mergeUpdates(batch.map((a) => a.update));
    const writers = this.beginVersion(unit, live, batch);
    const now = Date.now();
    this.persistence.append(live.nodeId, update, now);
    this.hooks.stored?.(live.nodeId, update);
    live.changedAt = now;
    live.logged++;
    if (writers) {
      // A write of the server's: the text after it is written at once, and kept as a version.
      this.writeText(unit, live, false);
      this.hooks.history.keep(unit, live.nodeId, live.scope, writers);
    } else {
      this.markStale(live);
    }
    return { batch, update };
  }

  /** The document stored a change its file's text does not hold yet: the text is written once editing settles. */
  private markStale(live: LiveDoc): void {
    if (live.textStale) return;
    live.textStale = true;
    live.staleSince = live.changedAt;
    this.stale.add(live);
    this.settleAfter(live, this.settleMs);
  }

  private settleAfter(live: LiveDoc, ms: number): void {
    if (live.settleTimer) clearTimeout(live.settleTimer);
    live.settleTimer = setTimeout(() => this.settleDue(live), ms);
    live.settleTimer.unref?.();
  }

  /** The settle timer: the text is written once the document was quiet for `settleMs`, or waited `settleMaxMs`. */
  private settleDue(live: LiveDoc): void {
    live.settleTimer = null;
    if (live.closed || live.failed) return;
    const now = Date.now();
    if (!live.textStale) {
      // The text was written while people typed, its long log left for when they stop: that is now.
      const quietAt = live.changedAt + this.settleMs;
      if (quietAt > now) this.settleAfter(live, quietAt - now);
      else this.fold(live);
      return;
    }
    const due = Math.min(live.changedAt + this.settleMs, live.staleSince + this.settleMaxMs);
    if (due > now) this.settleAfter(live, due - now);
    else this.settleNow(live);
  }

  /** Writes the file's text now, in a write of its own (or the caller's unit); tried again later if it fails. */
  private settleNow(live: LiveDoc): void {
    if (!live.textStale || live.closed || live.failed) return;
    try {
      this.uow.write((unit) => this.settleIn(unit, live));
    } catch (error) {
      this.hooks.failed(error, live.nodeId);
      this.settleAfter(live, this.settleMaxMs);
    }
  }

  /**
   * In `unit`: stores what is pending (relayed once committed), then writes the file's text if it is behind,
   * so the text describes exactly what is stored.
   */
  private settleIn(unit: Unit, live: LiveDoc): void {
    if (live.pending.length > 0) {
      const stored = this.store(unit, live);
      if (stored) unit.afterCommit(() => this.relay(live, stored));
    }
    if (live.textStale) this.writeText(unit, live, Date.now() - live.changedAt < this.settleMs);
  }

  /**
   * Writes the document's text, size and checksum into its file, in `unit` (`editing`: while people go on
   * typing). A log of `compactEvery` commits is folded into the snapshot in the same write, once the typing
   * stopped: encoding a long document takes a while (16 ms for 1 MiB), and nobody should wait for it between
   * two keystrokes. While the typing goes on, only a log ten times that long is folded.
   */
  private writeText(unit: Unit, live: LiveDoc, editing: boolean): void {
    const fold = live.logged >= this.compactEvery * (editing ? 10 : 1);
    const state = fold ? Y.encodeStateAsUpdate(live.doc) : undefined;
    this.persistence.setText(live.nodeId, live.text(), live.changedAt, state);
    if (fold) live.logged = 0;
    this.hooks.settled(unit, live.nodeId, live.scope, editing);
    unit.afterCommit(() => this.textWritten(live));
  }

  private textWritten(live: LiveDoc): void {
    live.textStale = false;
    this.stale.delete(live);
    if (live.settleTimer) clearTimeout(live.settleTimer);
    live.settleTimer = null;
    // Written while people typed, with a log long enough to fold: folded once they stop.
    if (live.logged >= this.compactEvery) this.settleAfter(live, this.settleMs);
  }

  /** Folds the log into the snapshot, in a write of its own: the text is written already, nothing is pending. */
  private fold(live: LiveDoc): void {
    if (live.logged < this.compactEvery || live.pending.length > 0 || live.textStale) return;
    try {
      this.uow.write(() => this.persistence.compact(live.nodeId, Y.encodeStateAsUpdate(live.doc), Date.now()));
      live.logged = 0;
    } catch (error) {
      this.hooks.failed(error, live.nodeId);
    }
  }

  /**
   * Before a batch is stored: an editing session starts with the first batch after a version (the text before
   * it is kept, unless it is already), and notes who changes the document. A batch holding a server write ends
   * the session instead: the text before it is kept the same way, and the authors of the batch are returned,
   * for the version of the text after it.
   */
  private beginVersion(unit: Unit, live: LiveDoc, batch: readonly Applied[]): Set<string> | null {
    const replaced = batch.find((a) => a.replaced !== null)?.replaced ?? null;
    const serverWrite = replaced !== null;
    if (live.authors === null || serverWrite)
      this.hooks.history.before(unit, live.nodeId, live.scope, live.authors ?? NOBODY, replaced);
    let authors = live.authors;
    if (serverWrite) {
      this.stopVersionTimer(live);
      live.authors = null;
      authors = new Set();
    } else if (authors === null) {
      authors = live.authors = new Set();
      this.startVersionTimer(live);
    }
    for (const applied of batch) if (applied.author !== null) authors.add(applied.author);
    return serverWrite ? authors : null;
  }

  /** The editing session's time is up: its version is kept (what is stored of it by now). */
  private endSession(live: LiveDoc): void {
    live.versionTimer = null;
    const authors = live.authors;
    if (authors === null || live.closed || live.failed) return;
    try {
      this.uow.write((unit) => {
        this.settleIn(unit, live);
        this.hooks.history.keep(unit, live.nodeId, live.scope, authors);
      });
      live.authors = null;
    } catch (error) {
      // Kept open: the next try comes after another interval, or when the document unloads.
      this.hooks.failed(error, live.nodeId);
      this.startVersionTimer(live);
    }
  }

  private startVersionTimer(live: LiveDoc): void {
    live.versionTimer = setTimeout(() => this.endSession(live), this.versionEveryMs);
    live.versionTimer.unref?.();
  }

  private stopVersionTimer(live: LiveDoc): void {
    if (live.versionTimer) clearTimeout(live.versionTimer);
    live.versionTimer = null;
  }

  /**
   * Sends stored updates to the peers. A single update goes to everyone but its sender, as y-websocket does;
   * several, merged, go to everyone (a peer applying its own update again changes nothing).
   */
  private relay(live: LiveDoc, { batch, update }: { batch: Applied[]; update: Uint8Array }): void {
    const sender = batch.length === 1 ? (batch[0] as Applied).origin : null;
    this.broadcast(live, updateMessage(update), sender);
  }

  /** Sends `message` to every peer of the document but `except` (null: to all of them). */
  private broadcast(live: LiveDoc, message: Uint8Array, except: Peer | null): void {
    const skip = except !== null && live.peers.has(except) ? except : null;
    const via = skip ?? (live.peers.keys().next().value as Peer | undefined);
    if (via?.sendToOthers) {
      via.sendToOthers(message);
      if (skip === null) via.send(message);
      return;
    }
    for (const peer of live.peers.keys()) if (peer !== skip) peer.send(message);
  }

  /**
   * The part of an awareness update about the sender's own clients. A client id belongs to the peer that
   * introduced it: another peer cannot change that editor's name or cursor (nor a read-only one anybody's),
   * whether that editor is on this node or on another.
   */
  private ownAwareness(live: LiveDoc, peer: Peer, update: Uint8Array): AwarenessEntry[] {
    let entries: AwarenessEntry[];
    try {
      entries = awarenessEntries(update);
    } catch {
      throw new BadMessage("invalid awareness");
    }
    // A cursor and a name take a few hundred bytes; each state is kept and sent to every joiner. An editor has
    // one client id (a new one when it makes its document again): a few per socket, not thousands.
    if (entries.some((entry) => entry.state.byteLength > MAX_AWARENESS_STATE_BYTES)) {
      throw new AppError("too_large", `awareness state too large: at most ${MAX_AWARENESS_STATE_BYTES / 1024} KiB`);
    }
    const mine = live.peers.get(peer) ?? new Set<number>();
    const clients = new Set([...mine, ...entries.map((entry) => entry.clientId)]);
    if (clients.size > MAX_AWARENESS_CLIENTS) {
      throw new BadMessage(`too many awareness clients on one socket: at most ${MAX_AWARENESS_CLIENTS}`);
    }
    return entries.filter((entry) => {
      for (const [other, clients] of live.peers) if (other !== peer && clients.has(entry.clientId)) return false;
      return !live.elsewhere || !elsewhereHas(live.elsewhere, entry.clientId);
    });
  }

  /**
   * Awareness (cursors, selections) is state, not history: only each client's newest state matters. A document
   * applies and relays what arrived at most once every `AWARENESS_EVERY_MS` (at once after a quiet spell), the
   * newest state of each client, so a burst costs one update per peer and a flood cannot hold the event loop
   * (3 sockets sending 4,000 updates each held it for 290-580 ms when each was applied and relayed on its own).
   */
  private queueAwareness(live: LiveDoc, peer: Peer, entries: AwarenessEntry[]): void {
    if (entries.length === 0) return;
    let queued = live.awarenessQueue.get(peer);
    if (!queued) {
      queued = new Map();
      live.awarenessQueue.set(peer, queued);
    }
    for (const entry of entries) {
      const known = queued.get(entry.clientId);
      if (!known || entry.clock >= known.clock) queued.set(entry.clientId, entry);
    }
    if (live.awarenessFlush) return;
    const wait = Math.max(0, live.awarenessAt + AWARENESS_EVERY_MS - performance.now());
    live.awarenessFlush = setTimeout(() => this.flushAwareness(live), wait);
  }

  private flushAwareness(live: LiveDoc): void {
    live.awarenessFlush = null;
    live.awarenessAt = performance.now();
    const queue = [...live.awarenessQueue];
    live.awarenessQueue.clear();
    if (live.closed) return;
    for (const [peer, entries] of queue) {
      if (!live.peers.has(peer)) continue;
      applyAwarenessUpdate(live.awareness, encodeAwarenessEntries([...entries.values()]), peer);
    }
  }

  private awarenessChanged(live: LiveDoc, change: AwarenessChange, origin: unknown): void {
    const { added, updated, removed } = change;
    const clients = live.peers.get(origin as Peer);
    if (clients) {
      for (const id of added) clients.add(id);
      for (const id of removed) clients.delete(id);
    }
    this.nodes?.noted(live, change, origin, clients !== undefined || origin === null);
    if (live.peers.size === 0) return;
    // Sent to the sender too: the stock client counts these echoes as signs of a live connection.
    this.broadcast(live, awarenessMessage(live.awareness, [...added, ...updated, ...removed]), null);
  }

  /** Awareness another node told of (PostgreSQL mode), for a document this node may have open. */
  awarenessElsewhere(from: string, nodeId: string, update: Uint8Array | null, ask: boolean): void {
    const live = this.docs.get(nodeId);
    if (!live || live.closed || live.failed) return;
    this.nodes?.received(live, from, update, ask);
  }

  /** The cursors of editors on nodes that are gone go (PostgreSQL mode); `alive` lists the nodes alive. */
  forgetNodesGone(alive: () => ReadonlySet<string>): void {
    this.nodes?.forgetGone(this.docs.values(), alive);
  }

  /**
   * Storing failed: the document in memory is ahead of the disk, so it goes at once, unfolded; the next open
   * loads what is stored, and peers resend the rest when they reconnect.
   */
  private fail(live: LiveDoc, error: unknown): void {
    if (live.failed) return;
    live.failed = true;
    // The document in memory is ahead of the disk: its session's version would describe text never stored.
    this.stopVersionTimer(live);
    live.authors = null;
    this.hooks.failed(error, live.nodeId);
    this.disconnect(live, CLOSE.internal, "could not store the document");
    live.logged = 0;
    this.unload(live);
  }

  /** Starts the idle countdown of a document nobody uses; unloads a closing one at once. */
  private idleWhenUnused(live: LiveDoc): void {
    if (live.closed || live.peers.size > 0 || live.inflight > 0) return;
    this.stopIdle(live);
    if (live.closing) {
      this.unload(live);
      return;
    }
    live.idleTimer = setTimeout(() => this.unload(live), this.idleMs);
    live.idleTimer.unref?.();
  }

  private stopIdle(live: LiveDoc): void {
    if (live.idleTimer) clearTimeout(live.idleTimer);
    live.idleTimer = null;
  }

  /**
   * Keeps the open editing session's version, folds the log into the snapshot and lets the document go. Runs
   * only with nothing left to store, and folds synchronously: a document loaded again right after must not find
   * its new log rows deleted by a late fold.
   */
  private unload(live: LiveDoc): void {
    if (live.closed) return;
    // Its editors' leaving is told before it goes.
    this.nodes?.unloading(live);
    live.closed = true;
    this.stopIdle(live);
    this.stopVersionTimer(live);
    if (live.awarenessFlush) clearTimeout(live.awarenessFlush);
    live.awarenessFlush = null;
    live.awarenessQueue.clear();
    if (this.docs.get(live.nodeId) === live) this.docs.delete(live.nodeId);
    if (live.settleTimer) clearTimeout(live.settleTimer);
    live.settleTimer = null;
    this.stale.delete(live);
    const authors = live.authors;
    live.authors = null;
    // A failed document is ahead of the disk: nothing of it is written.
    const textStale = live.textStale && !live.failed;
    if (live.logged > 0 || authors || textStale) {
      try {
        this.uow.write((unit) => {
          // Folded with the text when that is written; otherwise on its own.
          if (textStale) this.writeText(unit, live, false);
          if (authors) this.hooks.history.keep(unit, live.nodeId, live.scope, authors);
          if (live.logged > 0) this.persistence.compact(live.nodeId, Y.encodeStateAsUpdate(live.doc), Date.now());
        });
      } catch (error) {
        this.hooks.failed(error, live.nodeId);
      }
    }
    live.doc.destroy();
  }
}

/** One struct of a decoded update. */
type DecodedUpdate = ReturnType<typeof Y.decodeUpdate>;
type Struct = DecodedUpdate["structs"][number];

/** Awareness client ids one socket may speak for. */
const MAX_AWARENESS_CLIENTS = 4;

/**
 * Whether each client's items in an update follow on from what the document (or the update, before them) has
 * of that client, with no gap (a `Skip` is one). Over one ordered socket a client's own edits come in order;
 * an update that skips some would wait inside Yjs and land with the one that fills the gap. (An edit beside
 * another client's that has not arrived yet, which tabs sharing edits in the browser can send, also waits:
 * `fits` counts what waits.)
 */
function inOrder(doc: Y.Doc, structs: readonly Struct[]): boolean {
  const reached = new Map<number, number>();
  for (const struct of structs) {
    if (struct instanceof Y.Skip) continue;
    const { client, clock } = struct.id;
    const next = reached.get(client) ?? Y.getState(doc.store, client);
    if (clock > next) return false;
    reached.set(client, Math.max(next, clock + struct.length));
  }
  return true;
}

const ONLY_TEXT = `only the text getText("${TEXT_KEY}") can be edited`;

/**
 * Whether an update holds only characters of the shared text: no other root type, nested type, map entry,
 * embed or format, none of which the file holds, and which would grow the document past the text limit
 * unseen. An item names its parent only when it has no neighbour to take it from; by induction every item
 * already in the document is text, so an item placed beside one is too.
 */
function onlySharedText(structs: readonly Struct[]): boolean {
  for (const struct of structs) {
    if (!(struct instanceof Y.Item)) continue;
    if (struct.parentSub !== null) return false;
    // Decoded, not yet integrated: `parent` is the root type's name (typed as the type it becomes), or an id.
    const parent = struct.parent as unknown;
    if (parent !== null && parent !== TEXT_KEY) return false;
    if (!(struct.content instanceof Y.ContentString || struct.content instanceof Y.ContentDeleted)) return false;
  }
  return true;
}

/** Delete ranges sorted and merged: a range listed twice (or overlapping another) deletes its text once. */
function mergedRanges(ranges: readonly { clock: number; len: number }[]): { clock: number; len: number }[] {
  const merged: { clock: number; len: number }[] = [];
  for (const { clock, len } of [...ranges].sort((a, b) => a.clock - b.clock)) {
    const last = merged.at(-1);
    if (last && clock <= last.clock + last.len) last.len = Math.max(last.len, clock + len - last.clock);
    else merged.push({ clock, len });
  }
  return merged;
}

/**
 * UTF-8 bytes of the live text an update's delete set removes from `doc` (text it deletes that the document
 * has; what it inserts and deletes at once is counted by neither side, which only overestimates the result).
 */
function deletedBytes(doc: Y.Doc, text: Y.Text, ds: DecodedUpdate["ds"]): number {
  let bytes = 0;
  for (const [client, listed] of ds.clients) {
    const structs = doc.store.clients.get(client);
    if (!structs) continue;
    const known = Y.getState(doc.store, client);
    for (const { clock, len } of mergedRanges(listed)) {
      const end = Math.min(clock + len, known);
      if (clock >= end) continue;
      for (let i = Y.findIndexSS(structs, clock); i < structs.length; i++) {
        const struct = structs[i] as Struct;
        if (struct.id.clock >= end) break;
        if (!(struct instanceof Y.Item) || struct.deleted || struct.parent !== text) continue;
        if (!(struct.content instanceof Y.ContentString)) continue;
        const from = Math.max(clock, struct.id.clock) - struct.id.clock;
        const to = Math.min(end, struct.id.clock + struct.length) - struct.id.clock;
        bytes += Buffer.byteLength(struct.content.str.slice(from, to));
      }
    }
  }
  return bytes;
}

/**
 * The UTF-8 bytes of text an update inserts. Content of any other kind (embeds, other shared types) is counted
 * as the whole update, so nothing but text grows a document near its limit.
 */
function insertedBytes(update: Uint8Array, structs: readonly Struct[]): number {
  let bytes = 0;
  for (const struct of structs) {
    if (!(struct instanceof Y.Item) || struct.content instanceof Y.ContentDeleted) continue;
    if (!(struct.content instanceof Y.ContentString)) return update.byteLength;
    bytes += Buffer.byteLength(struct.content.str);
  }
  return bytes;
}
