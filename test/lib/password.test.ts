import { describe, expect, it } from "bun:test";
import { FairQueue, hashPassword, verifyPassword } from "../../src/lib/password";

describe("FairQueue", () => {
  it("never runs more than its limit at once and runs everything", async () => {
    const gate = new FairQueue(2);
    let active = 0;
    let peak = 0;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        gate.run(`client ${i % 3}`, async () => {
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

  it("takes turns between keys: one key's burst does not hold up another's work", async () => {
    const gate = new FairQueue(1);
    const order: string[] = [];
    // The first piece of work holds the slot until everything is queued: no timing decides the order.
    const holding = Promise.withResolvers<void>();
    const work = (key: string, label: string) =>
      gate.run(key, async () => {
        order.push(label);
        if (label === "g0") await holding.promise;
        else await Bun.sleep(1);
      });
    const burst = Array.from({ length: 6 }, (_, i) => work("guesser", `g${i}`));
    const other = work("someone", "s");
    holding.resolve();
    await Promise.all([...burst, other]);
    // g0 was running; the next turn is the other key's, then the burst goes on in order.
    expect(order).toEqual(["g0", "g1", "s", "g2", "g3", "g4", "g5"]);
  });

  it("releases its slot when the work throws", async () => {
    const gate = new FairQueue(1);
    await expect(gate.run("a", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await gate.run("a", async () => "ok")).toBe("ok");
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
