/** File sizes for people, written one way on every screen (the file tree, a task's deliverables). */

/** 1.2 MB, 340 KB, 12 bytes: decimal units (1 KB = 1,000 bytes), as operating systems' file managers show. */
export function formatSize(bytes: number | null): string {
  if (bytes === null) return "—";
  if (bytes < 1000) return `${bytes} ${bytes === 1 ? "byte" : "bytes"}`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
