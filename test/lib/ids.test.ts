import { describe, expect, it } from "bun:test";
import { iso, isUuid, nextStamp } from "../../src/lib/ids";

describe("isUuid", () => {
  it("accepts UUIDs in either case and refuses anything else", () => {
    expect(isUuid("01a1fdd6-6f4c-753b-8b07-57043e16ac47")).toBe(true);
    expect(isUuid("01A1FDD6-6F4C-753B-8B07-57043E16AC47")).toBe(true);
    for (const bad of [
      "",
      "nope",
      "01a1fdd6-6f4c-753b-8b07-57043e16ac4g",
      "01a1fdd66f4c-753b-8b07-57043e16ac47a",
      5,
      null,
    ]) {
      expect(isUuid(bad)).toBe(false);
    }
  });
});

describe("iso", () => {
  it("always writes three fractional digits and Z, also for an instant formatted twice", () => {
    expect(iso(Date.UTC(2026, 10, 21, 9, 30, 0, 0))).toBe("2026-11-21T09:30:00.000Z");
    expect(iso(Date.UTC(2026, 10, 21, 9, 30, 0, 0))).toBe("2026-11-21T09:30:00.000Z");
    expect(iso(Date.UTC(2026, 10, 21, 9, 30, 0, 123))).toBe("2026-11-21T09:30:00.123Z");
  });
});

describe("nextStamp", () => {
  it("is now, or one millisecond after the latest when that is not in the past", () => {
    expect(nextStamp(undefined, 1000)).toBe(1000);
    expect(nextStamp(999, 1000)).toBe(1000);
    expect(nextStamp(1000, 1000)).toBe(1001);
    expect(nextStamp(2000, 1000)).toBe(2001);
  });
});
