import { describe, expect, it } from "bun:test";
import { pauseBefore } from "../../src/providers/http";

describe("the pause before a provider retry (contract §7)", () => {
  const middle = () => 0.5; // no jitter

  it("backs off 1, 2, 4, 8 s without a Retry-After", () => {
    expect([1, 2, 3, 4].map((attempt) => pauseBefore(attempt, null, middle))).toEqual([1000, 2000, 4000, 8000]);
  });

  it("honours Retry-After in seconds or as an HTTP date, up to 60 s", () => {
    expect(pauseBefore(1, "3", middle)).toBe(3000);
    expect(pauseBefore(1, "600", middle)).toBe(60_000);
    const inTwoSeconds = new Date(Date.now() + 2500).toUTCString();
    expect(pauseBefore(1, inTwoSeconds, middle)).toBeGreaterThan(1000);
    expect(pauseBefore(1, inTwoSeconds, middle)).toBeLessThanOrEqual(2500);
  });

  it("reads a Retry-After that is neither (negative, a fraction, words) as absent: the backoff step", () => {
    for (const value of ["-5", "1.5", "soon", ""]) expect(pauseBefore(2, value, middle)).toBe(2000);
  });
});
