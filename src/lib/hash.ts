/** Content hashes. */
import { createHash } from "node:crypto";

/** The SHA-256 of `data` (a string hashes as its UTF-8 bytes), as lowercase hex. */
export function sha256Hex(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}
