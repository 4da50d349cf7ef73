/**
 * Cursors across nodes (PostgreSQL mode): which of a document's awareness states are this node's editors' and
 * which another node's, what this node tells the others of its editors, and what it takes from theirs. A
 * change of this node's editors is gathered for `AWARENESS_TO_NODES_MS`, every document's in one batch; a node
 * that opens a document asks the nodes that have it open for their editors; an editor on another node is that
 * node's to change, and goes with it. Made only when there are other nodes to tell (`RegistryHooks.awareness`):
 * with one node, awareness costs nothing more.
 */
import { applyAwarenessUpdate, encodeAwarenessUpdate, removeAwarenessStates } from "y-protocols/awareness";
import { type AwarenessEntry, awarenessEntries, encodeAwarenessEntries, MAX_AWARENESS_STATE_BYTES } from "./protocol";
import type { LiveDoc } from "./registry";

/**
 * How long the cursors that changed on this node are gathered before other nodes are told of them, all
 * documents' in one row: a write at most every this while people move their cursors, whatever their number.
 */
const AWARENESS_TO_NODES_MS = 80;

/** What a document tells the other nodes of its editors' cursors. */
export interface AwarenessOut {
  nodeId: string;
  /** The states of the clients that changed (null for a removed one); null when none did. */
  update: Uint8Array | null;
  /** The document was just opened here: the nodes that have it open answer with all their editors' states. */
  ask: boolean;
}

/** What changed in a document's awareness, as y-protocols tells it. */
export interface AwarenessChange {
  added: number[];
  updated: number[];
  removed: number[];
}

/** The origin of awareness another node told of: its editors'. */
class FromNode {
  constructor(readonly node: string) {}
}

export class NodeAwareness {
  /** The awareness client ids that changed here since other nodes were last told, by document. */
  private readonly changed = new Map<LiveDoc, Set<number>>();
  /** Documents whose first peer just joined here: the other nodes are asked for their editors. */
  private readonly asking = new Set<LiveDoc>();
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly tell: (batch: AwarenessOut[]) => void) {}

  /** A peer joined the document here: the first time, editors on other nodes were there first and are asked. */
  joined(live: LiveDoc): void {
    if (live.asked) return;
    live.asked = true;
    this.asking.add(live);
    this.soon();
  }

  /**
   * The document's awareness changed. A change of this node's editors (`here`: sent by a peer, or their leaving)
   * is told to the other nodes. A change another node told of is not told again: it notes which editors are that
   * node's, so no peer here speaks for them and they go with their node. A state timed out goes on each node by
   * itself.
   */
  noted(live: LiveDoc, { added, updated, removed }: AwarenessChange, origin: unknown, here: boolean): void {
    if (origin instanceof FromNode) {
      this.noteTheirs(live, origin.node, added, updated, removed);
      return;
    }
    if (live.elsewhere) for (const clients of live.elsewhere.values()) for (const id of removed) clients.delete(id);
    if (!here) return;
    this.mark(live, [...added, ...updated, ...removed]);
  }

  /**
   * Awareness another node told of, applied to the document, which relays it to its sockets: its editors' states,
   * none of them an editor's of this node; and, when it asks, this node's editors' states are told back.
   */
  received(live: LiveDoc, from: string, update: Uint8Array | null, ask: boolean): void {
    const here = new Set<number>();
    for (const clients of live.peers.values()) for (const id of clients) here.add(id);
    if (ask && here.size > 0) this.mark(live, here);
    if (!update) return;
    let entries: AwarenessEntry[];
    try {
      entries = awarenessEntries(update);
    } catch {
      return;
    }
    entries = entries.filter((e) => !here.has(e.clientId) && e.state.byteLength <= MAX_AWARENESS_STATE_BYTES);
    if (entries.length > 0) applyAwarenessUpdate(live.awareness, encodeAwarenessEntries(entries), new FromNode(from));
  }

  /**
   * The cursors of editors on nodes that are gone (killed, cut off: `alive` no longer lists them) go, rather than
   * after their own 30 s of silence. Asks who is alive only while another node's editors are known.
   */
  forgetGone(docs: Iterable<LiveDoc>, alive: () => ReadonlySet<string>): void {
    let nodes: ReadonlySet<string> | null = null;
    for (const live of docs) {
      if (!live.elsewhere || live.closed) continue;
      for (const [node, clients] of live.elsewhere) {
        if (clients.size === 0) {
          live.elsewhere.delete(node);
          continue;
        }
        nodes ??= alive();
        if (nodes.has(node)) continue;
        live.elsewhere.delete(node);
        removeAwarenessStates(live.awareness, [...clients], new FromNode(node));
      }
    }
  }

  /** The document unloads (before it counts as closed): its editors' leaving is told first. */
  unloading(live: LiveDoc): void {
    if (this.changed.has(live)) this.tellNow();
    this.asking.delete(live);
  }

  /** Tells the other nodes, in one batch, of every document's editors that changed here, and asks as asked. */
  tellNow(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch: AwarenessOut[] = [];
    for (const live of new Set([...this.changed.keys(), ...this.asking])) {
      if (live.closed) continue;
      const changed = this.changed.get(live);
      const update = changed ? encodeAwarenessUpdate(live.awareness, [...changed]) : null;
      batch.push({ nodeId: live.nodeId, update, ask: this.asking.has(live) });
    }
    this.changed.clear();
    this.asking.clear();
    if (batch.length > 0) this.tell(batch);
  }

  /** These of the document's clients changed here: told with the next batch. */
  private mark(live: LiveDoc, ids: Iterable<number>): void {
    let changed = this.changed.get(live);
    if (!changed) {
      changed = new Set();
      this.changed.set(live, changed);
    }
    for (const id of ids) changed.add(id);
    this.soon();
  }

  /** Another node's editors: `node` introduced the client ids that arrived, and no longer has those removed. */
  private noteTheirs(live: LiveDoc, node: string, added: number[], updated: number[], removed: number[]): void {
    if (!live.elsewhere) live.elsewhere = new Map();
    const elsewhere = live.elsewhere;
    for (const id of removed) elsewhere.get(node)?.delete(id);
    const arrived = [...added, ...updated];
    if (arrived.length === 0) return;
    let theirs = elsewhere.get(node);
    if (!theirs) {
      theirs = new Set();
      elsewhere.set(node, theirs);
    }
    // An editor that moved from one node to another (its node stopped) is the newer node's.
    for (const id of arrived) {
      for (const clients of elsewhere.values()) clients.delete(id);
      theirs.add(id);
    }
  }

  private soon(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => this.tellNow(), AWARENESS_TO_NODES_MS);
    this.timer.unref?.();
  }
}

/** Whether an editor on another node introduced client id `id`. */
export function elsewhereHas(elsewhere: ReadonlyMap<string, ReadonlySet<number>>, id: number): boolean {
  for (const clients of elsewhere.values()) if (clients.has(id)) return true;
  return false;
}
