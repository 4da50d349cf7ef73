/**
 * The documents being edited: one Yjs document per text file, in memory while a collaborator has it open or the
 * server is writing to it, shared by every socket on the file and by REST writes; unloaded once idle.
 *
 * Durability: an update is applied to the document, logged in the group commit of its event-loop turn, and
 * relayed to the other peers only once that commit is done, so whatever anyone has seen survives a crash. (The
 * peer that sent an update keeps it as well, and sends again what the server lacks when it reconnects.) The
 * log is folded into the snapshot every `compactEvery` commits and when the document unloads.
 */
import {
  type Awareness,
  Awareness as AwarenessState,
  applyAwarenessUpdate,
  removeAwarenessStates,
} from "y-protocols/awareness";
import * as Y from "yjs";
import { type Db, writeTx } from "../db/client";
import type { GroupCommit } from "../db/group-commit";
import { MAX_TEXT_BYTES } from "../features/files/files.policy";
import { TEXT_KEY } from "../features/files/text-doc";
import { AppError } from "../http/errors";
import { CLOSE } from "../http/sockets";
import type { DocPersistence } from "./persistence";
import {
  type AwarenessEntry,
  awarenessEntries,
  awarenessMessage,
  BadMessage,
  deletionUpdate,
  encodeAwarenessEntries,
  parseMessage,
  syncStep1Message,
  syncStep2Message,
  updateMessage,
} from "./protocol";

/** One open socket on a document, as the registry sees it. */
export interface Peer {
  /** False for read-only peers: their updates are dropped, the socket stays open. */
  readonly canWrite: boolean;
  send(message: Uint8Array): void;
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
}

/** A document in memory. */
export class LiveDoc {
  readonly doc = new Y.Doc();
  readonly awareness: Awareness;
  /** Every peer, with the awareness client ids its messages have introduced. */
  readonly peers = new Map<Peer, Set<number>>();
  /** Applied, waiting for the next commit. */
  pending: Applied[] = [];
  /** Stores queued and not yet settled. */
  inflight = 0;
  /** Settles when the last queued store has: with null, or the error that kept it from being stored. */
  lastStored: Promise<unknown> = Promise.resolve(null);
  /** Updates logged since the snapshot. */
  logged = 0;
  idleTimer: ReturnType<typeof setTimeout> | null = null;
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
  /** Fold the update log into the snapshot after this many logged commits. */
  compactEvery?: number;
  /** The largest text a document may hold, in UTF-8 bytes (a text file's limit). */
  maxTextBytes?: number;
}

/** Hooks into the rest of the server. */
export interface RegistryHooks {
  /** A document's change was stored (its file's text, size and checksum changed). */
  stored(nodeId: string, scope: DocScope): void;
  /** Something could not be stored or loaded; the document's peers were disconnected. */
  failed(error: unknown, nodeId: string): void;
}

/** The open documents. */
export class DocRegistry {
  private readonly docs = new Map<string, LiveDoc>();
  private readonly idleMs: number;
  private readonly compactEvery: number;
  private readonly maxTextBytes: number;

  constructor(
    private readonly db: Db,
    private readonly persistence: DocPersistence,
    private readonly commits: GroupCommit,
    private readonly hooks: RegistryHooks,
    options: RegistryOptions = {},
  ) {
    this.idleMs = options.idleMs ?? 30_000;
    this.compactEvery = options.compactEvery ?? 200;
    this.maxTextBytes = options.maxTextBytes ?? MAX_TEXT_BYTES;
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
    return live;
  }

