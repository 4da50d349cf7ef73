import { describe, expect, it } from "bun:test";
import { hashPassword, Semaphore, verifyPassword } from "../../src/lib/password";

describe("Semaphore", () => {
  it("never runs more than its limit at once and runs everything", async () => {
    const gate = new Semaphore(2);
    let active = 0;
    let peak = 0;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        gate.run(async () => {
          active++;
          peak = Math.max(peak, active);
          await Bun.sleep(5);
          active--;
          return i;
        }),
      ),
    );
    expect(peak).toBe(2);
    expect(results).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("releases its slot when the work throws", async () => {
    const gate = new Semaphore(1);
    await expect(gate.run(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await gate.run(async () => "ok")).toBe("ok");
  });
});

describe("passwords", () => {
  it("hash with argon2id and verify", async () => {
    const hash = await hashPassword("correct horse");
    expect(hash.startsWith("$argon2id$")).toBe(true);
    expect(await verifyPassword("correct horse", hash)).toBe(true);
    expect(await verifyPassword("wrong horse", hash)).toBe(false);
    expect(await verifyPassword("anything", null)).toBe(false);
  });
});
