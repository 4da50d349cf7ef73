/**
 * How many password checks may wait, run and fail, per client and per account: what keeps a burst of guesses
 * from stalling everyone's sign-in, and guessing slow. Every check (signing in, changing one's password,
 * accepting an invite, signing up) is admitted here before it queues for argon2id (`lib/password.ts`), or
 * refused at once with 429 `too many attempts` and a `Retry-After` in seconds; a verified password's outcome is
 * counted once it is known.
 *
 * - Waiting or running at once: 8 checks of one client (an IPv4 address, an IPv6 /64: see `clientKey`) and 16 of
 *   one account (an email). A client's burst holds 8 places in the queue at most, and the queue takes turns
 *   between clients, so another client's check runs after a hash or two, not after the burst.
 * - Wrong passwords within 15 minutes, counting the checks under way as wrong ones: 10 for one account from
 *   one client, 50 from one client over all accounts, 100 for one account from all clients. The first stops a
 *   client guessing one account without locking its owner out elsewhere; the second, a client trying many
 *   accounts (a leaked list of passwords); the third bounds a guess spread over many clients, and as it refuses
 *   the owner too, it is the highest. A right password clears its client's count for that account.
 *
 * The counts live in memory: a restart forgets them, which gives a guesser less than the restart takes.
 */
import { tooMany } from "../../core/errors";
import { clientKey } from "../../lib/addresses";

/** The numbers above, as docs/api.md and docs/operations.md state them. */
export const SIGN_IN_LIMITS = {
  clientAtOnce: 8,
  accountAtOnce: 16,
  windowMs: 15 * 60 * 1000,
  wrongPerAccountAndClient: 10,
  wrongPerClient: 50,
  wrongPerAccount: 100,
} as const;

/** The 429 of a refused check. */
export const TOO_MANY_ATTEMPTS = "too many attempts";

/** At most this many clients, accounts and pairs of them keep a count; past it, the longest quiet one goes. */
const MAX_KEYS = 50_000;

/** Who a password check is for: the caller's address and the account's email. */
export interface Attempt {
  client: string;
  account: string;
}

/** An admitted check: its client's key (the queue's turns are by it), and `done` once its outcome is known. */
export interface Admitted {
  readonly client: string;
  /** `right` or `wrong` for a verified password; null for a new one hashed (a signup) or a check that failed. */
  done(outcome: "right" | "wrong" | null): void;
}

/** The wrong passwords of each key within the window, oldest first. */
class WrongPasswords {
  private readonly byKey = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Those of `key` still in the window at `now`; a key with none is forgotten. */
  private recent(key: string, now: number): number[] {
    const times = this.byKey.get(key);
    if (!times) return [];
    while (times.length > 0 && (times[0] as number) <= now - this.windowMs) times.shift();
    if (times.length === 0) this.byKey.delete(key);
    return times;
  }

  /**
   * Milliseconds until a check of `key` may start, with `running` of its checks under way (each may yet be
   * wrong); 0 when it may now.
   */
  wait(key: string, running: number, now: number): number {
    const times = this.recent(key, now);
    if (times.length + running < this.limit) return 0;
    // Full with the checks under way: they end within moments, and may turn out right.
    if (times.length < this.limit) return 1000;
    // Full with wrong passwords: until enough of the oldest have left the window.
    return (times[times.length - this.limit] as number) + this.windowMs - now;
  }

  add(key: string, now: number): void {
    const times = this.recent(key, now);
    this.byKey.delete(key);
    times.push(now);
    if (times.length > this.limit) times.shift();
    this.byKey.set(key, times);
    if (this.byKey.size > MAX_KEYS) this.byKey.delete(this.byKey.keys().next().value as string);
  }

  clear(key: string): void {
    this.byKey.delete(key);
  }

  /** Forgets every key whose wrong passwords have all left the window. */
  sweep(now: number): void {
    for (const key of [...this.byKey.keys()]) this.recent(key, now);
  }
}

/** Counts of checks under way, by key; a key at zero is forgotten. */
class Running {
  private readonly byKey = new Map<string, number>();
  of = (key: string) => this.byKey.get(key) ?? 0;
  add(key: string, delta: 1 | -1): void {
    const n = this.of(key) + delta;
    if (n > 0) this.byKey.set(key, n);
    else this.byKey.delete(key);
  }
}

/** The limits of one server. */
export class SignInLimits {
  private readonly running = { client: new Running(), account: new Running(), pair: new Running() };
  private readonly wrong = {
    pair: new WrongPasswords(SIGN_IN_LIMITS.wrongPerAccountAndClient, SIGN_IN_LIMITS.windowMs),
    client: new WrongPasswords(SIGN_IN_LIMITS.wrongPerClient, SIGN_IN_LIMITS.windowMs),
    account: new WrongPasswords(SIGN_IN_LIMITS.wrongPerAccount, SIGN_IN_LIMITS.windowMs),
  };
  private sweptAt = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Admits a check for `attempt`, or throws 429 `too many attempts` with the seconds to wait. */
  admit(attempt: Attempt): Admitted {
    const now = this.now();
    if (now - this.sweptAt > 60_000) {
      this.sweptAt = now;
      for (const log of Object.values(this.wrong)) log.sweep(now);
    }
    const client = clientKey(attempt.client);
    const account = attempt.account.trim().toLowerCase();
    const pair = `${account} ${client}`;
    const { running, wrong } = this;
    if (
      running.client.of(client) >= SIGN_IN_LIMITS.clientAtOnce ||
      running.account.of(account) >= SIGN_IN_LIMITS.accountAtOnce
    ) {
      throw tooMany(TOO_MANY_ATTEMPTS, 1);
    }
    const waitMs = Math.max(
      wrong.pair.wait(pair, running.pair.of(pair), now),
      wrong.client.wait(client, running.client.of(client), now),
      wrong.account.wait(account, running.account.of(account), now),
    );
    if (waitMs > 0) throw tooMany(TOO_MANY_ATTEMPTS, Math.max(1, Math.ceil(waitMs / 1000)));
    const count = (delta: 1 | -1) => {
      running.client.add(client, delta);
      running.account.add(account, delta);
      running.pair.add(pair, delta);
    };
    count(1);
    let finished = false;
    return {
      client,
      done: (outcome) => {
        if (finished) return;
        finished = true;
        count(-1);
        const at = this.now();
        if (outcome === "wrong") {
          wrong.pair.add(pair, at);
          wrong.client.add(client, at);
          wrong.account.add(account, at);
        } else if (outcome === "right") {
          wrong.pair.clear(pair);
        }
      },
    };
  }
}
