/**
 * JSON request bodies: only `application/json`, at most `maxBytes` (read incrementally, so a chunked body
 * cannot grow past the cap in memory), and no string holding NUL or an unpaired surrogate, which SQLite and
 * every client downstream would mangle.
 */
import { AppError, invalid } from "../core/errors";

const tooLarge = () => new AppError("too_large", "request body too large");
/** Strict: a body that is not valid UTF-8 is invalid JSON. */
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** True for `application/json` with or without parameters. */
export function isJsonContentType(contentType: string | null): boolean {
  if (!contentType) return false;
  const semi = contentType.indexOf(";");
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return type === "application/json";
}

/** Reads the raw body, refusing more than `maxBytes`. */
export async function readCapped(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge();
  // A declared length within the cap is what the server reads: one read, no chunk loop.
  if (declared !== null) return new Uint8Array(await request.arrayBuffer());
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
}

/** Path of the first string (key or value) that is not safe to store, or null. */
export function findUnsafeString(value: unknown, path = ""): string | null {
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
export function isSafeString(s: string): boolean {
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
 * Parses a JSON body. An empty body is `undefined` whatever its content type (routes without a body accept
 * it); a non-empty one must be declared JSON and be valid JSON.
 */
export async function parseJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const raw = await readCapped(request, maxBytes);
  if (raw.byteLength === 0) return undefined;
  if (!isJsonContentType(request.headers.get("content-type"))) {
    throw invalid("content-type must be application/json");
  }
  let text: string;
  let value: unknown;
  try {
    text = utf8.decode(raw);
    value = JSON.parse(text);
  } catch {
    throw invalid("invalid json");
  }
  // `null` is a JSON text, but not a body: it would read as no body at all further on.
  if (value === null) throw invalid("body must be a JSON object");
  if (typeof value === "object" && nestedBeyond(value, MAX_DEPTH)) {
    throw invalid(`body nested too deeply (at most ${MAX_DEPTH} levels)`);
  }
  // Strict UTF-8 cannot hold a lone surrogate and JSON.parse refuses a raw NUL: only a `\u` escape can bring
  // either in, so the walk is needed only when the text has one.
  const unsafe = text.includes("\\u") ? findUnsafeString(value) : null;
  if (unsafe !== null) throw invalid(`${unsafe}: must not contain NUL or unpaired surrogate characters`);
  return value;
}
