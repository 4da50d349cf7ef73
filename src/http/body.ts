/**
 * JSON request bodies: only `application/json`, at most `maxBytes` (read incrementally, so a chunked body
 * cannot grow past the cap in memory), and no string holding NUL or an unpaired surrogate, which SQLite and
 * every client downstream would mangle.
 */
import { AppError, invalid } from "../core/errors";
import { assertStorableJson } from "../core/json";

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
  assertStorableJson(value, text);
  return value;
}
