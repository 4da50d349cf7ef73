/**
 * What every request asks before anything else (the caller's permissions in the organization, the space and
 * the caller's role in it), remembered. Each answer costs a few SQLite statements; remembered, nothing.
 *
 * Correct by construction: the store methods that write memberships, roles and space members are the only
 * writers (all in this process), and each one drops what it may change, in the same step. Only positive
 * answers are kept, so a user added from the CLI (another process) is seen at once; entries also expire.
 *
 * Being the one place every access change passes through, it also tells listeners (the open sockets) whose
 * access changed, once the write that changed it is done.
 */

const TTL_MS = 30_000;
const MAX_ENTRIES = 20_000;

interface Entry<T> {
  value: T;
  at: number;
  userId: string;
}

/** Remembered permissions and space roles. */
export class AccessMemo {
  private readonly entries = new Map<string, Entry<unknown>>();
  private readonly listeners = new Set<(userId: string | null) => void>();
  /** Users whose access changed in the current step; null in it means everyone's may have. */
  private changed: Set<string | null> | null = null;
  private generationCount = 0;

  /** Goes up with every change of anyone's membership, roles or name: what derives from them is stale. */
  get generation(): number {
    return this.generationCount;
  }

  /** The remembered value of `key`, or what `load` answers (kept when not null). */
  get<T>(key: string, userId: string, load: () => T | null | undefined): T | null | undefined {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < TTL_MS) return hit.value as T;
    const value = load();
    if (value === null || value === undefined) {
      this.entries.delete(key);
      return value;
    }
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, at: now, userId });
    return value;
  }

  /**
   * Told of each change made here, inside its transaction (null: anyone's): on PostgreSQL the other nodes
   * are told in turn, and call `forgetUser` / `clear` with `elsewhere` set.
   */
  relay: ((userId: string | null) => void) | null = null;

  /** Drops everything remembered about a user (their memberships or roles changed). */
  forgetUser(userId: string, elsewhere = false): void {
    this.generationCount++;
    for (const [key, entry] of this.entries) if (entry.userId === userId) this.entries.delete(key);
    if (!elsewhere) this.relay?.(userId);
    this.announce(userId);
  }

  /** Drops everything (a role's permissions changed, which may touch anyone). */
  clear(elsewhere = false): void {
    this.generationCount++;
    this.entries.clear();
    if (!elsewhere) this.relay?.(null);
    this.announce(null);
  }

  /**
   * Hears whose access changed (null: anyone's may have), after the current step: the store methods above
   * run inside a transaction, and a listener must see what it committed. Returns the unsubscribe function.
   */
  onChange(listener: (userId: string | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private announce(userId: string | null): void {
    if (this.listeners.size === 0) return;
    if (this.changed) {
      this.changed.add(userId);
      return;
    }
    this.changed = new Set([userId]);
    setImmediate(() => {
      const changed = this.changed ?? new Set();
      this.changed = null;
      const targets = changed.has(null) ? [null] : [...changed];
      for (const listener of this.listeners) for (const target of targets) listener(target);
    });
  }
}
