/**
 * argon2id password hashing with a bound on how many hashes run at once: each takes ~64 MiB, so a burst of
 * logins must queue rather than exhaust memory.
 */

/** A counting semaphore for async work. */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limit: number) {}

  /** Runs `fn` once a slot is free. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

const hashing = new Semaphore(2);

/** At least 8 characters, everywhere a password is set. */
export const MIN_PASSWORD_LENGTH = 8;

/** Hashes a password with argon2id. */
export function hashPassword(password: string): Promise<string> {
  return hashing.run(() => Bun.password.hash(password, { algorithm: "argon2id" }));
}

/** A hash of a random password, verified against when the email is unknown so timing does not tell. */
let dummyHash: Promise<string> | undefined;

/** Checks `password` against `hash`; with a null hash, spends the same time and answers false. */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  if (hash === null) {
    dummyHash ??= hashPassword(crypto.randomUUID());
    const dummy = await dummyHash;
    await hashing.run(() => Bun.password.verify(password, dummy));
    return false;
  }
  return hashing.run(() => Bun.password.verify(password, hash));
}
