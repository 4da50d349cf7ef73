import { afterAll, describe, expect, it } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { cleanFileMappings } from "../../src/lib/resident";
import { BINARY, type SpawnedServer, spawnServer, tempDir } from "../helpers/server";

/** A mapping of /proc/PID/smaps, with the two fields read. */
const mapping = (range: string, perms: string, path: string, anonymousKb: number) =>
  [
    `${range} ${perms} 00000000 fe:00 5313045                            ${path}`,
    "Size:              25000 kB",
    "Rss:                6172 kB",
    `Anonymous:          ${anonymousKb} kB`,
    "VmFlags: rd mr mw me sd",
  ].join("\n");

describe("cleanFileMappings", () => {
  it("keeps the file's read-only mappings without pages of their own, and nothing else", () => {
    const smaps = [
      mapping("00200000-01a39000", "r--p", "/opt/tandem", 0),
      mapping("01a40000-0684a000", "r-xp", "/opt/tandem", 0),
      // Written at load (relocations), then made read-only: its pages are the process's own.
      mapping("0685f000-06867000", "r--p", "/opt/tandem", 12),
      mapping("0684a000-0685f000", "rw-p", "/opt/tandem", 0),
      mapping("7f0000000000-7f0000100000", "r-xp", "/usr/lib/x86_64-linux-gnu/libc.so.6", 0),
      mapping("7f0000200000-7f0000300000", "r--p", "", 0),
      mapping("7f0000400000-7f0000500000", "r-xp", "/opt/tandem-old", 0),
    ].join("\n");
    expect(cleanFileMappings(smaps, "/opt/tandem")).toEqual([
      [0x200000n, 0x1a39000n - 0x200000n],
      [0x1a40000n, 0x684a000n - 0x1a40000n],
    ]);
  });

  it("finds nothing in an empty or unreadable listing", () => {
    expect(cleanFileMappings("", "/opt/tandem")).toEqual([]);
    expect(cleanFileMappings("garbage\nAnonymous: 0 kB\n", "/opt/tandem")).toEqual([]);
  });
});

describe("dist/tandem serve, once start-up is over", () => {
  const dir = tempDir("resident");
  let server: SpawnedServer | undefined;
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("releases its start-up code pages and goes on serving", async () => {
    expect(existsSync(BINARY)).toBe(true);
    server = await spawnServer({ kind: "binary", dataDir: dir, env: { LOG_LEVEL: "debug" } });
    const released = async () => {
      for (let i = 0; i < 100; i++) {
        const line = server?.output.find((l) => l.includes("start-up's code pages"));
        if (line) return JSON.parse(line) as { msg: string; mappings?: number };
        await Bun.sleep(50);
      }
      throw new Error(`no release logged:\n${server?.output.join("\n")}`);
    };
    const entry = await released();
    expect(entry.msg).toBe("start-up's code pages released");
    // The executable's machine code and its constant data, at least.
    expect(entry.mappings).toBeGreaterThanOrEqual(2);
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect((await health.json()).status).toBe("ok");
    expect((await fetch(`${server.url}/api/v1/me`)).status).toBe(401);
  });
});
