/**
 * Filesystems a test fails under a server for real, and the check a stopped data dir must pass. A small tmpfs
 * to fill up or to remount read-only while the server is stopped; an ext4 image the kernel turns read-only
 * under the running server, as it does after a filesystem error with `errors=remount-ro` (a plain `mount -o
 * remount,ro` is refused while files are open for writing, and a running server always has its database open).
 * Mounting takes root, as the tests have here and in CI: without it these helpers throw, saying so.
 */
import { Database } from "bun:sqlite";
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

/** Throws unless this process may mount filesystems: a test that needs a real full disk must not pass without one. */
export function requireRoot(what: string): void {
  if (process.getuid?.() !== 0) {
    throw new Error(
      `${what} mounts filesystems and must run as root (uid 0); this process runs as ${process.getuid?.()}`,
    );
  }
}

/** Runs a command to completion; throws with its output when it fails (unless its exit code is in `ok`). */
function sh(command: string[], ok: number[] = [0]): string {
  const result = Bun.spawnSync(command, { stdout: "pipe", stderr: "pipe" });
  const out = `${result.stdout.toString()}${result.stderr.toString()}`.trim();
  if (!ok.includes(result.exitCode)) throw new Error(`\`${command.join(" ")}\` exited with ${result.exitCode}: ${out}`);
  return out;
}

/** Mounts a tmpfs of `mib` MiB on the directory `dir`. */
export function mountTmpfs(dir: string, mib: number): void {
  sh(["mount", "-t", "tmpfs", "-o", `size=${mib}m,mode=0700`, "tmpfs", dir]);
}

/** Remounts the filesystem on `dir` read-only or read-write (read-only is refused while a file is open to write). */
export function remount(dir: string, mode: "ro" | "rw"): void {
  sh(["mount", "-o", `remount,${mode}`, dir]);
}

/** Whether a filesystem is mounted on `dir`. */
export function isMounted(dir: string): boolean {
  return readFileSync("/proc/mounts", "utf8")
    .split("\n")
    .some((line) => line.split(" ")[1] === dir);
}

/** Unmounts `dir` if something is mounted there; lazily when it is still busy (a process that would not die). */
export function unmount(dir: string): void {
  if (!isMounted(dir)) return;
  try {
    sh(["umount", dir]);
  } catch {
    sh(["umount", "-l", dir]);
  }
}

/**
 * Fills the filesystem holding `dir` with the file `dir/filler` until a write fails with ENOSPC, and answers
 * the file's path: deleting it gives the space back.
 */
export function fillDisk(dir: string): string {
  const path = join(dir, "filler");
  const fd = openSync(path, "w");
  try {
    for (const size of [1 << 20, 4096, 1]) {
      const chunk = Buffer.alloc(size, 0x2e);
      for (;;) {
        try {
          if (writeSync(fd, chunk) < size) break;
        } catch (error) {
          if ((error as { code?: unknown }).code === "ENOSPC") break;
          throw error;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return path;
}

/** Gives back the space `fillDisk` took. */
export function freeDisk(filler: string): void {
  rmSync(filler, { force: true });
}

/**
 * Makes a `mib` MiB ext4 filesystem in the file `image` and mounts it on `dir` through a loop device, with
 * `errors=remount-ro`: what a filesystem error (or `failToReadOnly`) does to it is to turn it read-only.
 */
export function mountExt4(image: string, dir: string, mib: number): void {
  rmSync(image, { force: true });
  sh(["truncate", "-s", `${mib}m`, image]);
  sh(["mkfs.ext4", "-q", "-F", image]);
  sh(["mount", "-o", "loop,errors=remount-ro", image, dir]);
}

/**
 * The kernel turns the ext4 filesystem on `dir` read-only under whoever has files open in it, as after an I/O
 * error (ext4's `abort` mount option simulates one): every write from then on fails with EROFS, and the
 * filesystem stays so until it is unmounted and checked (`repairExt4`). What was written but not yet synced is
 * lost, as at a power cut.
 */
export function failToReadOnly(dir: string): void {
  sh(["mount", "-o", "remount,abort", dir]);
}

/** Unmounts the ext4 image (its users gone), checks and repairs it, and mounts it read-write again. */
export function repairExt4(image: string, dir: string): void {
  sh(["umount", dir]);
  // 1: errors were corrected, which is what a check after an abort is for.
  sh(["e2fsck", "-f", "-y", image], [0, 1]);
  sh(["mount", "-o", "loop,errors=remount-ro", image, dir]);
}

/** `PRAGMA integrity_check` of the database of a data dir no server has open: `ok` when intact. */
export function integrity(dataDir: string): string {
  const db = new Database(join(dataDir, "tandem.db"));
  try {
    return (db.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check;
  } finally {
    db.close();
  }
}
