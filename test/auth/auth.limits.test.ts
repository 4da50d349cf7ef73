/**
 * The sign-in limits' counting, on a clock of the test's (the numbers docs/api.md states: 8 and 16 at once;
 * 10, 50 and 100 wrong passwords in 15 minutes). sign-in-limits.test.ts shows them through a real server.
 */
import { describe, expect, it } from "bun:test";
import { AppError } from "../../src/core/errors";
import { type Attempt, SIGN_IN_LIMITS, SignInLimits } from "../../src/features/auth/auth.limits";

const MINUTE = 60_000;

function limits() {
  let now = 1_000_000;
  const clock = {
    limits: new SignInLimits(() => now),
    advance: (ms: number) => {
      now += ms;
    },
  };
  return clock;
}

/** The refusal `fn` throws: its `Retry-After` in seconds; fails when it throws none. */
function refusal(fn: () => unknown): number {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const appError = error as AppError;
    expect(appError.kind).toBe("too_many");
    expect(appError.message).toBe("too many attempts");
    return Number(appError.headers?.["retry-after"]);
  }
  throw new Error("admitted, where a refusal was expected");
}

/** Admits and ends `n` checks with a wrong password. */
function wrongTimes(target: SignInLimits, n: number, attempt: (i: number) => Attempt): void {
  for (let i = 0; i < n; i++) target.admit(attempt(i)).done("wrong");
}

describe("SignInLimits: checks at once", () => {
  it("admits 8 of one client at once and 16 of one account, and one more as soon as one ends", () => {
    const { limits: target } = limits();
    const running = Array.from({ length: 8 }, (_, i) => target.admit({ client: "192.0.2.1", account: `a${i}@x.test` }));
    expect(refusal(() => target.admit({ client: "192.0.2.1", account: "other@x.test" }))).toBe(1);
    running[0]?.done(null);
    target.admit({ client: "192.0.2.1", account: "other@x.test" });

    const many = Array.from({ length: 16 }, (_, i) => target.admit({ client: `198.51.100.${i}`, account: "b@x.test" }));
    expect(refusal(() => target.admit({ client: "198.51.100.99", account: "B@X.test " }))).toBe(1);
    for (const check of many) check.done(null);
    target.admit({ client: "198.51.100.99", account: "b@x.test" });
  });
});

describe("SignInLimits: wrong passwords in 15 minutes", () => {
  it("refuses the 11th of one client for one account until the oldest is 15 minutes old", () => {
    const clock = limits();
    const attempt = { client: "192.0.2.2", account: "c@x.test" };
    for (let i = 0; i < 10; i++) {
      clock.limits.admit(attempt).done("wrong");
      clock.advance(MINUTE);
    }
    // The first is 10 minutes old: 5 more to go.
    expect(refusal(() => clock.limits.admit(attempt))).toBe(5 * 60);
    // Another client, and another account of this client, go on.
    clock.limits.admit({ client: "192.0.2.3", account: "c@x.test" }).done(null);
    clock.limits.admit({ client: "192.0.2.2", account: "d@x.test" }).done(null);
    clock.advance(5 * MINUTE);
    clock.limits.admit(attempt).done("wrong");
    expect(refusal(() => clock.limits.admit(attempt))).toBe(60);
  });

  it("counts checks under way as wrong ones, so a burst cannot overshoot", () => {
    const { limits: target } = limits();
    const attempt = { client: "192.0.2.4", account: "e@x.test" };
    wrongTimes(target, 5, () => attempt);
    const running = Array.from({ length: 5 }, () => target.admit(attempt));
    expect(refusal(() => target.admit(attempt))).toBe(1);
    for (const check of running) check.done("right");
    // Right passwords: the count for this client and account is gone.
    wrongTimes(target, 10, () => attempt);
    expect(refusal(() => target.admit(attempt))).toBe(15 * 60);
  });

  it("refuses the 51st of one client over all accounts", () => {
    const { limits: target } = limits();
    wrongTimes(target, 50, (i) => ({ client: "192.0.2.5", account: `guess-${i}@x.test` }));
    expect(refusal(() => target.admit({ client: "192.0.2.5", account: "new@x.test" }))).toBe(15 * 60);
    target.admit({ client: "192.0.2.6", account: "new@x.test" }).done(null);
  });

  it("refuses the 101st of one account from all clients, whoever asks", () => {
    const { limits: target } = limits();
    wrongTimes(target, SIGN_IN_LIMITS.wrongPerAccount, (i) => ({ client: `10.0.${i}.1`, account: "f@x.test" }));
    expect(refusal(() => target.admit({ client: "10.1.0.1", account: "f@x.test" }))).toBe(15 * 60);
    target.admit({ client: "10.1.0.1", account: "g@x.test" }).done(null);
  });

  it("counts an IPv6 client by its /64", () => {
    const { limits: target } = limits();
    wrongTimes(target, 10, (i) => ({ client: `2001:db8:0:7::${i + 1}`, account: "h@x.test" }));
    expect(refusal(() => target.admit({ client: "2001:db8:0:7:1:2:3:4", account: "h@x.test" }))).toBe(15 * 60);
    target.admit({ client: "2001:db8:0:8::1", account: "h@x.test" }).done(null);
  });

  it("counts nothing for a new password hashed, or a check that failed before its outcome", () => {
    const { limits: target } = limits();
    const attempt = { client: "192.0.2.7", account: "i@x.test" };
    for (let i = 0; i < 30; i++) target.admit(attempt).done(null);
    wrongTimes(target, 10, () => attempt);
    refusal(() => target.admit(attempt));
  });
});
