/**
 * Gives back the memory that start-up used and serving does not. Starting touches far more of the executable
 * than serving does (the runtime's own start, loading the bytecode, migrations, building the routes), and what
 * was touched stays resident for good: about 30 MiB of a 67 MiB idle server. Once start-up is over, the
 * executable's read-only mappings (its machine code and constant data) are let go of with
 * `madvise(MADV_DONTNEED)`. They are the file's pages, kept by the kernel's page cache: a page that is used again
 * comes back from there on first touch (a minor fault, no disk read), so what stays resident is what serving
 * uses. A mapping that holds a page of its own (the relocated `.data.rel.ro`, read-only but written at load) is
 * left alone: dropping it would bring back the file's unrelocated bytes.
 *
 * (`Bun.shrink()`, which drops every function's compiled code, gave 3.6 MiB more idle, but a keystroke into a
 * 1 MiB document cost 25% more CPU ever after: not used.)
 *
 * Linux only; a platform without `madvise` through `libc.so.6` just keeps its pages.
 */
import { dlopen, FFIType } from "bun:ffi";
import { readFileSync } from "node:fs";
import type { Logger } from "./log";

const MADV_DONTNEED = 4;

/** A mapping as `[start, length]` in bytes. */
export type Range = [start: bigint, length: bigint];

/**
 * The mappings of `file` in `smaps` (the text of `/proc/PID/smaps`) that are read-only and hold no anonymous
 * page: dropping them loses nothing, since every page comes back from the file as it is.
 */
export function cleanFileMappings(smaps: string, file: string): Range[] {
  const ranges: Range[] = [];
  let current: { range: Range; ours: boolean } | null = null;
  for (const line of smaps.split("\n")) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const [, from, to, perms, path] = head as unknown as [string, string, string, string, string];
      const start = BigInt(`0x${from}`);
      current = { range: [start, BigInt(`0x${to}`) - start], ours: path === file && !perms.includes("w") };
      continue;
    }
    const anonymous = /^Anonymous:\s+(\d+) kB/.exec(line);
    if (anonymous && current?.ours && anonymous[1] === "0") ranges.push(current.range);
    if (anonymous) current = null;
  }
  return ranges;
}

/** Releases what start-up left resident (above); logs at debug what it let go of, or why it could not. */
export function releaseStartupMemory(log: Logger): void {
  if (process.platform !== "linux") return;
  try {
    const ranges = cleanFileMappings(readFileSync("/proc/self/smaps", "utf8"), process.execPath);
    const libc = dlopen("libc.so.6", {
      madvise: { args: [FFIType.u64, FFIType.u64, FFIType.i32], returns: FFIType.i32 },
    });
    let released = 0n;
    try {
      for (const [start, length] of ranges) {
        if (libc.symbols.madvise(start, length, MADV_DONTNEED) === 0) released += length;
      }
    } finally {
      libc.close();
    }
    log.debug({ mappings: ranges.length, mapped_mib: Number(released >> 20n) }, "start-up's code pages released");
  } catch (err) {
    log.debug({ err }, "start-up's code pages could not be released; they stay resident");
  }
}
