/**
 * argon2id password hashing with a bound on how many hashes run at once: each takes ~64 MiB, so a burst of
 * logins must queue rather than exhaust memory. The queue takes turns between clients, so one client's burst
 * of guesses (which needs no account: an unknown email costs a hash too) does not keep everyone else from
 * signing in. How much of a burst gets into the queue at all is the sign-in limits' to say
 * (`features/auth/auth.limits.ts`): the server's, not a proxy's, since a proxy hides who is who.
 */

/**
 * Async work, at most `limit` at a time; waiting work is served by turns between keys (oldest key first, and a
 * key that has had its turn goes to the back), in arrival order within a key.
 */
export class FairQueue {
  private active = 0;
  private readonly waiting = new Map<string, (() => void)[]>();
  constructor(private readonly limit: number) {}

  /** Runs `fn` once a slot is free and it is `key`'s turn. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) {
      await new Promise<void>((resolve) => {
        const queue = this.waiting.get(key);
        if (queue) queue.push(resolve);
        else this.waiting.set(key, [resolve]);
      });
    } else {
      this.active++;
    }
    try {
      return await fn();
    } finally {
      this.next();
    }
  }

  /** Hands the freed slot to the next key's oldest work, or frees it. */
  private next(): void {
    const turn = this.waiting.entries().next();
    if (turn.done) {
      this.active--;
      return;
    }
    const [key, queue] = turn.value;
    const resolve = queue.shift() as () => void;
    this.waiting.delete(key);
    if (queue.length > 0) this.waiting.set(key, queue);
    resolve();
  }
}

const hashing = new FairQueue(2);

/** At least 8 characters, everywhere a password is set. */
export const MIN_PASSWORD_LENGTH = 8;

/** Hashes a password with argon2id, in `client`'s turn (its address; "" for the command line). */
export function hashPassword(password: string, client = ""): Promise<string> {
  return hashing.run(client, () => Bun.password.hash(password, { algorithm: "argon2id" }));
}

/** A hash of a random password, verified against when the email is unknown so timing does not tell. */
let dummyHash: Promise<string> | undefined;

/** Checks `password` against `hash` in `client`'s turn; with a null hash, spends the same time and answers false. */
export async function verifyPassword(password: string, hash: string | null, client = ""): Promise<boolean> {
  if (hash === null) {
    dummyHash ??= hashPassword(crypto.randomUUID());
    const dummy = await dummyHash;
    await hashing.run(client, () => Bun.password.verify(password, dummy));
    return false;
  }
  return hashing.run(client, () => Bun.password.verify(password, hash));
}