  /** Removes `peer`, with the cursors it introduced. */
  leave(live: LiveDoc, peer: Peer): void {
    const clients = live.peers.get(peer);
    if (!clients) return;
    live.peers.delete(peer);
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
          const { structs } = Y.decodeUpdate(message.update);
          if (!peer.canWrite) {
            this.takeBack(live, peer, structs);
            break;
          }
          if (!this.fits(live, message.update, structs)) throw new AppError("too_large", "text file too large");
          Y.applyUpdate(live.doc, message.update, peer);
          break;
        }
        case "awareness": {
          const own = this.ownAwareness(live, peer, message.update);
          if (own) applyAwarenessUpdate(live.awareness, own, peer);
          break;
        }
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
   * nothing to count; near the limit the text's bytes and the update's inserted text are counted, so an edit
   * that deletes, or adds a few characters within the limit, always lands. An update that could push the text
   * over is refused whole, before it is applied, and its socket closes.
   */
  private fits(live: LiveDoc, update: Uint8Array, structs: readonly Struct[]): boolean {
    const text = live.doc.getText(TEXT_KEY);
    if (text.length * 3 + update.byteLength <= this.maxTextBytes) return true;
    return Buffer.byteLength(text.toString()) + insertedBytes(update, structs) <= this.maxTextBytes;
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
   * Changes a file's document on the server's behalf (a REST write, an accepted proposal): every peer sees the
   * change. Resolves once it is stored; false when the file has no document.
   */
  async edit(nodeId: string, scope: DocScope, change: (doc: Y.Doc) => void): Promise<boolean> {
    const live = this.open(nodeId, scope);
    if (!live) return false;
    const before = live.lastStored;
    live.doc.transact(() => change(live.doc), null);
    if (live.lastStored !== before) {
      const error = await live.lastStored;
      if (error) throw error;
    }
    this.idleWhenUnused(live);
    return true;
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
    for (const peer of [...live.peers.keys()]) peer.close(code, reason);
    live.peers.clear();
    live.closing = true;
    this.idleWhenUnused(live);
  }

  /** Unloads every document once what it holds is stored: the server is stopping. */
  async closeAll(code: number, reason: string): Promise<void> {
    const docs = [...this.docs.values()];
    for (const live of docs) this.close(live, code, reason);
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
    return live;
  }

  /** Queues the update for the next group commit; relays it once stored. */
  private changed(live: LiveDoc, update: Uint8Array, origin: unknown): void {
    live.pending.push({ update, origin: live.peers.has(origin as Peer) ? (origin as Peer) : null });
    live.inflight++;
    live.lastStored = this.commits
      .run(() => this.store(live))
      .then(
        (stored) => {
          live.inflight--;
          if (stored) {
            this.relay(live, stored);
            this.hooks.stored(live.nodeId, live.scope);
          }
          this.idleWhenUnused(live);
          return null;
        },
        (error: unknown) => {
          live.inflight--;
          this.fail(live, error);
          return error;
        },
      );
  }

  /** Inside the group commit: logs everything pending as one update. */
  private store(live: LiveDoc): { batch: Applied[]; update: Uint8Array } | null {
    const batch = live.pending;
    live.pending = [];
    if (batch.length === 0 || live.failed) return null;
    const update = batch.length === 1 ? (batch[0] as Applied).update : Y.mergeUpdates(batch.map((a) => a.update));
    const now = Date.now();
    this.persistence.append(live.nodeId, update, live.text(), now);
    if (++live.logged >= this.compactEvery) {
      this.persistence.compact(live.nodeId, Y.encodeStateAsUpdate(live.doc), now);
      live.logged = 0;
    }
    return { batch, update };
  }

  /**
   * Sends stored updates to the peers. A single update goes to everyone but its sender, as y-websocket does;
   * several, merged, go to everyone (a peer applying its own update again changes nothing).
   */
  private relay(live: LiveDoc, { batch, update }: { batch: Applied[]; update: Uint8Array }): void {
    const message = updateMessage(update);
    const sender = batch.length === 1 ? (batch[0] as Applied).origin : null;
    for (const peer of live.peers.keys()) if (peer !== sender) peer.send(message);
  }

  /**
   * The part of an awareness update about the sender's own clients. A client id belongs to the peer that
   * introduced it: another peer cannot change that editor's name or cursor (nor a read-only one anybody's).
   */
  private ownAwareness(live: LiveDoc, peer: Peer, update: Uint8Array): Uint8Array | null {
    let entries: AwarenessEntry[];
    try {
      entries = awarenessEntries(update);
    } catch {
      throw new BadMessage("invalid awareness");
    }
    const own = entries.filter((entry) => {
      for (const [other, clients] of live.peers) if (other !== peer && clients.has(entry.clientId)) return false;
      return true;
    });
    if (own.length === entries.length) return update;
    return own.length > 0 ? encodeAwarenessEntries(own) : null;
  }

  private awarenessChanged(live: LiveDoc, { added, updated, removed }: AwarenessChange, origin: unknown): void {
    const clients = live.peers.get(origin as Peer);
    if (clients) {
      for (const id of added) clients.add(id);
      for (const id of removed) clients.delete(id);
    }
    if (live.peers.size === 0) return;
    // Sent to the sender too: the stock client counts these echoes as signs of a live connection.
    const message = awarenessMessage(live.awareness, [...added, ...updated, ...removed]);
    for (const peer of live.peers.keys()) peer.send(message);
  }

  /**
   * Storing failed: the document in memory is ahead of the disk, so it goes at once, unfolded; the next open
   * loads what is stored, and peers resend the rest when they reconnect.
   */
  private fail(live: LiveDoc, error: unknown): void {
    if (live.failed) return;
    live.failed = true;
    this.hooks.failed(error, live.nodeId);
    for (const peer of [...live.peers.keys()]) peer.close(CLOSE.internal, "could not store the document");
    live.peers.clear();
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
   * Folds the log into the snapshot and lets the document go. Runs only with nothing left to store, and folds
   * synchronously: a document loaded again right after must not find its new log rows deleted by a late fold.
   */
  private unload(live: LiveDoc): void {
    if (live.closed) return;
    live.closed = true;
    this.stopIdle(live);
    if (this.docs.get(live.nodeId) === live) this.docs.delete(live.nodeId);
    if (live.logged > 0) {
      try {
        writeTx(this.db, () => this.persistence.compact(live.nodeId, Y.encodeStateAsUpdate(live.doc), Date.now()));
      } catch (error) {
        this.hooks.failed(error, live.nodeId);
      }
    }
    live.doc.destroy();
  }
}

interface AwarenessChange {
  added: number[];
  updated: number[];
  removed: number[];
}

/** One struct of a decoded update. */
type Struct = ReturnType<typeof Y.decodeUpdate>["structs"][number];

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
