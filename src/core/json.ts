/**
 * What JSON the service stores as it came (a request's body, a webhook's payload): no string holding NUL or an
 * unpaired surrogate, which SQLite and every client downstream would mangle, and no nesting deeper than a walk
 * over it may recurse.
 */
import { invalid } from "./errors";

/** Path of the first string (key or value) that is not safe to store, or null. */
function findUnsafeString(value: unknown, path = ""): string | null {
  if (typeof value === "string") return isSafeString(value) ? null : path || "body";
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnsafeString(value[i], `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      const keyPath = path ? `${path}.${key}` : key;
      if (!isSafeString(key)) return keyPath;
      const found = findUnsafeString(inner, keyPath);
      if (found !== null) return found;
    }
  }
  return null;
}

/** No NUL and no lone surrogate. */
function isSafeString(s: string): boolean {
  return s.indexOf("\u0000") === -1 && s.isWellFormed();
}

/**
 * How deep a body's arrays and objects may nest. No route needs more than a few levels; the validator and
 * every walk over a body recurse, and a body of 40,000 nested arrays (80 KB) would overflow the stack.
 */
const MAX_DEPTH = 64;

/** True when `value` (an object or array) holds containers more than `levels` deep; recurses at most that far. */
function nestedBeyond(value: object, levels: number): boolean {
  if (levels === 0) return true;
  const inner = Array.isArray(value) ? value : Object.values(value);
  for (const item of inner) {
    if (item !== null && typeof item === "object" && nestedBeyond(item, levels - 1)) return true;
  }
  return false;
}

/**
 * Refuses a parsed JSON `value` (of the JSON `text`) nested deeper than any walk over it may recurse, or holding
 * a string that is not safe to store.
 */
export function assertStorableJson(value: unknown, text: string): void {
  if (value !== null && typeof value === "object" && nestedBeyond(value, MAX_DEPTH)) {
    throw invalid(`body nested too deeply (at most ${MAX_DEPTH} levels)`);
  }
  // Strict UTF-8 cannot hold a lone surrogate and JSON.parse refuses a raw NUL: only a `\u` escape can bring
  // either in, so the walk is needed only when the text has one.
  const unsafe = text.includes("\\u") ? findUnsafeString(value) : null;
  if (unsafe !== null) throw invalid(`${unsafe}: must not contain NUL or unpaired surrogate characters`);
}
